"""The prefill/decode lab: router and shared frame (page config, css, navigation, sidebar).

Each page is a folder under app_pages/ (its page.py and everything only it uses); the table of
pages is app_pages.PAGES. ui/ holds the kit several pages share.
"""

from pathlib import Path

import pandas  # noqa: F401  - imported before plotly: avoids a fresh-server import race
import streamlit as st

from app_pages import by_section, translated_widgets
from app_pages.playground.share_link import apply_share_link
from ui.i18n import current_lang, t
from ui.sidebar import render_sidebar
from ui.widget_state import resend_changed_labels
from ui.widgets import inject_css

ROOT = Path(__file__).resolve().parent  # absolute page paths: the app runs from any working directory

st.set_page_config(page_title="The prefill/decode lab", page_icon="⚡", layout="wide")
inject_css()
page = st.navigation(
    {  # every page in view (no "View more" fold), in sections
        t(f"nav_section_{section}"): [
            st.Page(ROOT / p.file, title=t(p.title_key), icon=p.icon, url_path=p.url_path, default=p.is_default)
            for p in pages
        ]
        for section, pages in by_section().items()
    },
    expanded=True,
)
apply_share_link(page)  # a shared link's settings, once per session, before any widget is drawn
choice = render_sidebar()
resend_changed_labels(current_lang(), choice.spec, translated_widgets())  # before any page widget is drawn
page.run()
