"""Playground: one prompt through the real engine. The prompt's tokens light up together in one
prefill step, then each generated token arrives in its own decode step; below, the KV cache,
attention shapes and probabilities, timings, memory and the worked example of that run.

A run can be shared: as a link that fills in these controls, as a trace file that the uploader
shows again without any model (so it works even when no model can be loaded), or as a
standalone HTML report."""
import pandas  # noqa: F401  - before plotly (fresh-server import race)
import streamlit as st

from app_pages.playground.controls import render_controls
from app_pages.playground.results import mark_interrupted, render_results
from app_pages.playground.share import forget_link_notes, link_notes, share_link_control, upload_control
from app_pages.playground.strings import t
from ui.i18n import current_lang
from ui.live import RUN_KEY, run_live
from ui.models import get_registry, load_for_page
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
link_notes(lang, info.max_position if info else None)  # what a shared link filled in or ignored
run_clicked = False
if bundle is not None:
    settings, run_clicked = render_controls(bool(getattr(bundle.tokenizer, "chat_template", None)),
                                            info.max_position, lang)
    share_link_control(settings, choice.spec, choice.dtype, lang)
upload_control(lang)  # a saved trace needs no model: offered even when none could be loaded
live_slot, results_slot = st.empty(), st.empty()
mark_interrupted()
if run_clicked:
    forget_link_notes()
    results_slot.empty()
    run_live(bundle, settings, get_registry(), live_slot, lang)
with results_slot.container():
    render_results(st.session_state.get(RUN_KEY), lang)
