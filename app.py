"""The prefill/decode lab: router and shared frame.

Pages live in views/ (a folder named pages/ would also be run by Streamlit's legacy multipage
mode, without this frame), building blocks in ui/.
"""
from pathlib import Path

import pandas  # noqa: F401  - imported before plotly: avoids a fresh-server import race
import streamlit as st

from ui.i18n import current_lang, t
from ui.share_link import apply_share_link
from ui.sidebar import render_sidebar
from ui.widget_state import resend_changed_labels
from ui.widgets import inject_css

ROOT = Path(__file__).resolve().parent  # absolute page paths: the app runs from any working directory

st.set_page_config(page_title="The prefill/decode lab", page_icon="⚡", layout="wide")
inject_css()
page = st.navigation([
    st.Page(ROOT / "views" / "playground.py", title=t("nav_playground"), icon=":material/play_circle:", default=True),
    st.Page(ROOT / "views" / "memory.py", title=t("nav_memory"), icon=":material/memory:"),
    st.Page(ROOT / "views" / "complexity.py", title=t("nav_complexity"), icon=":material/functions:"),
    st.Page(ROOT / "views" / "serving.py", title=t("nav_serving"), icon=":material/dns:"),
    st.Page(ROOT / "views" / "compare.py", title=t("nav_compare"), icon=":material/compare:"),
    st.Page(ROOT / "views" / "roofline.py", title=t("nav_roofline"), icon=":material/roofing:"),
    st.Page(ROOT / "views" / "sweeps.py", title=t("nav_sweeps"), icon=":material/ssid_chart:"),
    st.Page(ROOT / "views" / "claims.py", title=t("nav_claims"), icon=":material/fact_check:"),
])
apply_share_link(page)  # a shared link's settings, once per session, before any widget is drawn
choice = render_sidebar()
resend_changed_labels(current_lang(), choice.spec)  # before any page widget is drawn
page.run()
