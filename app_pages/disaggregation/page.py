"""Disaggregation lab: prefill and decode on separate workers with the KV cache handed between them,
against one server with whole or chunked prefill, on the same workload; and what the hand-off costs
on real hardware."""

import pandas  # noqa: F401  - before plotly (fresh-server import race)
import streamlit as st

from app_pages.disaggregation.run import render_run_tab
from app_pages.disaggregation.strings import t
from app_pages.disaggregation.transfer import render_transfer_tab
from ui.i18n import current_lang
from ui.models import get_registry, load_for_page
from ui.sidebar import CHOICE_KEY

lang = current_lang()
st.title(t("dg_title", lang))
st.markdown(t("dg_intro", lang))

run_tab, transfer_tab = st.tabs([t("dg_tab_run", lang), t("dg_tab_transfer", lang)])
with transfer_tab:
    render_transfer_tab(lang)
with run_tab:
    bundle = load_for_page(st.session_state[CHOICE_KEY], lang)
    if bundle is not None:
        render_run_tab(bundle, get_registry(), lang)
