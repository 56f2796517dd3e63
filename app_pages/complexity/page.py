"""Complexity lab: what generating without a KV cache really costs (C13-C15), measured on the loaded
model and counted for any model, and the worked example's tensor shapes step by step (C12)."""

import pandas  # noqa: F401  - before plotly (fresh-server import race)
import streamlit as st

from app_pages.complexity.panels import render_dominance_section, render_worked_section
from app_pages.complexity.result import render_cache_section
from app_pages.complexity.strings import t
from ui.i18n import current_lang
from ui.models import get_registry, load_for_page
from ui.sidebar import CHOICE_KEY

lang = current_lang()
st.title(t("cx_title", lang))
st.markdown(t("cx_intro", lang))

bundle = load_for_page(st.session_state[CHOICE_KEY], lang)
if bundle is None:
    st.stop()

cache_tab, dominance_tab, worked_tab = st.tabs(
    [t("cx_tab_cache", lang), t("cx_tab_dominance", lang), t("cx_tab_worked", lang)]
)
with cache_tab:
    render_cache_section(bundle, get_registry(), lang)
with dominance_tab:
    render_dominance_section(bundle, lang)
with worked_tab:
    render_worked_section(bundle, lang)
