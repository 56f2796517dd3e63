"""Serving lab: many requests on the real engine (C17, C21-C24). Build a workload, run it under two
scheduling policies, then watch every request over wall time (waiting, prefill chunks, decode
steps), step through the batches one iteration at a time, see the paged KV blocks each request
owns, and compare TTFT, TPOT, ITL and E2E percentiles and throughput side by side."""

import pandas  # noqa: F401  - before plotly (fresh-server import race)
import streamlit as st

from app_pages.serving import keys
from app_pages.serving.controls import policy_controls, workload_controls
from app_pages.serving.live import banner, mark_interrupted, run_comparison
from app_pages.serving.panels import blocks_panel, metrics_panel, timeline_panel
from app_pages.serving.strings import t
from ui.i18n import current_lang
from ui.models import load_for_page
from ui.queue_wait import take_turn
from ui.run_state import ModelInfo
from ui.sidebar import CHOICE_KEY
from ui.widgets import model_summary

lang = current_lang()
st.title(t("sv_title", lang))
st.markdown(t("sv_intro", lang))

bundle = load_for_page(st.session_state[CHOICE_KEY], lang)
if bundle is None:
    st.stop()
st.caption(model_summary(ModelInfo.from_bundle(bundle), lang))

st.subheader(t("sv_workload_header", lang))
specs = workload_controls(bundle, lang)
st.subheader(t("sv_policies_header", lang))
settings = policy_controls(specs, lang)
run_clicked = st.button(
    t("sv_run", lang),
    type="primary",
    key=keys.RUN,
    icon=":material/play_arrow:",
    disabled=specs is None or settings is None,
    help=t("sv_run_help", lang),
)

mark_interrupted()
if run_clicked and specs and settings:
    with take_turn(lang) as go:
        if go:
            run_comparison(bundle, specs, settings, st.session_state[keys.PRESET], lang)

result = st.session_state.get(keys.RESULT)
if result is None:
    st.info(t("sv_no_run", lang))
    st.stop()
banner(result, lang)
if result.runs:
    timeline_tab, blocks_tab, metrics_tab = st.tabs(
        [t("sv_tab_timeline", lang), t("sv_tab_blocks", lang), t("sv_tab_metrics", lang)]
    )
    with timeline_tab:
        timeline_panel(result, lang)
    with blocks_tab:
        blocks_panel(result, lang)
    with metrics_tab:
        metrics_panel(result, lang, bundle)
