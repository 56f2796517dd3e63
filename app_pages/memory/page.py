"""Memory lab: where prefill's memory goes (C10, C16, C20). A measured sweep of the prefill peak
over prompt length (eager vs sdpa vs chunked) against the score-matrix formula; the "will it
fit" predictor for big models on real GPU sizes; attention heatmaps with downloads; and the KV
leak of a naive generation loop against the engine."""

import pandas  # noqa: F401  - before plotly (fresh-server import race)
import streamlit as st

from app_pages.memory.panel_fit import fit_panel
from app_pages.memory.panel_heat import heat_panel
from app_pages.memory.panel_leak import leak_panel
from app_pages.memory.panel_sweep import sweep_panel
from app_pages.memory.strings import t
from ui.i18n import current_lang
from ui.models import load_for_page
from ui.run_state import ModelInfo
from ui.sidebar import CHOICE_KEY
from ui.widgets import model_summary

lang = current_lang()
st.title(t("mem_title", lang))
st.markdown(t("mem_intro", lang))

bundle = load_for_page(st.session_state[CHOICE_KEY], lang)
if bundle is not None:
    st.caption(model_summary(ModelInfo.from_bundle(bundle), lang))

sweep_tab, fit_tab, heat_tab, leak_tab = st.tabs(
    [t("mem_tab_sweep", lang), t("mem_tab_fit", lang), t("mem_tab_heat", lang), t("mem_tab_leak", lang)]
)
with fit_tab:  # arithmetic only: works on the presets even when no model could be loaded
    fit_panel(bundle, lang)
for tab, panel in ((sweep_tab, sweep_panel), (heat_tab, heat_panel), (leak_tab, leak_panel)):
    with tab:
        if bundle is None:
            st.info(t("mem_needs_model", lang))
        else:
            panel(bundle, lang)
