"""The browser loads the code that draws tables only when a page shows its first one (up to a second on
a 2-core machine). The playground's first table is the step table, drawn when the timed run ends, so
an empty table that is never shown (assets/style.css hides its container) has the browser load that
code while the user is still typing."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from ui.tables import show_table

HIDDEN_KEY = "pg_table_code"  # the container assets/style.css hides


def load_table_code() -> None:
    """Draw the hidden empty table (after the results: the step table stays the page's first)."""
    with st.container(key=HIDDEN_KEY):
        show_table(pd.DataFrame({"step": []}), height=40)
