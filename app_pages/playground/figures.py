"""Timing and memory figures: latency per output token (TTFT, then ITL; C4, C8), the prefill and
decode shares of the request's time (C9), and peak transient memory per step (C10, C20)."""

from __future__ import annotations

import plotly.graph_objects as go

from app_pages.playground.strings import t
from engine.observe.request_metrics import RequestMetrics
from engine.observe.trace import StepRecord, TokenEvent
from lab.busy import MachineLoad
from ui.figures_kv import kv_steps
from ui.paired import SEPARATOR, busy_beside
from ui.theme import EXTRA_COLORS, MIB, PHASE_COLORS, style


def engine_ms_per_token(tokens: list[TokenEvent], steps: list[StepRecord]) -> list[float]:
    """The engine's own time behind each output token: the steps after the previous token's up to its
    own (several for a prompt prefilled in chunks)."""
    ms_of = {s.step: s.ms for s in steps}
    out, prev = [], -1
    for tok in tokens:
        out.append(sum(ms for step, ms in ms_of.items() if prev < step <= tok.step))
        prev = tok.step
    return out


def latency_figure(
    tokens: list[TokenEvent],
    arrival: float,
    lang: str = "en",
    steps: list[StepRecord] | None = None,
    busy: str = "",
) -> go.Figure:
    """Bar i: how long output token i took to appear (TTFT for the first, ITL after); with the steps,
    a marker for the engine's own time behind it: the rest of the bar is the code around the engine.
    busy: other work on the machine meanwhile, worded (panels.busy_note), under the title."""
    times = [arrival] + [tok.time for tok in tokens]
    gaps = [(b - a) * 1e3 for a, b in zip(times, times[1:])]
    fig = go.Figure()
    if gaps:
        fig.add_trace(go.Bar(x=[1], y=gaps[:1], name=t("lat_ttft", lang), marker_color=PHASE_COLORS["prefill"]))
    if len(gaps) > 1:
        fig.add_trace(
            go.Bar(
                x=list(range(2, len(gaps) + 1)),
                y=gaps[1:],
                name=t("lat_itl", lang),
                marker_color=PHASE_COLORS["decode"],
            )
        )
        metrics = RequestMetrics.from_times(arrival, times[1:])
        fig.add_trace(
            go.Scatter(
                x=[1.5, len(gaps) + 0.5],
                y=[metrics.tpot_ms] * 2,
                mode="lines",
                name=t("lat_tpot", lang, ms=metrics.tpot_ms),
                line=dict(color=EXTRA_COLORS["line"], dash="dash"),
            )
        )
    if gaps and steps:
        fig.add_trace(
            go.Scatter(
                x=list(range(1, len(gaps) + 1)),
                y=engine_ms_per_token(tokens, steps),
                mode="markers",
                name=t("lat_engine", lang),
                marker=dict(color=EXTRA_COLORS["kv"], symbol="diamond", size=7),
            )
        )
    style(fig, t("lat_title", lang), t("axis_output_token", lang), t("axis_ms", lang))
    beside_title(fig, busy)
    fig.update_yaxes(rangemode="tozero")
    return fig


def busy_note(load: MachineLoad | None, lang: str) -> str:
    """Other work on the machine while a run was timed, to stand beside each timing ("other work:
    0.8 of 2 cores"); empty when it took less than a busy share (ui/paired.py, lab/busy.py)."""
    return busy_beside(load, lang).removeprefix(SEPARATOR)


def beside_title(fig: go.Figure, note: str) -> go.Figure:
    """A short note under the chart's title (the machine's other work while it was timed), with the
    room it needs above the plot; nothing for an empty note."""
    if note:
        fig.update_layout(title_subtitle_text=note, margin_t=fig.layout.margin.t + 20, height=fig.layout.height + 20)
    return fig


def time_share_figure(metrics: RequestMetrics, lang: str = "en", busy: str = "") -> go.Figure:
    """One stacked bar: time to the first token (prefill) and the rest (decode) of E2E; busy: as
    latency_figure's."""
    prefill, decode = metrics.ttft_ms, metrics.e2e_ms - metrics.ttft_ms
    fig = go.Figure()
    for name, value, phase in (
        (t("share_prefill", lang), prefill, "prefill"),
        (t("share_decode", lang), decode, "decode"),
    ):
        share = value / metrics.e2e_ms if metrics.e2e_ms else 0.0
        fig.add_trace(
            go.Bar(
                x=[value],
                y=[t("share_row", lang)],
                orientation="h",
                name=name,
                marker_color=PHASE_COLORS[phase],
                text=[f"{share:.0%}"],
                textposition="inside",
            )
        )
    style(fig, t("share_title", lang), t("axis_ms", lang), t("share_row", lang), height=260)
    fig.update_yaxes(showticklabels=False)  # one bar: the axis title names it
    fig.update_layout(barmode="stack", legend=dict(y=-0.45, traceorder="normal"))  # clear of the axis title
    return beside_title(fig, busy)


def memory_figure(steps: list[StepRecord], block_size: int, bytes_per_token: int, lang: str = "en") -> go.Figure:
    """Peak transient tensor memory per step (bars) beside the KV cache it works on (line)."""
    fig = go.Figure()
    for phase in ("prefill", "decode", "mixed"):
        chosen = [s for s in steps if s.phase == phase and s.peak_bytes is not None]
        if chosen:
            fig.add_trace(
                go.Bar(
                    x=[s.step for s in chosen],
                    y=[s.peak_bytes / MIB for s in chosen],
                    name=t("mem_peak", lang, phase=t(f"phase_{phase}", lang)),
                    marker_color=PHASE_COLORS[phase],
                )
            )
    rows = kv_steps(steps, block_size)
    fig.add_trace(
        go.Scatter(
            x=[r.step for r in rows],
            y=[r.cached_tokens * bytes_per_token / MIB for r in rows],
            mode="lines+markers",
            name=t("mem_kv", lang),
            line=dict(color=EXTRA_COLORS["kv"]),
        )
    )
    if all(s.peak_bytes is None for s in steps):
        fig.add_annotation(text=t("mem_probe_off", lang), showarrow=False, xref="paper", yref="paper", x=0.5, y=0.5)
    style(fig, t("mem_step_title", lang), t("axis_step", lang), t("axis_mib", lang))
    fig.update_yaxes(rangemode="tozero")
    return fig
