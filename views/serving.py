"""Placeholder: being built (see the serving lab issue)."""
import streamlit as st

from ui.i18n import t

st.title(t("nav_serving"))
