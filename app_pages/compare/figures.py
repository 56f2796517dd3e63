"""The compare page's shared charts: every column is one trace in the same figure, in its own colour
(the same in every chart), named in the legend. The per-step charts share one x range (engine
steps), so step s sits at the same place in all three. Pure functions: runs in, go.Figure out."""

from __future__ import annotations

from dataclasses import dataclass

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from app_pages.compare.column_summary import ColumnSummary, kv_bytes_per_step
from app_pages.compare.strings import t
from ui.run_state import RunResult
from ui.theme import MIB, style


@dataclass(frozen=True)
class Series:
    """One column as the charts draw it."""

    name: str
    color: str
    result: RunResult


def _step_axis(fig: go.Figure, series: list[Series]) -> go.Figure:
    """The same x range on every per-step chart: from the prefill step to the longest run's last."""
    last = max((s.result.steps[-1].step for s in series if s.result.steps), default=0)
    fig.update_xaxes(range=[-0.5, last + 0.5])
    fig.update_yaxes(rangemode="tozero")
    fig.update_layout(hovermode="x unified")
    return fig


def work_figure(series: list[Series], summaries: list[ColumnSummary], lang: str = "en") -> go.Figure:
    """The work each column's shown run did, as the engine counts it per step: GFLOPs computed and MB
    of weights and KV moved. Counts, not timings: the same on a busy machine as on a quiet one."""
    fig = make_subplots(rows=1, cols=2, horizontal_spacing=0.16)
    for s, m in zip(series, summaries):
        for col, value, digits in ((1, m.gflops, 2), (2, m.mb_moved, 0)):
            fig.add_trace(
                go.Bar(
                    x=[s.name],
                    y=[value],
                    name=s.name,
                    marker_color=s.color,
                    text=[f"{value:,.{digits}f}"],
                    textposition="outside",
                    showlegend=col == 1,
                    legendgroup=s.name,
                ),
                row=1,
                col=col,
            )
    style(fig, t("cmp_fig_work", lang), "", t("cmp_axis_gflops", lang))
    fig.update_yaxes(title_text=t("cmp_axis_gflops", lang), rangemode="tozero", row=1, col=1)
    fig.update_yaxes(title_text=t("cmp_axis_mb_moved", lang), rangemode="tozero", row=1, col=2)
    fig.update_xaxes(showticklabels=False)
    fig.update_xaxes(title_text=t("cmp_axis_column", lang), row=1, col=1)
    fig.update_xaxes(title_text=t("cmp_axis_column", lang), row=1, col=2)
    return fig


def latency_bars_figure(series: list[Series], summaries: list[ColumnSummary], lang: str = "en") -> go.Figure:
    """TTFT and TPOT of each column, grouped: one bar trace per column. The bars are the summary
    table's numbers (the median over the column's timed runs), so one label means one number."""
    cats = [t("cmp_m_ttft", lang), t("cmp_m_tpot", lang)]
    fig = go.Figure()
    for s, m in zip(series, summaries):
        ys = [m.ttft_ms, m.tpot_ms]  # TPOT is None with one output token: no bar
        fig.add_trace(
            go.Bar(
                x=cats,
                y=ys,
                name=s.name,
                marker_color=s.color,
                text=[None if y is None else f"{y:.1f}" for y in ys],
                textposition="outside",
            )
        )
    runs = {m.runs for m in summaries}
    if runs <= {1}:
        title = t("cmp_fig_latency", lang)
    elif len(runs) == 1:
        title = t("cmp_fig_latency_median", lang, n=runs.pop())
    else:  # a stopped comparison: columns timed a different number of times
        title = t("cmp_fig_latency_medians", lang)
    style(fig, title, t("cmp_axis_metric", lang), t("axis_ms", lang))
    fig.update_layout(barmode="group")
    fig.update_yaxes(rangemode="tozero")
    return fig


def itl_figure(series: list[Series], lang: str = "en") -> go.Figure:
    """The gap before each decode token (ITL), at the engine step that produced it."""
    fig = go.Figure()
    for s in series:
        lat = s.result.latencies_ms()  # TTFT, then the ITLs
        toks = s.result.tokens[1:]
        fig.add_trace(
            go.Scatter(
                x=[tok.step for tok in toks],
                y=lat[1:],
                mode="lines+markers",
                name=s.name,
                line=dict(color=s.color),
                marker=dict(size=5),
            )
        )
    style(fig, t("cmp_fig_itl", lang), t("axis_step", lang), t("axis_ms", lang))
    return _step_axis(fig, series)


def kv_growth_figure(series: list[Series], lang: str = "en") -> go.Figure:
    """Bytes of K and V held in the cache at each step (flat at zero with the cache off)."""
    fig = go.Figure()
    for s in series:
        rows = kv_bytes_per_step(s.result)
        fig.add_trace(
            go.Scatter(
                x=[step for step, _ in rows],
                y=[b / MIB for _, b in rows],
                mode="lines+markers",
                name=s.name,
                line=dict(color=s.color, shape="hv"),
                marker=dict(size=5),
            )
        )
    style(fig, t("cmp_fig_kv", lang), t("axis_step", lang), t("axis_mib", lang))
    return _step_axis(fig, series)


def peak_memory_figure(series: list[Series], lang: str = "en") -> go.Figure:
    """Peak transient tensor memory of each step, measured by the engine's probe."""
    fig = go.Figure()
    for s in series:
        steps = [x for x in s.result.steps if x.peak_bytes is not None]
        fig.add_trace(
            go.Scatter(
                x=[x.step for x in steps],
                y=[x.peak_bytes / MIB for x in steps],
                mode="lines+markers",
                name=s.name,
                line=dict(color=s.color),
                marker=dict(size=5),
            )
        )
    style(fig, t("cmp_fig_peak", lang), t("axis_step", lang), t("axis_mib", lang))
    return _step_axis(fig, series)
