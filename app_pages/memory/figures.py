"""Memory lab figures: the measured prefill peaks against the score-matrix formula (C20), what is
alive at the peak, eager minus sdpa, and the KV leak of a naive loop against the engine (C16).
Pure functions: records in, go.Figure out."""

from __future__ import annotations

import plotly.graph_objects as go

from app_pages.memory.strings import t
from app_pages.memory.sweep import Comparison, SweepResult, Variant
from lab.memory_lab import LeakPoint
from ui.theme import MIB, style

TERM_COLORS = {"weights": "#94a3b8", "kv": "#2563eb", "activations": "#0891b2", "scores": "#7c3aed"}
BACKEND_COLORS = {"eager": "#7c3aed", "sdpa": "#0d9488"}
CHUNK_DASHES = ["dot", "dashdot", "longdash", "longdashdot"]
LOOP_COLORS = {"naive": "#dc2626", "engine": "#0d9488"}


def _line_style(v: Variant, chunks: list[int]) -> dict:
    dash = "solid" if v.chunk is None else CHUNK_DASHES[chunks.index(v.chunk) % len(CHUNK_DASHES)]
    return dict(color=BACKEND_COLORS.get(v.backend, "#334155"), dash=dash)


def _log_lengths(fig: go.Figure, lengths: list[int]) -> None:
    fig.update_xaxes(type="log", tickvals=lengths, ticktext=[str(L) for L in lengths])
    fig.update_yaxes(type="log", dtick=1)  # one labelled tick per decade: minor labels crowd a short range


def sweep_peak_figure(result: SweepResult, lang: str = "en") -> go.Figure:
    """Measured peak above baseline per variant, against heads x Lq x Lk x bytes (log-log)."""
    fig, plan = go.Figure(), result.plan
    for v in plan.variants:
        pts = sorted(
            (p for p in result.points if p.backend == v.backend and p.chunk == v.chunk), key=lambda p: p.prompt_len
        )
        if pts:
            fig.add_trace(
                go.Scatter(
                    x=[p.prompt_len for p in pts],
                    y=[p.peak_bytes / MIB for p in pts],
                    mode="lines+markers",
                    name=t("mem_tr_peak", lang, variant=v.label(lang)),
                    line=_line_style(v, plan.chunks),
                )
            )
    heads, nbytes = result.num_heads, result.elem_bytes
    for chunk in [None, *plan.chunks]:
        xs = [L for L in plan.lengths if chunk is None or chunk < L]
        if not xs:
            continue
        name = t("mem_tr_formula", lang) if chunk is None else t("mem_tr_formula_chunk", lang, chunk=chunk)
        line = dict(color="#111827", dash="dash" if chunk is None else "dot", width=1.5)
        fig.add_trace(
            go.Scatter(
                x=xs,
                y=[heads * min(chunk or L, L) * L * nbytes / MIB for L in xs],
                mode="lines+markers",
                marker=dict(size=4),
                name=name,
                line=line,
            )
        )
    scores = sorted(
        (p for p in result.points if p.backend == "eager" and p.chunk is None and p.scores_bytes),
        key=lambda p: p.prompt_len,
    )
    if scores:
        fig.add_trace(
            go.Scatter(
                x=[p.prompt_len for p in scores],
                y=[p.scores_bytes / MIB for p in scores],
                mode="markers",
                name=t("mem_tr_scores_at_peak", lang),
                marker=dict(symbol="x", size=10, color=TERM_COLORS["scores"]),
            )
        )
    decode = sorted((p for p in result.points if p.chunk is None), key=lambda p: p.prompt_len)
    if decode:
        fig.add_trace(
            go.Scatter(
                x=[p.prompt_len for p in decode],
                y=[p.decode_peak_bytes / MIB for p in decode],
                mode="markers",
                name=t("mem_tr_decode", lang),
                marker=dict(symbol="diamond-open", size=8, color="#d97706"),
            )
        )
    style(
        fig,
        t("mem_fig_peak", lang, model=result.model_name, dtype=result.dtype),
        t("mem_axis_L", lang),
        t("mem_axis_mib_log", lang),
        height=480,
    )
    _log_lengths(fig, plan.lengths)
    return fig


