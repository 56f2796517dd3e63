"""How much load the server carries within an SLO (lab/load_capacity.py): the SLO box, what a load is
(requests in flight, or requests sent per second), a time budget and a maximum; short loads at a
rising load with live progress and the time left; then the answer in one sentence, SLO attainment
against load with the target drawn, and goodput beside throughput. A Stop keeps every load measured
so far. A search whose requests all failed says so with the server's words, and judges nothing; a
server that refuses vLLM's extensions gets the requests without them, and the page says so. On a
public server the search takes a turn, counts against the per-minute limit, keeps to the caps and
ends within its budget (each load is cut where the budget ends)."""

from __future__ import annotations

import time

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from app_pages.remote import keys
from app_pages.remote.connect import Connection
from app_pages.remote.outcome import Line, escaped, render_line
from app_pages.remote.strings import t
from engine.errors import LabError
from lab.catalogues import word
from lab.load_capacity import SCALES, Capacity, Point, Scale, search, server_measure
from lab.remote_client import RemoteRequest
from lab.workload import QUESTIONS
from ui.errors import show_message
from ui.public import public_settings
from ui.public_caps import cap_help, capped
from ui.queue_wait import take_turn
from ui.slo_box import slo_box, slo_text, verdict_row, verdict_table
from ui.tables import show_table
from ui.theme import EXTRA_COLORS, PHASE_COLORS, style
from ui.widget_state import KEEP
from ui.widgets import whole_number, whole_number_box

SLO_DEFAULTS = {"ttft": 1000, "tpot": 200, "itl": 0, "target": 90}
PUBLIC_BUDGET_S = 120
MAX_RATE = 64.0  # requests per second: a rate load sends RATE_LOAD_S seconds of them


def _controls(lang: str):
    slo = slo_box(lang, keys.SLO_PREFIX, SLO_DEFAULTS)
    by = st.radio(
        t("rm_cap_by", lang),
        SCALES,
        key=keys.CAP_BY,
        horizontal=True,
        format_func=lambda b: t(f"rm_cap_by_{b}", lang),
        help=t("rm_cap_by_help", lang),
        persist_state=KEEP,
    )
    c = st.columns(4 if by == "rate" else 3)
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
    if by == "rate":
        fastest = capped("max_batch", MAX_RATE, keys.CAP_MAX_RATE, lo=0.1)  # a visitor's rate: as many per second
        c[1].number_input(
            t("rm_cap_max_rate", lang),
            0.1,
            fastest,
            min(8.0, fastest),
            step=1.0,
            key=keys.CAP_MAX_RATE,
            help=cap_help("max_batch", lang),
            persist_state=KEEP,
        )
        c[2].number_input(
            t("rm_cap_rate_step", lang),
            0.1,
            MAX_RATE,
            0.5,
            step=0.5,
            key=keys.CAP_RATE_STEP,
            help=t("rm_cap_rate_step_help", lang),
            persist_state=KEEP,
        )
    else:
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
    most = capped("max_new_tokens", 4096, keys.CAP_TOKENS)
    help_tokens = cap_help("max_new_tokens", lang, t("rm_load_tokens_help", lang))
    whole_number_box(c[-1], t("rm_load_tokens", lang), 1, most, keys.CAP_TOKENS, value=min(32, most), help=help_tokens)
    clicked = st.button(
        t("rm_cap_run", lang), type="primary", key=keys.CAP_RUN, icon=":material/speed:", disabled=slo is None
    )
    return slo, clicked


def _scale_text(result: Capacity, name: str, lang: str) -> str:
    """The string `name` of this search's scale (rm_cap_col / rm_cap_x: concurrency or rate)."""
    return t(f"{name}_{result.scale.by}", lang)


def point_rows(result: Capacity, lang: str) -> list[dict]:
    column = _scale_text(result, "rm_cap_col", lang)
    return [
        verdict_row({column: result.scale.value(n)}, result.points[n].verdict, lang, result.points[n].machine)
        for n in sorted(result.points)
    ]


def _loads(result: Capacity) -> tuple[list[int], list[float]]:
    """The levels measured, in order, and their loads (requests in flight, or requests per second)."""
    levels = sorted(result.points)
    return levels, [result.scale.value(n) for n in levels]


