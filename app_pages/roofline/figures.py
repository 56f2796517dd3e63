"""Figures of the roofline lab: pure functions from measured points, ceilings and projections to
Plotly figures, each with a title, axis titles with units and a legend (ui/theme.style)."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from app_pages.roofline.strings import t
from engine.observe.costmodel import ridge_intensity
from lab.roofline import PhaseSummary, RooflinePoint
from ui.theme import EXTRA_COLORS, PHASE_COLORS, legend_below, log_axis, log_span, style

DTYPE_DASH = {"float32": "solid", "bfloat16": "dash", "float16": "dot"}
SERIES = ["#2563eb", "#dc2626", "#16a34a", "#9333ea", "#ea580c", "#0891b2"]


def roofline_figure(
    points: list[RooflinePoint],
    summary: list[PhaseSummary],
    roofs: dict[str, float],
    bytes_per_s: float,
    model_dtype: str,
    lang: str,
) -> go.Figure:
    """Log-log: x intensity (FLOP/byte), y achieved GFLOP/s; the roofs of every measured dtype, the
    model's dtype solid, its ridge point marked; each step a dot, each (phase, batch) median labelled."""
    xs = [p.intensity for p in points] + [ridge_intensity(v, bytes_per_s) for v in roofs.values()]
    x_lo, x_hi = min(xs + [0.1]) / 3, max(xs + [10.0]) * 3
    fig = go.Figure()
    grid = np.geomspace(x_lo, x_hi, 200)
    for dtype, peak in roofs.items():
        main = dtype == model_dtype
        fig.add_trace(
            go.Scatter(
                x=grid,
                y=np.minimum(peak, grid * bytes_per_s) / 1e9,
                mode="lines",
                name=t("rf_fig_roof", lang, dtype=dtype, peak=peak / 1e9, bw=bytes_per_s / 1e9),
                line=dict(
                    color=EXTRA_COLORS["line"] if main else "#94a3b8",
                    dash=DTYPE_DASH.get(dtype, "solid"),
                    width=2.5 if main else 1.2,
                ),
            )
        )
    peak = roofs[model_dtype]
    ridge = ridge_intensity(peak, bytes_per_s)
    fig.add_trace(
        go.Scatter(
            x=[ridge],
            y=[peak / 1e9],
            mode="markers+text",
            text=[t("rf_fig_ridge_text", lang, x=ridge)],
            textposition="top left",
            marker=dict(symbol="diamond", size=12, color=EXTRA_COLORS["blocks"]),
            name=t("rf_fig_ridge", lang, x=ridge),
        )
    )
    for phase in ("prefill", "mixed", "decode"):
        ps = [p for p in points if p.phase == phase]
        if not ps:
            continue
        fig.add_trace(
            go.Scatter(
                x=[p.intensity for p in ps],
                y=[p.flops_per_s / 1e9 for p in ps],
                mode="markers",
                name=t("rf_fig_steps", lang, phase=t(f"rf_phase_{phase}", lang)),
                marker=dict(color=PHASE_COLORS[phase], size=6, opacity=0.45),
                customdata=[[p.batch, p.step, p.ms] for p in ps],
                hovertemplate="B=%{customdata[0]}, step %{customdata[1]}: %{customdata[2]:.1f} ms<br>"
                "%{x:.2f} FLOP/B, %{y:.1f} GFLOP/s<extra></extra>",
            )
        )
        med = [s for s in summary if s.phase == phase]
        fig.add_trace(
            go.Scatter(
                x=[s.intensity for s in med],
                y=[s.flops_per_s / 1e9 for s in med],
                mode="lines+markers+text",
                text=[f"B={s.batch}" for s in med],
                textposition="bottom right",
                name=t("rf_fig_medians", lang, phase=t(f"rf_phase_{phase}", lang)),
                line=dict(color=PHASE_COLORS[phase], width=1.5),
                marker=dict(color=PHASE_COLORS[phase], size=11, line=dict(color="white", width=1)),
            )
        )
    style(fig, t("rf_fig_roofline_title", lang), t("rf_fig_x_intensity", lang), t("rf_fig_y_gflops", lang))
    log_axis(fig, "x", *log_span(fig, "x"))
    log_axis(fig, "y", *log_span(fig, "y"))
    return legend_below(fig, 560, rows=3)


