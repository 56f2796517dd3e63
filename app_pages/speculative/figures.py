"""Figures of the speculative decoding lab: records in, go.Figure out. Accepted drafts are blue, the
model's own tokens teal, rejected drafts red (the chips' colours)."""

from __future__ import annotations

import plotly.graph_objects as go

from app_pages.speculative.compare import SpecComparison
from app_pages.speculative.strings import t
from lab.speculation import FLAT_WITHIN, VerifyCost
from ui.theme import legend_below, log_axis, style

ACCEPTED, OWN, REJECTED = "#2563eb", "#0d9488", "#dc2626"
CONTEXT_COLORS = ["#7c3aed", "#ea580c", "#16a34a", "#db2777"]
HEIGHT = 560  # the cost tab's charts: a half-width column, a legend of up to three rows under the plot


def steps_figure(c: SpecComparison, lang: str = "en") -> go.Figure:
    """Each speculative decode step's tokens: accepted drafts and the model's own token (output), and
    the rejected drafts (computed, rolled back)."""
    seqs = [s.seqs[0] for s in c.spec.steps if s.phase == "decode"]
    x = list(range(1, len(seqs) + 1))
    fig = go.Figure()
    for name, y, color in (
        ("sp_tr_accepted", [q.accepted for q in seqs], ACCEPTED),
        ("sp_tr_own", [1] * len(seqs), OWN),
        ("sp_tr_rejected", [q.drafted - q.accepted for q in seqs], REJECTED),
    ):
        fig.add_bar(x=x, y=y, name=t(name, lang), marker_color=color)
    fig.update_layout(barmode="stack")
    style(fig, t("sp_fig_steps", lang), t("sp_fig_step_x", lang), t("sp_fig_step_y", lang))
    return whole_ticks(fig, len(seqs))


def kv_figure(c: SpecComparison, lang: str = "en") -> go.Figure:
    """The request's KV tokens per step: what each speculative step wrote (the drafts too) and what it
    kept (the rejected drafts rolled back), and plain decoding's (the sequence's own view: the pool
    frees everything once the request ends)."""
    fig = go.Figure()
    spec = c.spec.steps
    fig.add_scatter(
        x=[s.step for s in spec],
        y=[s.seqs[0].context_len for s in spec],
        name=t("sp_tr_written", lang),
        mode="lines+markers",
        line=dict(color=REJECTED, dash="dot"),
    )
    fig.add_scatter(
        x=[s.step for s in spec],
        y=[s.seqs[0].context_len - (s.seqs[0].drafted - s.seqs[0].accepted) for s in spec],
        name=t("sp_tr_kept", lang),
        line=dict(color=ACCEPTED),
    )
    fig.add_scatter(
        x=[s.step for s in c.plain.steps],
        y=[s.seqs[0].context_len for s in c.plain.steps],
        name=t("sp_tr_plain_kv", lang),
        line=dict(color="#64748b"),
    )
    style(fig, t("sp_fig_kv", lang), t("sp_fig_kv_x", lang), t("sp_fig_kv_y", lang))
    return whole_ticks(fig, max([s.step for s in spec + c.plain.steps], default=0))


def whole_ticks(fig: go.Figure, last: int, most: int = 8) -> go.Figure:
    """Steps are whole numbers: ticks at a round whole step (1, 2, 5, 10, 20, ...) with at most `most`
    of them, so a half-width chart never crowds two labels ("14" ran into "16")."""
    dtick = next(d for d in (m * 10**e for e in range(6) for m in (1, 2, 5)) if last / d <= most)
    fig.update_xaxes(tick0=0, dtick=dtick, tickformat="d")
    return fig


def _whiskers(values: list[float | None], lows: list[float | None], highs: list[float | None]) -> dict:
    """Error bars from each point's interval (a missing end: none drawn on that side)."""
    return dict(
        type="data",
        symmetric=False,
        array=[h - v if h is not None and v is not None else 0 for v, h in zip(values, highs)],
        arrayminus=[v - lo if lo is not None and v is not None else 0 for v, lo in zip(values, lows)],
        thickness=1.2,
    )


