"""The playground's sharing controls: the share link, the trace uploader, the download buttons,
and the notes that go with them (what a link filled in or ignored, which file is shown)."""

from __future__ import annotations

import logging

import streamlit as st

from app_pages.playground import keys
from app_pages.playground.pass_view import cancel_running
from app_pages.playground.report import report_html
from app_pages.playground.share_link import MAX_LINK_PROMPT, fit_to_model, link_params, link_url, shareable_model
from app_pages.playground.strings import t
from app_pages.playground.trace_file import dump_run, load_run
from engine.errors import LabError
from ui.errors import show_message
from ui.live import RUN_KEY
from ui.replay import STEP_KEY as REPLAY_STEP_KEY
from ui.run_state import RunResult, RunSettings
from ui.sidebar import SPEC_KEY
from ui.text import download_name, md_escape, md_literal
from ui.widgets import UPLOAD_MAX_MB

log = logging.getLogger("pdlab.ui")


def _load_linked_model() -> None:
    s = st.session_state
    s[SPEC_KEY] = s.pop(keys.SHARE_MODEL_PENDING)  # a callback runs before the sidebar's box is drawn


def _keep_model() -> None:
    st.session_state.pop(keys.SHARE_MODEL_PENDING, None)


def ask_linked_model(lang: str) -> None:
    """A link named another model: load it only when the visitor says so (a hub id downloads)."""
    pending = st.session_state.get(keys.SHARE_MODEL_PENDING)
    if not pending:
        return
    with st.container(border=True):
        st.info(t("sh_model_ask", lang, model=md_literal(pending)), icon=":material/help:")
        row = st.container(horizontal=True)
        row.button(
            t("sh_model_load", lang),
            key=keys.SHARE_MODEL_LOAD,
            on_click=_load_linked_model,
            type="primary",
            icon=":material/download:",
        )
        row.button(t("sh_model_keep", lang), key=keys.SHARE_MODEL_KEEP, on_click=_keep_model)


def link_notes(lang: str, max_position: int | None = None, public_cap: bool = False) -> None:
    """What a shared link filled in and what it ignored, until the next run. `max_position` is the
    most max_new_tokens may be; `public_cap`: that limit is a public server's cap, not the context."""
    ask_linked_model(lang)
    lowered = fit_to_model(max_position) if max_position else None
    notes = st.session_state.get(keys.SHARE_LINK_NOTES)
    if lowered:
        applied, ignored = notes or ([], [])
        reason = "sh_clamped_public" if public_cap else "sh_clamped"
        applied = [name for name in applied if name != "max_new_tokens"]  # lowered: not filled in as asked
        ignored = [i for i in ignored if i[2] not in ("sh_clamped", "sh_clamped_public")] + [
            ("max_new_tokens", str(lowered[0]), reason, {"n": lowered[0], "max": lowered[1]})
        ]
        notes = st.session_state[keys.SHARE_LINK_NOTES] = (applied, ignored)
    if not notes:
        return
    applied, ignored = notes
    if applied:
        st.info(t("sh_link_applied", lang, names=", ".join(applied)), icon=":material/link:")
    if ignored:
        items = "; ".join(f"{name}={value[:40]!r} ({t(key, lang, **values)})" for name, value, key, values in ignored)
        st.warning(md_escape(t("sh_link_ignored", lang, items=items)), icon=":material/link_off:")


def forget_link_notes() -> None:
    """A run starts: the link's notes and the shown link have done their job."""
    st.session_state.pop(keys.SHARE_LINK_NOTES, None)
    st.session_state.pop(keys.LINK_OPEN, None)


def _hide_link() -> None:
    st.session_state.pop(keys.LINK_OPEN, None)


