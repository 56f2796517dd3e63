"""Connecting: the base URL, an API key (this session only), a timeout; the server's model list and
whether it publishes Prometheus metrics (and whose names they are)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

import streamlit as st

from app_pages.remote import keys
from app_pages.remote.strings import t
from lab.remote_client import Endpoint, list_models
from lab.remote_metrics import probe
from ui.errors import show_message
from ui.text import md_escape, md_literal
from ui.widget_state import KEEP
from ui.widgets import whole_number_box

DEFAULT_URL = "http://127.0.0.1:8000"


@dataclass
class Connection:
    endpoint: Endpoint
    models: list[str]
    kind: str | None  # "vllm", "sglang", "llamacpp", "tgi" or None (no /metrics, or no names we know)
    metrics_note: str = ""  # what /metrics showed, in words: the kind, or why there is none


async def _probe(endpoint: Endpoint) -> Connection:
    models = await list_models(endpoint)
    kind, note = await probe(endpoint)
    return Connection(endpoint, models, kind, note)


def render_connect(lang: str, allowed_urls: tuple[str, ...] | None = None) -> Connection | None:
    """The connection form; the current connection (this session's), or None. `allowed_urls`: a
    public server's list, the only addresses offered (no typed URL)."""
    with st.form(keys.CONNECT + "_form", border=True):
        c1, c2, c3 = st.columns([4, 3, 1.2])
        if allowed_urls:
            url = c1.selectbox(
                t("rm_url", lang), allowed_urls, key=keys.URL_CHOICE, help=t("rm_url_public", lang), persist_state=KEEP
            )
        else:
            url = c1.text_input(
                t("rm_url", lang), value=DEFAULT_URL, key=keys.URL, help=t("rm_url_help", lang), persist_state=KEEP
            )
        api_key = c2.text_input(
            t("rm_key", lang), type="password", key=keys.API_KEY, help=t("rm_key_help", lang), persist_state=KEEP
        )
        timeout = whole_number_box(
            c3, t("rm_timeout", lang), 1, 600, keys.TIMEOUT, value=30, help=t("rm_timeout_help", lang)
        )
        clicked = st.form_submit_button(t("rm_connect", lang), type="primary", icon=":material/link:")
    if clicked:
        try:
            endpoint = Endpoint(url, api_key or None, float(timeout))
            with st.spinner(t("rm_connecting", lang, url=md_literal(endpoint.base_url))):
                st.session_state[keys.CONNECTION] = asyncio.run(_probe(endpoint))
        except Exception as exc:  # noqa: BLE001 - one sentence, the page keeps serving
            st.session_state.pop(keys.CONNECTION, None)
            show_message(str(exc))
            return None
    conn: Connection | None = st.session_state.get(keys.CONNECTION)
    if conn is None:
        st.info(t("rm_not_connected", lang))
        return None
    st.caption(
        t(
            "rm_connected",
            lang,
            url=md_literal(conn.endpoint.base_url),
            n=len(conn.models),
            kind=md_escape(conn.metrics_note) if conn.metrics_note else t("rm_kind_none", lang),
        )
    )
    if not conn.models:
        return None
    st.selectbox(t("rm_model", lang), conn.models, key=keys.MODEL, persist_state=KEEP)
    return conn
