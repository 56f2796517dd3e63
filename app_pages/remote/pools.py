"""Several servers' /metrics read beside a load: a router's prefill and decode workers, as a
disaggregated vLLM, SGLang or Dynamo deployment exposes them. The form's field (`name = base URL` per
line), and each pool's gauges over the run, one row per pool."""

from __future__ import annotations

import streamlit as st

from app_pages.remote import keys
from app_pages.remote.figures import gauges_figure
from app_pages.remote.strings import t
from engine.errors import LabError
from lab.remote_client import Endpoint
from lab.remote_metrics import TRANSFER, MetricsWatch, parse_pools
from ui.errors import show_message
from ui.public import public_settings
from ui.widget_state import KEEP


def pools_field(lang: str) -> None:
    """The form's field: off in public mode (a visitor-typed URL would make this server fetch it)."""
    public = public_settings().enabled
    st.text_area(
        t("rm_pools", lang),
        "",
        key=keys.POOLS,
        height=80,
        placeholder="prefill = http://127.0.0.1:8001\ndecode = http://127.0.0.1:8002",
        help=t("rm_pools_public" if public else "rm_pools_help", lang),
        disabled=public,
        persist_state=KEEP,
    )


def form_pools(endpoint: Endpoint) -> dict[str, Endpoint] | None:
    """The pools the form names (the connection's API key for each), or None with the reason shown."""
    if public_settings().enabled:
        return {}
    try:
        return parse_pools(st.session_state.get(keys.POOLS) or "", endpoint.api_key)
    except LabError as exc:
        show_message(str(exc))
        return None


def render_pools(seen: MetricsWatch, start: float, lang: str, prefix: str = "") -> None:
    if not seen.pools:
        return
    st.plotly_chart(gauges_figure(seen.pools, start, t("rm_fig_pools", lang), lang), key=prefix + keys.FIG_POOLS)
    lines = []
    for name, pool in seen.pools.items():
        if not pool.snapshots:
            lines.append(t("rm_pool_unread", lang, name=name, note=pool.note or ""))
            continue
        sent = [s.gauges[TRANSFER] for s in pool.snapshots if TRANSFER in s.gauges]
        kind = pool.kind or t("rm_pool_kind_unknown", lang)
        moved = t("rm_pool_moved", lang, mib=(sent[-1] - sent[0]) / 2**20) if len(sent) > 1 else ""
        lines.append(t("rm_pool_line", lang, name=name, kind=kind, n=len(pool.snapshots)) + moved)
    st.caption("  \n".join(lines))
