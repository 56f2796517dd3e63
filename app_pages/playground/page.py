"""Playground: one prompt through the real engine. The prompt's tokens light up together in one
prefill step, then each generated token arrives in its own decode step; below, the KV cache,
attention shapes and probabilities, timings, memory and the worked example of that run.

A run can be shared: as a link that fills in these controls, as a trace file that the uploader
shows again without any model (so it works even when no model can be loaded), or as a
standalone HTML report."""

import pandas  # noqa: F401  - before plotly (fresh-server import race)
import streamlit as st

from app_pages.playground.controls import render_controls
from app_pages.playground.pass_view import begin, cancel_running, prepare
from app_pages.playground.results import mark_interrupted, render_results
from app_pages.playground.share import forget_link_notes, link_notes, share_link_control, upload_control
from app_pages.playground.strings import t
from app_pages.playground.table_code import load_table_code
from ui.errors import show_message
from ui.i18n import current_lang
from ui.live import RUN_KEY, run_live
from ui.models import get_registry, load_for_page
from ui.public import public_settings
from ui.queue_wait import take_turn
from ui.run_state import ModelInfo
from ui.sidebar import CHOICE_KEY
from ui.widgets import model_summary

lang = current_lang()
st.title(t("pg_title", lang))
st.markdown(t("pg_intro", lang))

choice = st.session_state[CHOICE_KEY]
bundle = load_for_page(choice, lang)
info = ModelInfo.from_bundle(bundle) if bundle is not None else None
if info is not None:
    st.caption(model_summary(info, lang))
public = public_settings()
max_new = None  # the most max_new_tokens may be: the context, or a public server's cap
if info is not None:
    max_new = min(info.max_position, public.max_new_tokens) if public.enabled else info.max_position
link_notes(lang, max_new, public.enabled and max_new == public.max_new_tokens)  # what a shared link did
run_clicked = False
if bundle is not None:
    settings, run_clicked = render_controls(
        bool(getattr(bundle.tokenizer, "chat_template", None)),
        max_new,
        lang,
        public.max_prompt_chars if public.enabled else None,
    )
    if public.enabled:
        st.caption(
            t(
                "public_caps",
                lang,
                chars=public.max_prompt_chars,
                tokens=public.max_new_tokens,
                step=public.max_step_tokens,
                work=public.max_uncached_work,
            )
        )
        if run_clicked and len(settings.prompt) > public.max_prompt_chars:  # the box caps typing; this, the rest
            show_message(t("public_prompt_capped", lang, n=len(settings.prompt), cap=public.max_prompt_chars))
            run_clicked = False
    share_link_control(settings, choice.spec, choice.dtype, lang)
upload_control(lang)  # a saved trace needs no model: offered even when none could be loaded
live_slot, results_slot = st.empty(), st.empty()
mark_interrupted(lang)
if run_clicked:
    forget_link_notes()
    results_slot.empty()
    cancel_running()  # the last run's second pass: its probed steps would take turns with this run's
    with take_turn(lang, live_slot) as go:
        if go:
            result = run_live(bundle, settings, get_registry(), live_slot, lang)
            if result is not None and result.pass_pending:
                prepare(result)  # memory and the capture: after the tabs, in a thread of its own
shown = st.session_state.get(RUN_KEY)
with results_slot.container():
    render_results(shown, lang)
if shown is None:
    load_table_code()  # before the first run: its step table then draws at once
begin(bundle, shown)  # the tabs are drawn: the second pass may take the cores now
