"""Placeholder: being built (see the memory lab issue)."""
import streamlit as st

from ui.i18n import t

st.title(t("nav_memory"))