def attainment_figure(result: Capacity, lang: str) -> go.Figure:
    """SLO attainment against load, the target as a line (DistServe's figure)."""
    levels, loads = _loads(result)
    fig = go.Figure(
        go.Scatter(
            x=loads,
            y=[100 * result.points[n].verdict.attainment for n in levels],
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
    style(fig, t("rm_cap_fig_attainment", lang), _scale_text(result, "rm_cap_x", lang), t("rm_cap_y_attainment", lang))
    fig.update_yaxes(range=[0, 105])
    fig.update_xaxes(tickvals=loads)  # the loads measured (no "1.5 requests in flight")
    return fig


def goodput_figure(result: Capacity, lang: str) -> go.Figure:
    """Goodput beside throughput against load: where they part, requests still finish but too slowly."""
    levels, loads = _loads(result)
    points = [result.points[n] for n in levels]
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
    style(fig, t("rm_cap_fig_goodput", lang), _scale_text(result, "rm_cap_x", lang), t("rm_cap_y_rate", lang))
    fig.update_yaxes(rangemode="tozero")
    fig.update_xaxes(tickvals=loads)
    return fig


def _scale(lang: str) -> tuple[Scale, int]:
    """What the form's loads are, and the highest level of them; a LabError for too many rate steps."""
    s = st.session_state
    if s[keys.CAP_BY] != "rate":
        return Scale(), whole_number(s[keys.CAP_MAX_LOAD])
    scale = Scale("rate", float(s[keys.CAP_RATE_STEP]))
    levels = scale.levels(float(s[keys.CAP_MAX_RATE]))
    if levels > 256:
        raise LabError(t("rm_cap_too_many_steps", lang, n=levels))
    return scale, levels


def _run(conn: Connection, slo, scale: Scale, max_load: int, lang: str) -> None:
    s = st.session_state
    budget, tokens = whole_number(s[keys.CAP_BUDGET]), whole_number(s[keys.CAP_TOKENS])
    public = public_settings()
    if public.enabled:  # the boxes stop at these; a value set another way comes back inside
        budget, tokens = min(budget, PUBLIC_BUDGET_S), min(tokens, public.max_new_tokens)
    requests = [RemoteRequest(q, tokens, chat=True, ignore_eos=True) for q in QUESTIONS]
    measure = server_measure(conn.endpoint, s[keys.MODEL], requests, slo, scale=scale, budget_s=budget)
    start = time.perf_counter()
    with st.status(t("rm_cap_running", lang, slo=slo_text(slo, lang)), expanded=True) as box:
        st.button(t("stop", lang), key=keys.STOP + "_cap", icon=":material/stop_circle:")
        bar, table = st.progress(0.0), st.empty()

        def on_point(point: Point, partial: Capacity) -> None:
            s[keys.CAP_RESULT] = partial  # kept as it grows: a Stop leaves what was measured
            left = max(0.0, budget - (time.perf_counter() - start))
            bar.progress(
                min(1.0, (time.perf_counter() - start) / budget),
                text=t(
                    f"rm_cap_progress_{scale.by}", lang, load=scale.value(point.load), n=len(partial.points), left=left
                ),
            )
            if partial.points:
                show_table(pd.DataFrame(point_rows(partial, lang)), where=table)

        result = search(measure, slo, budget_s=budget, max_load=max_load, on_point=on_point, scale=scale)
        s[keys.CAP_RESULT] = result
        box.update(label=t("rm_cap_done", lang, s=result.seconds), state="complete", expanded=False)


def render_capacity(conn: Connection, lang: str) -> None:
    st.markdown(t("rm_cap_intro", lang))
    slo, clicked = _controls(lang)
    if clicked and slo is not None:
        try:
            scale, max_load = _scale(lang)
        except LabError as exc:
            show_message(str(exc))
        else:
            with take_turn(lang) as go:  # on a public server: a turn, counted against the per-minute limit
                if go:
                    _run(conn, slo, scale, max_load, lang)
    result: Capacity | None = st.session_state.get(keys.CAP_RESULT)
    if result is None:
        return
    dropped = result.dropped()
    if dropped is not None:
        render_line(Line("warn", word(dropped[0], lang), (dropped[1],)))
    if result.failed is not None:  # every request failed: the server's words, and no verdict
        st.error(word(escaped(result.message()), lang), icon=":material/error:")
        return
    if not result.points:  # the budget ended the first load: nothing was judged
        st.warning(word(result.message(), lang), icon=":material/speed:")
        return
    (st.warning if not result.separable or not result.bracketed else st.success)(
        word(result.message(), lang), icon=":material/speed:"
    )
    verdict_table(point_rows(result, lang), keys.CAP_TABLE, lang)
    c1, c2 = st.columns(2)
    c1.plotly_chart(attainment_figure(result, lang), key=keys.CAP_FIG_ATTAINMENT)
    c2.plotly_chart(goodput_figure(result, lang), key=keys.CAP_FIG_GOODPUT)
    st.caption(t("rm_cap_caption", lang))
