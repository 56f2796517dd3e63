"""The precision lab's charts: measured TPOT against the bytes a decode step reads (one point per
configuration, beside the line of float32's own rate), and those bytes against context length at
the chosen batch (the cost model's formula), where the KV dtype takes over from the weights."""

from __future__ import annotations

import math

import plotly.express as px
import plotly.graph_objects as go

from app_pages.precision.strings import t
from lab.precision_formats import PrecisionRun, read_bytes
from ui.theme import EXTRA_COLORS, legend_below, style

PALETTE = px.colors.qualitative.Safe


def tpot_figure(run: PrecisionRun, lang: str) -> go.Figure:
    ctx = run.settings.prompt_len + run.settings.new_tokens // 2
    fig = go.Figure()
    points = [(r, read_bytes(run.model, r, ctx, 1) / 1e6) for r in run.results]
    for i, (r, mb) in enumerate(points):
        fig.add_trace(
            go.Scatter(
                x=[mb],
                y=[r.tpot_ms],
                mode="markers",
                name=r.config.name,
                marker=dict(size=13, color=PALETTE[i % len(PALETTE)]),
                hovertemplate="%{x:.0f} MB, %{y:.1f} ms",
            )
        )
    ref = next((p for p in points if p[0].config.is_reference), None)
    if ref is not None and ref[1]:
        top = max(mb for _, mb in points) * 1.1
        fig.add_trace(
            go.Scatter(
                x=[0, top],
                y=[0, top * ref[0].tpot_ms / ref[1]],
                mode="lines",
                line=dict(dash="dot", color=EXTRA_COLORS["line"]),
                name=t("pr_fig_rate_line", lang),
            )
        )
    style(fig, t("pr_fig_tpot_title", lang, L=ctx), t("pr_fig_tpot_x", lang), t("pr_fig_tpot_y", lang), height=440)
    fig.update_xaxes(rangemode="tozero")
    fig.update_yaxes(rangemode="tozero")
    return legend_below(fig, 440, rows=1)


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
