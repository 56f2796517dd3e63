"""Saving a remote run: the lab's trace file (JSON, lab/remote_trace.py) and a standalone HTML
report, both built only when clicked (a report embeds plotly.js, ~5 MB). Neither holds the API key."""

from __future__ import annotations

import streamlit as st

from app_pages.remote.report import report_html
from app_pages.remote.strings import t
from lab.remote_trace import Saved, dump_saved
from ui.text import download_name


def download_buttons(saved: Saved, lang: str, key: str) -> None:
    row = st.container(horizontal=True)
    row.download_button(
        t("rm_download_trace", lang),
        data=lambda: dump_saved(saved),
        file_name=download_name("remote-trace", saved.model, saved.kind or "", ext="json"),
        mime="application/json",
        key=key + "_trace",
        help=t("rm_download_trace_help", lang),
        icon=":material/download:",
        on_click="ignore",
    )
    row.download_button(
        t("rm_download_report", lang),
        data=lambda: report_html(saved, lang),
        file_name=download_name("remote-report", saved.model, saved.kind or "", ext="html"),
        mime="text/html",
        key=key + "_report",
        help=t("rm_download_report_help", lang),
        icon=":material/description:",
        on_click="ignore",
    )
