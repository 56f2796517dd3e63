"""Remote server: connect to an OpenAI-compatible server, then stream one prompt or run a load, timed
on arrival, with the server's own metrics beside the client's view."""

import pandas  # noqa: F401  - before plotly (fresh-server import race)
import streamlit as st

from app_pages.remote.capacity import render_capacity
from app_pages.remote.connect import render_connect
from app_pages.remote.load import render_load
from app_pages.remote.local_vs_server import render_beside
from app_pages.remote.open_saved import render_opened
from app_pages.remote.streamed_prompt import render_one
from app_pages.remote.strings import t
from ui.i18n import current_lang
from ui.public import public_settings

lang = current_lang()
st.title(t("rm_title", lang))
st.markdown(t("rm_intro", lang))

public = public_settings()
if public.enabled and not public.remote_urls:  # a visitor-chosen URL would make this server fetch it
    st.info(t("rm_public_off", lang), icon=":material/lock:")
    st.stop()
render_opened(lang)
conn = render_connect(lang, public.remote_urls if public.enabled else None)
if conn is None:
    st.stop()
one_tab, load_tab, capacity_tab, beside_tab = st.tabs(
    [t("rm_tab_one", lang), t("rm_tab_load", lang), t("rm_tab_capacity", lang), t("rm_tab_beside", lang)]
)
with one_tab:
    render_one(conn, lang)
with load_tab:
    render_load(conn, lang)
with capacity_tab:
    render_capacity(conn, lang)
with beside_tab:
    render_beside(conn, lang)
