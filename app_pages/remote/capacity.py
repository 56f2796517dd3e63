"""How much load the server carries within an SLO (lab/capacity.py): the SLO box, a time budget and
a maximum; short loads at rising concurrency with live progress and the time left; then the answer
in one sentence, SLO attainment against load with the target drawn, and goodput beside throughput.
A Stop keeps every load measured so far."""

from __future__ import annotations

import time

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from app_pages.remote import keys
from app_pages.remote.connect import Connection
from app_pages.remote.strings import t
from lab.capacity import Capacity, Point, search, server_measure
from lab.remote_client import RemoteRequest
from lab.workload import QUESTIONS
from ui.capped import cap_help, capped
from ui.public import public_settings
from ui.slo_box import slo_box, slo_text, verdict_row, verdict_table
from ui.theme import EXTRA_COLORS, PHASE_COLORS, style
from ui.widgets import whole_number, whole_number_box

SLO_DEFAULTS = {"ttft": 1000, "tpot": 200, "itl": 0, "target": 90}
PUBLIC_BUDGET_S = 120


def _controls(lang: str):
    slo = slo_box(lang, keys.SLO_PREFIX, SLO_DEFAULTS)
    c = st.columns(3)
    longest = PUBLIC_BUDGET_S if public_settings().enabled else 1800  # a visitor's search ends within 2 min
    whole_number_box(
        c[0],
        t("rm_cap_budget", lang),
        10,
        longest,
        keys.CAP_BUDGET,
        value=min(120, longest),
        help=t("rm_cap_budget_help", lang),
    )
    most = capped("max_batch", 64, keys.CAP_MAX_LOAD)
    whole_number_box(
        c[1],
        t("rm_cap_max_load", lang),
        1,
        most,
        keys.CAP_MAX_LOAD,
        value=min(16, most),
        help=cap_help("max_batch", lang),
    )
    whole_number_box(
        c[2], t("rm_load_tokens", lang), 1, 4096, keys.CAP_TOKENS, value=32, help=t("rm_load_tokens_help", lang)
    )
    clicked = st.button(
        t("rm_cap_run", lang), type="primary", key=keys.CAP_RUN, icon=":material/speed:", disabled=slo is None
    )
    return slo, clicked


def point_rows(result: Capacity, lang: str) -> list[dict]:
    column = t("rm_cap_col_load", lang)
    return [
        verdict_row({column: load}, result.points[load].verdict, lang, busy=result.points[load].busy)
        for load in sorted(result.points)
    ]


def attainment_figure(result: Capacity, lang: str) -> go.Figure:
    """SLO attainment against load, the target as a line (DistServe's figure)."""
    loads = sorted(result.points)
    fig = go.Figure(
        go.Scatter(
            x=loads,
            y=[100 * result.points[x].verdict.attainment for x in loads],
            mode="lines+markers",
            name=t("rm_cap_attainment", lang),
            line=dict(color=EXTRA_COLORS["kv"]),
        )
    )
    fig.add_trace(
        go.Scatter(
            x=[min(loads), max(loads)],
            y=[100 * result.slo.target] * 2,
            mode="lines",
            name=t("rm_cap_target", lang, share=100 * result.slo.target),
            line=dict(color="#dc2626", dash="dash"),
        )
    )
    style(fig, t("rm_cap_fig_attainment", lang), t("rm_cap_x", lang), t("rm_cap_y_attainment", lang))
    fig.update_yaxes(range=[0, 105])
    fig.update_xaxes(tickvals=loads)  # the loads measured: whole numbers of requests in flight
    return fig


def goodput_figure(result: Capacity, lang: str) -> go.Figure:
    """Goodput beside throughput against load: where they part, requests still finish but too slowly."""
    loads = sorted(result.points)
    points = [result.points[x] for x in loads]
    fig = go.Figure()
    for name, values, color in (
        (
            t("rm_cap_throughput", lang),
            [p.verdict.requests / p.seconds if p.seconds else None for p in points],
            PHASE_COLORS["decode"],
        ),
        (t("rm_cap_goodput", lang), [p.verdict.goodput for p in points], PHASE_COLORS["prefill"]),
    ):
        fig.add_trace(go.Scatter(x=loads, y=values, mode="lines+markers", name=name, line=dict(color=color)))
    style(fig, t("rm_cap_fig_goodput", lang), t("rm_cap_x", lang), t("rm_cap_y_rate", lang))
    fig.update_yaxes(rangemode="tozero")
    fig.update_xaxes(tickvals=loads)
    return fig


def _run(conn: Connection, slo, lang: str) -> None:
    s = st.session_state
    budget, max_load = whole_number(s[keys.CAP_BUDGET]), whole_number(s[keys.CAP_MAX_LOAD])
    requests = [RemoteRequest(q, whole_number(s[keys.CAP_TOKENS]), chat=True, ignore_eos=True) for q in QUESTIONS]
    measure = server_measure(conn.endpoint, s[keys.MODEL], requests, slo)
    start = time.perf_counter()
    with st.status(t("rm_cap_running", lang, slo=slo_text(slo, lang)), expanded=True) as box:
        st.button(t("stop", lang), key=keys.STOP + "_cap", icon=":material/stop_circle:")
        bar, table = st.progress(0.0), st.empty()

        def on_point(point: Point, partial: Capacity) -> None:
            s[keys.CAP_RESULT] = partial  # kept as it grows: a Stop leaves what was measured
            left = max(0.0, budget - (time.perf_counter() - start))
            bar.progress(
                min(1.0, (time.perf_counter() - start) / budget),
                text=t("rm_cap_progress", lang, load=point.load, n=len(partial.points), left=left),
            )
            table.dataframe(pd.DataFrame(point_rows(partial, lang)), hide_index=True)

        result = search(measure, slo, budget_s=budget, max_load=max_load, on_point=on_point)
        s[keys.CAP_RESULT] = result
        box.update(label=t("rm_cap_done", lang, s=result.seconds), state="complete", expanded=False)


def render_capacity(conn: Connection, lang: str) -> None:
    st.markdown(t("rm_cap_intro", lang))
    slo, clicked = _controls(lang)
    if clicked and slo is not None:
        _run(conn, slo, lang)
    result: Capacity | None = st.session_state.get(keys.CAP_RESULT)
    if result is None or not result.points:
        return
    (st.warning if result.busy or not result.bracketed else st.success)(result.sentence(lang), icon=":material/speed:")
    verdict_table(point_rows(result, lang), keys.CAP_TABLE, lang)
    c1, c2 = st.columns(2)
    c1.plotly_chart(attainment_figure(result, lang), key=keys.CAP_FIG_ATTAINMENT)
    c2.plotly_chart(goodput_figure(result, lang), key=keys.CAP_FIG_GOODPUT)
    st.caption(t("rm_cap_caption", lang))
