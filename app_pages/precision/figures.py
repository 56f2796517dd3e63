"""The precision lab's charts: per configuration, the bytes a decode step reads ÷ float32's (counted)
beside its decode and prefill time ÷ float32's (measured in pairs, with their intervals); and those
bytes against context length at the chosen batch (the cost model's formula), where the KV dtype
takes over from the weights."""

from __future__ import annotations

import math

import plotly.express as px
import plotly.graph_objects as go

from app_pages.precision.strings import t
from lab.pairing import RatioInterval
from lab.precision_formats import read_bytes
from lab.precision_run import PrecisionRun
from ui.theme import EXTRA_COLORS, legend_below, log_axis, style

PALETTE = px.colors.qualitative.Safe
BAR_COLORS = ("#64748b", "#0d9488", "#7c3aed")  # counted bytes, decode time, prefill time


def _whiskers(ratios: list[RatioInterval | None]) -> dict:
    """Error bars from each ratio's interval (none for float32's own row)."""
    return dict(
        type="data",
        symmetric=False,
        array=[r.high - r.median if r else 0 for r in ratios],
        arrayminus=[r.median - r.low if r else 0 for r in ratios],
        color=EXTRA_COLORS["line"],
    )


def ratio_figure(run: PrecisionRun, lang: str) -> go.Figure:
    """Per configuration, ÷ float32: the bytes a decode step reads (counted, exact) first, then the
    decode step's and the prefill's time (measured beside float32: the median of the paired ratios,
    the whiskers its interval). A memory-bound decode step's time follows its bytes. Horizontal bars:
    the configurations' names read level, however long."""
    names = [r.config.name for r in run.results]
    ctx = round(run.results[0].timing.context)
    base = read_bytes(run.model, run.results[0], ctx, 1)
    decode = [r.decode_ratio for r in run.results]
    prefill = [r.prefill_ratio for r in run.results]
    fig = go.Figure()
    fig.add_bar(
        y=names,
        x=[read_bytes(run.model, r, round(r.timing.context), 1) / base for r in run.results],
        name=t("pr_tr_bytes", lang),
        marker_color=BAR_COLORS[0],
        orientation="h",
    )
    for key, ratios, color in (("pr_tr_decode", decode, BAR_COLORS[1]), ("pr_tr_prefill", prefill, BAR_COLORS[2])):
        fig.add_bar(
            y=names,
            x=[r.median if r else 1.0 for r in ratios],
            error_x=_whiskers(ratios),
            name=t(key, lang),
            marker_color=color,
            orientation="h",
        )
    fig.add_vline(x=1, line=dict(dash="dot", color=EXTRA_COLORS["line"]))
    height = 200 + 70 * len(names)
    style(fig, t("pr_fig_ratio_title", lang, L=ctx), t("pr_fig_ratio_y", lang), t("pr_fig_ratio_x", lang), height)
    values = (
        [v for b in fig.data for v in b.x]
        + [r.high for r in decode + prefill if r]
        + [r.low for r in decode + prefill if r]
    )
    log_axis(fig, "x", min(values + [1.0]) / 1.2, max(values + [1.0]) * 1.2)
    fig.update_layout(barmode="group", legend_traceorder="normal")
    fig.update_yaxes(autorange="reversed")  # float32 on top, as in the table
    return legend_below(fig, height, rows=3)


def context_grid(max_context: int) -> list[int]:
    grid, c = [], 16
    while c < max_context:
        grid.append(c)
        c *= 2
    return grid + [max_context]


def log_ticks(lo: float, hi: float) -> list[float]:
    """1, 2 and 5 of each decade from just below `lo` to just above `hi`, written out in full: the
    bytes span less than a decade, where a tick per power of ten would leave one label."""
    first, last = math.floor(math.log10(lo)), math.ceil(math.log10(hi))
    ticks = [m * 10.0**k for k in range(first, last + 1) for m in (1, 2, 5)]
    return [v for v in ticks if lo / 2.5 <= v <= hi * 2.5]


def bytes_figure(run: PrecisionRun, context: int, batch: int, lang: str) -> go.Figure:
    grid = context_grid(run.model.max_position)
    fig = go.Figure()
    for i, r in enumerate(run.results):
        fig.add_trace(
            go.Scatter(
                x=grid,
                y=[read_bytes(run.model, r, c, batch) / 1e6 for c in grid],
                mode="lines",
                name=r.config.name,
                line=dict(color=PALETTE[i % len(PALETTE)]),
            )
        )
    fig.add_vline(
        x=context,
        line=dict(dash="dot", color=EXTRA_COLORS["line"]),
        annotation_text=t("pr_fig_bytes_context", lang, C=context),
        annotation_position="top left",
    )
    style(fig, t("pr_fig_bytes_title", lang, B=batch), t("pr_fig_bytes_x", lang), t("pr_fig_bytes_y", lang), height=440)
    fig.update_xaxes(type="log", dtick=1)  # a label at each power of ten
    ys = [y for trace in fig.data for y in trace.y if y and y > 0]
    ticks = log_ticks(min(ys), max(ys)) if ys else []
    fig.update_yaxes(type="log", tickvals=ticks, ticktext=[f"{v:g}" for v in ticks])
    return legend_below(fig, 440, rows=1)