def share_link_control(settings: RunSettings, model_spec: str, dtype: str, lang: str) -> None:
    """The link for the settings as last submitted, shown from a click on the form's "Show share
    link" until Hide or the next Run (the box's own copy button copies it: the server cannot reach
    the visitor's clipboard)."""
    s = st.session_state
    if s.get(keys.SHARE):
        s[keys.LINK_OPEN] = True
    if not s.get(keys.LINK_OPEN):
        return
    with st.container(border=True, key=keys.SHARE_BOX):
        st.caption(t("sh_link_explain", lang))
        st.code(link_url(st.context.url, link_params(settings, model_spec, dtype)), language=None, wrap_lines=True)
        notes = [t("sh_link_copy_hint", lang)]
        if not shareable_model(model_spec):
            notes.append(t("sh_link_local_model", lang))
        st.caption(" ".join(notes))
        if len(settings.prompt) > MAX_LINK_PROMPT:
            st.warning(t("sh_link_too_long", lang, n=len(settings.prompt), max=MAX_LINK_PROMPT))
        st.button(t("sh_link_hide", lang), key=keys.LINK_HIDE, on_click=_hide_link, icon=":material/close:")


def forget_stale_choices(result: RunResult) -> None:
    """Choices kept from the previous run that the loaded one may not have (a layer, a step)."""
    s = st.session_state
    for key in (REPLAY_STEP_KEY, keys.SHAPES_STEP):
        s.pop(key, None)
    layers = {layer for captured in result.attention for layer in captured}
    if s.get(keys.HEAT_LAYER) not in layers:
        s.pop(keys.HEAT_LAYER, None)
    if not isinstance(s.get(keys.HEAT_HEAD), int) or s[keys.HEAT_HEAD] >= result.model.num_heads:
        s.pop(keys.HEAT_HEAD, None)


def _load(file) -> None:
    s = st.session_state
    s[keys.TRACE_UPLOAD_SEEN] = file.file_id
    try:
        result = load_run(file.getvalue())
    except LabError as exc:  # the file's problem, in words for the user
        s[keys.TRACE_UPLOAD_ERROR] = (file.name, str(exc), None)
        return
    except Exception as exc:  # noqa: BLE001 - never a traceback in the page
        log.error("loading an uploaded trace failed", exc_info=exc)
        s[keys.TRACE_UPLOAD_ERROR] = (file.name, None, type(exc).__name__)
        return
    s.pop(keys.TRACE_UPLOAD_ERROR, None)
    result.loaded_from = file.name
    forget_stale_choices(result)
    cancel_running()  # the run it replaces needs its memory pass no more
    s[RUN_KEY] = result


def upload_control(lang: str) -> None:
    """A trace file dropped here replaces the shown run, once per file; no model runs."""
    s = st.session_state
    with st.expander(t("sh_upload_header", lang), icon=":material/upload_file:"):
        file = st.file_uploader(
            t("sh_upload_label", lang),
            type=["json"],
            key=keys.TRACE_UPLOAD,
            help=t("sh_upload_help", lang, mb=UPLOAD_MAX_MB),
            max_upload_size=UPLOAD_MAX_MB,
        )
        if file is None:
            s.pop(keys.TRACE_UPLOAD_SEEN, None)
            s.pop(keys.TRACE_UPLOAD_ERROR, None)
            return
        if s.get(keys.TRACE_UPLOAD_SEEN) != file.file_id:
            _load(file)
        if keys.TRACE_UPLOAD_ERROR in s:
            name, message, kind = s[keys.TRACE_UPLOAD_ERROR]
            show_message(t("sh_load_failed", lang, file=name, msg=message or t("err_unexpected", lang, kind=kind)))


def loaded_note(result: RunResult, lang: str) -> None:
    if result.loaded_from:
        st.info(
            t("sh_loaded", lang, file=md_literal(result.loaded_from), model=md_literal(result.model.name)),
            icon=":material/upload_file:",
        )


def download_buttons(result: RunResult, lang: str) -> None:
    """Built only when clicked (deferred data): a report embeds plotly.js, ~5 MB."""
    row = st.container(horizontal=True)
    row.download_button(
        t("sh_download_json", lang),
        data=lambda: dump_run(result),
        file_name=download_name("trace", result.model.name, result.settings.prompt, ext="json", when=result.started),
        mime="application/json",
        key=keys.DL_TRACE,
        help=t("sh_download_json_help", lang),
        icon=":material/download:",
        on_click="ignore",
    )
    row.download_button(
        t("sh_download_html", lang),
        data=lambda: report_html(result, lang),
        file_name=download_name("report", result.model.name, result.settings.prompt, ext="html", when=result.started),
        mime="text/html",
        key=keys.DL_REPORT,
        help=t("sh_download_html_help", lang),
        icon=":material/description:",
        on_click="ignore",
    )