def _lines(
    title: str,
    x_title: str,
    y_title: str,
    x,
    series: dict[str, list[float]],
    log_x: bool = True,
    log_y: bool = True,
    dotted: set[str] | None = None,
) -> go.Figure:
    fig = go.Figure()
    for i, (name, ys) in enumerate(series.items()):
        fig.add_trace(
            go.Scatter(
                x=list(x),
                y=ys,
                mode="lines+markers",
                name=name,
                line=dict(color=SERIES[i % len(SERIES)], dash="dot" if dotted and name in dotted else "solid"),
            )
        )
    style(fig, title, x_title, y_title)
    if log_x:
        log_axis(fig, "x", *log_span(fig, "x"))
    if log_y:
        log_axis(fig, "y", *log_span(fig, "y"))
    return legend_below(fig, 400, rows=max(1, (len(series) + 2) // 3))


def ttft_figure(
    lengths: list[int], series: dict[str, list[float]], gpu: str, lang: str, dotted: set[str] | None = None
) -> go.Figure:
    return _lines(
        t("rf_fig_ttft_title", lang, gpu=gpu),
        t("rf_fig_x_prompt", lang),
        t("rf_fig_y_ttft", lang),
        lengths,
        series,
        dotted=dotted,
    )


def tpot_batch_figure(
    batches: list[int],
    series: dict[str, list[float]],
    gpu: str,
    context: int,
    lang: str,
    dotted: set[str] | None = None,
) -> go.Figure:
    return _lines(
        t("rf_fig_tpot_batch_title", lang, gpu=gpu, C=context),
        t("rf_fig_x_batch", lang),
        t("rf_fig_y_tpot", lang),
        batches,
        series,
        dotted=dotted,
    )


def tpot_context_figure(
    contexts: list[int], series: dict[str, list[float]], gpu: str, batch: int, lang: str, dotted: set[str] | None = None
) -> go.Figure:
    return _lines(
        t("rf_fig_tpot_ctx_title", lang, gpu=gpu, B=batch),
        t("rf_fig_x_context", lang),
        t("rf_fig_y_tpot", lang),
        contexts,
        series,
        dotted=dotted,
    )


def kv_capacity_figure(
    models: list[str], by_dtype: dict[str, list[int]], gpu: str, context: int, lang: str
) -> go.Figure:
    fig = go.Figure()
    for i, (kv_dtype, counts) in enumerate(by_dtype.items()):
        fig.add_trace(
            go.Bar(
                x=models,
                y=counts,
                name=t("rf_fig_kv_dtype", lang, dtype=kv_dtype),
                text=counts,
                textposition="outside",
                marker_color=SERIES[i % len(SERIES)],
            )
        )
    style(fig, t("rf_fig_kv_title", lang, gpu=gpu, C=context), t("rf_fig_x_model", lang), t("rf_fig_y_seqs", lang))
    fig.update_layout(barmode="group")
    return legend_below(fig, 400)


def calibration_figure(labels: list[str], predicted: list[float], measured: list[float], lang: str) -> go.Figure:
    fig = go.Figure()
    fig.add_trace(go.Bar(x=labels, y=predicted, name=t("rf_fig_predicted", lang), marker_color=SERIES[0]))
    fig.add_trace(go.Bar(x=labels, y=measured, name=t("rf_fig_measured", lang), marker_color=PHASE_COLORS["decode"]))
    style(fig, t("rf_fig_cal_title", lang), t("rf_fig_x_cal", lang), t("rf_fig_y_ms", lang))
    fig.update_layout(barmode="group")
    log_axis(fig, "y", *log_span(fig, "y"))
    return legend_below(fig, 400)


def nvml_figure(times: list[float], util: list[float], power: list[float], lang: str) -> go.Figure:
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=times, y=util, mode="lines", name=t("rf_fig_nvml_util", lang)))
    fig.add_trace(go.Scatter(x=times, y=power, mode="lines", name=t("rf_fig_nvml_power", lang), yaxis="y2"))
    style(fig, t("rf_fig_nvml_title", lang), t("rf_fig_x_seconds", lang), t("rf_fig_nvml_util", lang))
    fig.update_layout(yaxis2=dict(title=t("rf_fig_nvml_power", lang), overlaying="y", side="right"))
    return legend_below(fig, 360)