def breakdown_figure(result: SweepResult, lang: str = "en", with_weights: bool = True) -> go.Figure:
    """Stacked bars per (L, variant): weights, the KV cache written, and the transient peak split
    into activations and attention scores, as alive at the peak."""
    pts = sorted(result.points, key=lambda p: (p.prompt_len, p.chunk or 0, p.backend))
    x = [[str(p.prompt_len) for p in pts], [Variant(p.backend, p.chunk).label(lang) for p in pts]]
    terms = [
        ("weights", [result.weight_bytes] * len(pts)),
        ("kv", [p.kv_bytes for p in pts]),
        ("activations", [p.activations_bytes for p in pts]),
        ("scores", [p.scores_bytes for p in pts]),
    ]
    fig = go.Figure()
    for key, sizes in terms:
        if key == "weights" and not with_weights:
            continue
        fig.add_trace(
            go.Bar(
                x=x,
                y=[s / MIB for s in sizes],
                name=t(f"mem_term_{key}", lang),
                marker_color=TERM_COLORS[key],
                hovertemplate="%{x}<br>%{y:.2f} MiB<extra>" + t(f"mem_term_{key}", lang) + "</extra>",
            )
        )
    style(fig, t("mem_fig_breakdown", lang), t("mem_axis_L_variant", lang), t("axis_mib", lang), height=480)
    # the legend on the right: below, it would sit between the two levels of axis labels
    fig.update_layout(barmode="stack", legend=dict(orientation="v", x=1.02, xanchor="left", y=1, yanchor="top"))
    return fig


def difference_figure(rows: list[Comparison], lang: str = "en") -> go.Figure:
    """Per L: the measured eager - sdpa peak beside one layer's score matrix by formula."""
    xs = [str(r.L) for r in rows]
    fig = go.Figure(
        [
            go.Bar(
                x=xs,
                y=[r.difference / MIB for r in rows],
                name=t("mem_tr_diff", lang),
                marker_color=BACKEND_COLORS["eager"],
                text=[f"{r.ratio:.0%}" for r in rows],
                textposition="outside",
            ),
            go.Bar(x=xs, y=[r.formula / MIB for r in rows], name=t("mem_tr_formula", lang), marker_color="#cbd5e1"),
        ]
    )
    style(fig, t("mem_fig_diff", lang), t("mem_axis_L_cat", lang), t("axis_mib", lang))
    fig.update_layout(barmode="group")
    return fig


def _leak_trace(points: list[LeakPoint], key: str, values: list[float], lang: str) -> go.Scatter:
    return go.Scatter(
        x=[p.request + 1 for p in points],
        y=values,
        mode="lines+markers",
        name=t(f"mem_loop_{key}", lang),
        line=dict(color=LOOP_COLORS[key]),
        customdata=[p.context_tokens for p in points],
        hovertemplate="#%{x}: %{y:.2f}<br>" + t("mem_leak_hover_ctx", lang) + "<extra></extra>",
    )


def leak_memory_figure(naive: list[LeakPoint], ours: list[LeakPoint], lang: str = "en") -> go.Figure:
    """Tensor memory still alive after each request: the naive loop keeps every request's KV."""
    fig = go.Figure(
        [
            _leak_trace(naive, "naive", [p.retained_bytes / MIB for p in naive], lang),
            _leak_trace(ours, "engine", [p.retained_bytes / MIB for p in ours], lang),
        ]
    )
    style(fig, t("mem_fig_leak_mem", lang), t("mem_axis_request", lang), t("mem_axis_retained", lang))
    fig.update_yaxes(rangemode="tozero")
    return fig


def leak_speed_figure(naive: list[LeakPoint], ours: list[LeakPoint], lang: str = "en") -> go.Figure:
    """Milliseconds per generated token, request by request: the leaked context slows every token."""
    fig = go.Figure(
        [
            _leak_trace(naive, "naive", [p.ms_per_token for p in naive], lang),
            _leak_trace(ours, "engine", [p.ms_per_token for p in ours], lang),
        ]
    )
    style(fig, t("mem_fig_leak_speed", lang), t("mem_axis_request", lang), t("mem_axis_ms_token", lang))
    fig.update_yaxes(rangemode="tozero")
    return fig
