"""Charts of the sweeps page: medians with a min-max band over repeats (lab/sweeps.py's Spread)."""

from __future__ import annotations

import plotly.graph_objects as go

from app_pages.sweeps.strings import t
from lab.sweeps import SweepResult
from lab.verdicts import Spread
from ui.theme import PHASE_COLORS, style

BAND_ALPHA = "33"  # hex alpha of the band's fill


def add_median_band(
    fig: go.Figure,
    spreads: dict[int, Spread],
    name: str,
    color: str,
    lang: str,
    scale: float = 1.0,
    x_shift: int = 0,
    band: str | None = "minmax",
    dash: str | None = None,
) -> None:
    """A median line with markers, and a band behind it (one legend entry each): min-max over the repeats,
    or the interquartile range where a point pools many samples (one slow step would set a min-max band)."""
    xs = [x + x_shift for x in spreads]
    if band and any(s.n > 1 for s in spreads.values()):
        hi = [(s.hi if band == "minmax" else s.q3) * scale for s in spreads.values()]
        lo = [(s.lo if band == "minmax" else s.q1) * scale for s in spreads.values()]
        fig.add_trace(
            go.Scatter(
                x=xs + xs[::-1],
                y=hi + lo[::-1],
                mode="lines",
                fill="toself",
                fillcolor=color + BAND_ALPHA,
                line=dict(width=0),
                hoverinfo="skip",
                name=f"{name}: {t('sw_tr_band' if band == 'minmax' else 'sw_tr_iqr', lang)}",
            )
        )
    fig.add_trace(
        go.Scatter(
            x=xs,
            y=[s.median * scale for s in spreads.values()],
            mode="lines+markers",
            line=dict(color=color, dash=dash),
            name=name,
        )
    )


def log_lengths(fig: go.Figure, lengths: list[int]) -> None:
    """A log x axis ticked at the measured lengths (Plotly's own log ticks read 2, 5, 100, 2, 5, 1000)."""
    fig.update_xaxes(type="log", tickvals=lengths, ticktext=[str(v) for v in lengths])


def ttft_figure(r: SweepResult, lang: str) -> go.Figure:
    fig = go.Figure()
    add_median_band(fig, r.by_prompt("ttft_ms"), t("sw_tr_ttft", lang), PHASE_COLORS["prefill"], lang)
    add_median_band(
        fig, r.by_prompt("prefill_ms"), t("sw_tr_prefill", lang), PHASE_COLORS["mixed"], lang, band=None, dash="dot"
    )  # dotted: it lies on the TTFT line when TTFT is all prefill
    style(fig, t("sw_fig_ttft", lang), t("sw_axis_L", lang), t("axis_ms", lang))
    log_lengths(fig, list(r.by_prompt("ttft_ms")))
    return fig


def tpot_prompt_figure(r: SweepResult, lang: str) -> go.Figure:
    fig = go.Figure()
    add_median_band(fig, r.by_prompt("tpot_ms"), t("sw_tr_tpot", lang), PHASE_COLORS["decode"], lang)
    style(fig, t("sw_fig_tpot", lang), t("sw_axis_L", lang), t("axis_ms", lang))
    log_lengths(fig, list(r.by_prompt("tpot_ms")))
    fig.update_yaxes(rangemode="tozero")  # a flat line must look flat, not stretched over a narrow range
    return fig


def tpot_output_figure(r: SweepResult, lang: str) -> go.Figure:
    """TPOT per output length, and each decode step's time placed at its output index (context - L)."""
    fig = go.Figure()
    steps = r.decode_step_spread()
    if steps:
        add_median_band(
            fig, steps, t("sw_tr_step", lang), "#64748b", lang, x_shift=-r.settings.output_prompt_len, band="iqr"
        )
    add_median_band(fig, r.by_output("tpot_ms"), t("sw_tr_tpot", lang), PHASE_COLORS["decode"], lang)
    style(fig, t("sw_fig_tpot_n", lang), t("sw_axis_N", lang), t("axis_ms", lang))
    fig.update_yaxes(rangemode="tozero")
    return fig


def share_figure(r: SweepResult, lang: str) -> go.Figure:
    fig = go.Figure()
    shares = r.by_output("decode_share")
    add_median_band(fig, shares, t("sw_tr_share", lang), PHASE_COLORS["decode"], lang, scale=100)
    xs = list(shares)
    fig.add_trace(
        go.Scatter(
            x=[min(xs), max(xs)],
            y=[90, 90],
            mode="lines",
            line=dict(dash="dash", color="#94a3b8"),
            name=t("sw_tr_doc90", lang),
        )
    )
    style(fig, t("sw_fig_share", lang), t("sw_axis_N_log", lang), t("sw_axis_share", lang))
    log_lengths(fig, xs)
    fig.update_yaxes(range=[0, 100])
    return fig
