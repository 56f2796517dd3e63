"""Opening a saved remote run: a trace file dropped here is checked field by field and drawn as the
page drew it, with no server and no connection (a run of one prompt as the One prompt tab shows it).
A GuideLLM or `vllm bench serve` report dropped here is read into the same views (imported.py)."""

from __future__ import annotations

import streamlit as st

from app_pages.remote import keys
from app_pages.remote.imported import render_imported
from app_pages.remote.load import render_runs
from app_pages.remote.streamed_prompt import render_result
from app_pages.remote.strings import t
from engine.errors import LabError
from lab.remote_trace import Saved, load_saved
from lab.report_import import Imported, read_report
from ui.errors import show_message
from ui.text import md_literal
from ui.widgets import UPLOAD_MAX_MB


def _read(file) -> None:
    s = st.session_state
    s[keys.UPLOAD_SEEN] = file.file_id
    try:
        data = file.getvalue()
        s[keys.OPENED] = (file.name, read_report(data) or load_saved(data))
        s.pop(keys.UPLOAD_ERROR, None)
    except LabError as exc:
        s.pop(keys.OPENED, None)
        s[keys.UPLOAD_ERROR] = (file.name, str(exc))


def render_opened(lang: str) -> None:
    s = st.session_state
    with st.expander(t("rm_open_header", lang), icon=":material/upload_file:"):
        file = st.file_uploader(
            t("rm_open_label", lang),
            type=["json"],
            key=keys.UPLOAD,
            help=t("rm_open_help", lang),
            max_upload_size=UPLOAD_MAX_MB,
        )
        if file is None:
            for key in (keys.UPLOAD_SEEN, keys.UPLOAD_ERROR, keys.OPENED):
                s.pop(key, None)
            return
        if s.get(keys.UPLOAD_SEEN) != file.file_id:
            _read(file)
        if keys.UPLOAD_ERROR in s:
            name, message = s[keys.UPLOAD_ERROR]
            show_message(t("rm_open_failed", lang, file=name, msg=message))
            return
        name, opened = s[keys.OPENED]
        if isinstance(opened, Imported):
            render_imported(name, opened, lang)
        else:
            _show(name, opened, lang)


def _show(name: str, saved: Saved, lang: str) -> None:
    st.info(
        t(
            "rm_opened",
            lang,
            file=md_literal(name),
            url=md_literal(saved.base_url),
            model=md_literal(saved.model),
            created=saved.created or "—",
        ),
        icon=":material/upload_file:",
    )
    run, _ = saved.runs[-1]
    if len(saved.runs) == 1 and run.plan.mode == "synchronous" and len(run.results) == 1:
        render_result(run.results[0], lang, prefix=keys.SAVED_PREFIX)
    else:
        render_runs(saved.runs, lang, keys.SAVED_PREFIX)
