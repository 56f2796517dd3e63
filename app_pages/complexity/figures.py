"""Figures of the complexity lab (C13-C15): records and configs in, go.Figure out.

Cache on is blue, cache off red; the linear-layer term is a solid line, the attention term dashed;
the document's curves are dotted. Log axes wherever a power law is the question: a power law is a
straight line there and its slope is the exponent.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from app_pages.complexity.strings import t
from engine.config import ModelConfig
from lab.complexity import CacheRun
from lab.complexity_math import (
    apparent_exponent,
    crossover_rows,
    exponent_grid,
    measured_exponents,
    per_step_split,
    scaled_theory,
)
from lab.complexity_race import BIN_STEPS, CacheRace
from ui.theme import log_axis, log_span, style

CACHE_COLORS = {True: "#2563eb", False: "#dc2626"}
THEORY_COLOR = "#334155"
MODEL_PALETTE = ["#7c3aed", "#0d9488", "#d97706", "#2563eb", "#db2777", "#16a34a", "#64748b", "#b45309"]
GIGA = 1e9


def _cache_name(kv: bool, lang: str) -> str:
    return t("cx_cache_on" if kv else "cx_cache_off", lang)


def _slope(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f}"


def step_time_figure(runs: dict[bool, CacheRun], prompt_len: int, lang: str = "en") -> go.Figure:
    """Measured time of each decode step against its context: flat with the cache, growing without.
    `runs` may hold only the run with the cache (drawn while the other runs)."""
    fig = go.Figure()
    for kv in (kv for kv in (True, False) if kv in runs):
        ms = runs[kv].step_ms
        fig.add_trace(
            go.Scatter(
                x=list(range(prompt_len + 1, prompt_len + len(ms) + 1)),
                y=ms,
                mode="lines+markers",
                marker=dict(size=4),
                name=_cache_name(kv, lang),
                line=dict(color=CACHE_COLORS[kv]),
            )
        )
    style(fig, t("cx_fig_step_ms", lang), t("cx_axis_context", lang), t("axis_ms", lang), height=420)
    fig.update_yaxes(rangemode="tozero")
    return fig


def step_flops_figure(runs: dict[bool, CacheRun], prompt_len: int, lang: str = "en") -> go.Figure:
    """Counted FLOPs of each decode step, split into the linear-layer and the attention term."""
    fig = go.Figure()
    for kv in (True, False):
        run = runs[kv]
        x = list(range(prompt_len + 1, prompt_len + len(run.step_ms) + 1))
        for term, values, dash in (("linear", run.flops_linear, "solid"), ("attention", run.flops_attention, "dash")):
            fig.add_trace(
                go.Scatter(
                    x=x,
                    y=[v / GIGA for v in values],
                    mode="lines",
                    line=dict(color=CACHE_COLORS[kv], dash=dash),
                    name=t(f"cx_term_{term}", lang, cache=_cache_name(kv, lang)),
                )
            )
    style(fig, t("cx_fig_step_flops", lang), t("cx_axis_context", lang), t("cx_axis_gflop", lang), height=420)
    fig.update_layout(legend=dict(y=-0.28))
    log_axis(fig, "y", *log_span(fig, "y"))
    return fig


def cumulative_figure(
    runs: dict[bool, CacheRun], prompt_len: int, kind: str, lang: str = "en", slopes: dict[bool, float] | None = None
) -> go.Figure:
    """Cumulative cost against decode steps n, log-log, each with its fitted slope (`slopes`: the
    time's, fitted robustly elsewhere), and the document's Σ(L+t) (with the cache) and Σ(L+t)²
    (without) scaled to meet it at the last step."""
    fig = go.Figure()
    for kv in (True, False):
        run = runs[kv]
        values = run.cumulative_ms if kind == "ms" else [v / GIGA for v in run.cumulative_flops]
        n = list(range(1, len(values) + 1))
        slope = (slopes or {}).get(kv, measured_exponents(run)[0 if kind == "ms" else 1])
        fig.add_trace(
            go.Scatter(
                x=n,
                y=values,
                mode="lines+markers",
                marker=dict(size=4),
                line=dict(color=CACHE_COLORS[kv]),
                name=t("cx_measured", lang, cache=_cache_name(kv, lang), slope=_slope(slope)),
            )
        )
        theory = scaled_theory(prompt_len, values, 1 if kv else 2)
        fig.add_trace(
            go.Scatter(
                x=n,
                y=theory.values,
                mode="lines",
                line=dict(color=CACHE_COLORS[kv], dash="dot"),
                name=t(f"cx_theory_{theory.label}", lang, slope=_slope(theory.slope)),
            )
        )
    title, y_title = ("cx_fig_cum_ms", "axis_ms") if kind == "ms" else ("cx_fig_cum_flops", "cx_axis_gflop")
    style(fig, t(title, lang), t("cx_axis_steps", lang), t(y_title, lang), height=420)
    log_axis(fig, "x", *log_span(fig, "x"))
    log_axis(fig, "y", *log_span(fig, "y"))
    fig.update_layout(legend=dict(y=-0.25))
    return fig


def ratio_figure(race: CacheRace, lang: str = "en") -> go.Figure:
    """Each decode step without the cache ÷ the same step with it: the counted FLOPs (exact, every
    step) first, then the measured time, the median of each BIN_STEPS paired steps with its interval."""
    on_f = np.add(race.runs[True].flops_linear, race.runs[True].flops_attention)
    off_f = np.add(race.runs[False].flops_linear, race.runs[False].flops_attention)
    fig = go.Figure()
    fig.add_trace(
        go.Scatter(
            x=race.contexts,
            y=list(off_f / on_f),
            mode="lines",
            line=dict(color=THEORY_COLOR),
            name=t("cx_tr_flops_ratio", lang),
        )
    )
    bins = race.binned()
    fig.add_trace(
        go.Scatter(
            x=[(a + b) / 2 for a, b, _ in bins],
            y=[r.median for _, _, r in bins],
            error_y=dict(
                type="data",
                symmetric=False,
                array=[r.high - r.median for _, _, r in bins],
                arrayminus=[r.median - r.low for _, _, r in bins],
            ),
            mode="markers",
            marker=dict(size=8, color=CACHE_COLORS[False]),
            name=t("cx_tr_time_ratio", lang, n=BIN_STEPS),
        )
    )
    style(fig, t("cx_fig_ratio", lang), t("cx_axis_context", lang), t("cx_axis_ratio", lang), height=420)
    fig.update_yaxes(rangemode="tozero")
    return fig


def _vline(fig: go.Figure, x: float, y_range: tuple[float, float], name: str, color: str, dash: str) -> None:
    """A vertical marker as a trace (so it has a legend entry and needs no log-axis shape maths)."""
    fig.add_trace(
        go.Scatter(x=[x, x], y=list(y_range), mode="lines", name=name, line=dict(color=color, dash=dash, width=1.5))
    )


def crossover_figure(c: ModelConfig, lang: str = "en", name: str | None = None) -> go.Figure:
    """Per-step FLOPs of each term against the context, with and without the cache, and the context
    where attention overtakes the linear layers. `name` titles it (default: the config's name)."""
    row = crossover_rows({c.name: c})[0]
    top = int(max(4 * row.without_cache, c.max_position))
    ctx = np.unique(np.geomspace(1, top, 200).round().astype(np.int64))
    fig = go.Figure()
    lines = per_step_split(c, ctx)
    for kv in (True, False):
        linear, attention = lines[kv]
        cache = _cache_name(kv, lang)
        fig.add_trace(
            go.Scatter(
                x=ctx,
                y=linear / GIGA,
                mode="lines",
                line=dict(color=CACHE_COLORS[kv]),
                name=t("cx_term_linear", lang, cache=cache),
            )
        )
        fig.add_trace(
            go.Scatter(
                x=ctx,
                y=attention / GIGA,
                mode="lines",
                line=dict(color=CACHE_COLORS[kv], dash="dash"),
                name=t("cx_term_attention", lang, cache=cache),
            )
        )
    y_range = (float(lines[True][1][0]) / GIGA, float(lines[False][1][-1]) / GIGA)
    _vline(fig, row.with_cache, y_range, t("cx_cross_on", lang, n=f"{row.with_cache:,}"), CACHE_COLORS[True], "dot")
    _vline(
        fig, row.without_cache, y_range, t("cx_cross_off", lang, n=f"{row.without_cache:,}"), CACHE_COLORS[False], "dot"
    )
    _vline(fig, c.max_position, y_range, t("cx_max_ctx", lang, n=f"{c.max_position:,}"), THEORY_COLOR, "dashdot")
    style(
        fig,
        t("cx_fig_cross", lang, model=name or c.name),
        t("cx_axis_context_c", lang),
        t("cx_axis_gflop", lang),
        height=460,
    )
    log_axis(fig, "x", *log_span(fig, "x"))
    log_axis(fig, "y", *log_span(fig, "y"))
    fig.update_layout(legend=dict(y=-0.2))
    return fig


def exponent_figure(configs: dict[str, ModelConfig], lang: str = "en") -> go.Figure:
    """The apparent exponent of the total decode cost at N new tokens after N prompt tokens: what a
    log-log fit around N would report, for each model, with and without the cache."""
    ns = exponent_grid()
    fig = go.Figure()
    for i, (name, c) in enumerate(configs.items()):
        color = MODEL_PALETTE[i % len(MODEL_PALETTE)]
        for kv, dash in ((False, "solid"), (True, "dash")):
            fig.add_trace(
                go.Scatter(
                    x=ns,
                    y=apparent_exponent(c, ns, kv),
                    mode="lines",
                    line=dict(color=color, dash=dash),
                    name=t("cx_exp_model", lang, model=name, cache=_cache_name(kv, lang)),
                )
            )
    for level, key in ((3, "cx_doc_cubic"), (2, "cx_doc_quadratic")):
        fig.add_trace(
            go.Scatter(
                x=[ns[0], ns[-1]],
                y=[level, level],
                mode="lines",
                name=t(key, lang),
                line=dict(color=THEORY_COLOR, dash="dot", width=1),
            )
        )
    style(fig, t("cx_fig_exp", lang), t("cx_axis_n_eq_l", lang), t("cx_axis_exponent", lang), height=460)
    log_axis(fig, "x", float(ns[0]), float(ns[-1]))
    fig.update_yaxes(range=[0.8, 3.2])
    fig.update_layout(legend=dict(y=-0.2))
    return fig