def cost_figure(costs: list[VerifyCost], ridge_k: dict[int, int | None], lang: str = "en") -> go.Figure:
    """Measured verify/decode cost ratio against k, one line per context, each point the median of its
    paired ratios with its interval as whiskers; the 'about one step' target, the k + 1 line (never
    pays above it) and the cost model's ridge."""
    fig = go.Figure()
    ks = sorted({c.k for c in costs if c.k})
    for i, ctx in enumerate(sorted({c.context for c in costs})):
        mine = sorted((c for c in costs if c.context == ctx and c.k), key=lambda c: c.k)
        y = [c.ratio for c in mine]
        fig.add_scatter(
            x=[c.k for c in mine],
            y=y,
            error_y=_whiskers(y, [c.interval.low for c in mine], [c.interval.high for c in mine]),
            name=t("sp_tr_context", lang, C=ctx),
            mode="lines+markers",
            line=dict(color=CONTEXT_COLORS[i % len(CONTEXT_COLORS)]),
        )
    fig.add_scatter(
        x=ks,
        y=[FLAT_WITHIN] * len(ks),
        name=t("sp_tr_flat", lang, within=FLAT_WITHIN),
        mode="lines",
        line=dict(color="#334155", dash="dash"),
    )
    fig.add_scatter(
        x=ks, y=[k + 1 for k in ks], name=t("sp_tr_ideal", lang), mode="lines", line=dict(color="#94a3b8", dash="dot")
    )
    ridge = min((k for k in ridge_k.values() if k is not None), default=None)
    highs = [c.interval.high for c in costs if c.interval is not None]
    top = max(highs + [ks[-1] + 1 if ks else 2])
    if ridge is not None:
        fig.add_scatter(
            x=[ridge, ridge],
            y=[1, top],
            name=t("sp_tr_ridge", lang, k=ridge),
            mode="lines",
            line=dict(color="#ea580c", dash="dashdot"),
        )
    style(fig, t("sp_fig_cost", lang), t("sp_fig_cost_x", lang), t("sp_fig_cost_y", lang))
    _k_axis(fig, ks)  # the measured k only: the ridge's k has its own legend entry (14 beside 16 overlapped)
    lows = [c.interval.low for c in costs if c.interval is not None]
    log_axis(fig, "y", min(lows + [1.0]), top)  # k + 1 reaches far above the measured ratios
    return legend_below(fig, HEIGHT, rows=3)


def break_even_figure(costs: list[VerifyCost], lang: str = "en") -> go.Figure:
    """The acceptance rate each k needs, from its measured cost, with the range its interval allows
    (a gap where it can never pay)."""
    fig = go.Figure()
    for i, ctx in enumerate(sorted({c.context for c in costs})):
        mine = sorted((c for c in costs if c.context == ctx and c.k), key=lambda c: c.k)
        y = [None if c.break_even is None else 100 * c.break_even for c in mine]
        ends = [c.break_even_range for c in mine]
        lows = [None if lo is None else 100 * lo for lo, _ in ends]
        highs = [100.0 if hi is None else 100 * hi for _, hi in ends]  # never pays at the top end: up to 100 %
        fig.add_scatter(
            x=[c.k for c in mine],
            y=y,
            error_y=_whiskers(y, lows, highs),
            name=t("sp_tr_context", lang, C=ctx),
            mode="lines+markers",
            line=dict(color=CONTEXT_COLORS[i % len(CONTEXT_COLORS)]),
        )
    fig.update_yaxes(range=[0, 100])
    style(fig, t("sp_fig_break", lang), t("sp_fig_cost_x", lang), t("sp_fig_break_y", lang))
    _k_axis(fig, sorted({c.k for c in costs if c.k}))
    return legend_below(fig, HEIGHT, rows=3)


def _k_axis(fig: go.Figure, ks: list[int]) -> None:
    """A log axis ticked at the measured k themselves (powers of two read badly on 1-2-5 ticks)."""
    fig.update_xaxes(type="log", tickvals=ks, ticktext=[str(k) for k in ks])
