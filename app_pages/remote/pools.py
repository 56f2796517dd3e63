"""Several servers' /metrics read beside a load: a router's prefill and decode workers, as a
disaggregated vLLM, SGLang or Dynamo deployment exposes them. The form's field (`name = base URL` per
line), and each pool's gauges over the run, one row per pool."""

from __future__ import annotations

import plotly.graph_objects as go
import streamlit as st
from plotly.subplots import make_subplots

from app_pages.remote import keys
from app_pages.remote.strings import t
from engine.errors import LabError
from lab.remote_client import Endpoint
from lab.remote_metrics import TRANSFER, MetricsWatch, parse_pools
from ui.errors import show_message
from ui.public import public_settings
from ui.theme import EXTRA_COLORS, PHASE_COLORS, style
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


def pools_figure(seen: MetricsWatch, start: float, lang: str) -> go.Figure:
    names = list(seen.pools)
    fig = make_subplots(rows=len(names), cols=1, shared_xaxes=True, subplot_titles=names)
    for i, name in enumerate(names, start=1):
        pool = seen.pools[name]
        for which, color in (("running", PHASE_COLORS["decode"]), ("waiting", PHASE_COLORS["pending"])):
            points = pool.series(which)
            fig.add_scatter(
                x=[p[0] - start for p in points],
                y=[p[1] for p in points],
                mode="lines+markers",
                line_shape="hv",
                marker_color=color,
                name=t(f"rm_series_{which}", lang),
                legendgroup=which,
                showlegend=i == 1,
                row=i,
                col=1,
            )
        kv = pool.series("kv_usage")
        fig.add_scatter(
            x=[p[0] - start for p in kv],
            y=[p[1] * 100 for p in kv],
            mode="lines",
            line=dict(color=EXTRA_COLORS["kv"], dash="dot"),
            name=t("rm_server_kv", lang),
            legendgroup="kv",
            showlegend=i == 1,
            row=i,
            col=1,
        )
        fig.update_yaxes(title_text=t("rm_pools_y", lang), rangemode="tozero", row=i, col=1)
    fig.update_xaxes(title_text=t("rm_pools_x", lang), row=len(names), col=1)
    return style(
        fig, t("rm_fig_pools", lang), t("rm_pools_x", lang), t("rm_pools_y", lang), height=140 + 180 * len(names)
    )


def render_pools(seen: MetricsWatch, start: float, lang: str, prefix: str = "") -> None:
    if not seen.pools:
        return
    st.plotly_chart(pools_figure(seen, start, lang), key=prefix + keys.FIG_POOLS)
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
