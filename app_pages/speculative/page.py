"""Speculative decoding lab: the same prompt with and without prompt-lookup speculation, side by
side, and the verify-cost curve that says why (and when) it pays on this machine."""

import pandas  # noqa: F401  - before plotly (fresh-server import race)
import streamlit as st

from app_pages.speculative.cost import render_cost_tab
from app_pages.speculative.run import render_run_tab
from app_pages.speculative.strings import t
from ui.i18n import current_lang
from ui.models import get_registry, load_for_page
from ui.sidebar import CHOICE_KEY

lang = current_lang()
st.title(t("sp_title", lang))
st.markdown(t("sp_intro", lang))

bundle = load_for_page(st.session_state[CHOICE_KEY], lang)
if bundle is None:
    st.stop()

run_tab, cost_tab = st.tabs([t("sp_tab_run", lang), t("sp_tab_cost", lang)])
with run_tab:
    render_run_tab(bundle, get_registry(), lang)
with cost_tab:
    render_cost_tab(bundle, get_registry(), lang)
