"""The remote page's charts: the gap before each chunk of one stream; each request of a load as a
bar from send to first chunk (queue + prefill) and on to its last chunk (decode), or to its error;
the server's own running / waiting / KV-usage gauges over the load."""

from __future__ import annotations

import plotly.graph_objects as go

from app_pages.remote.strings import t
from lab.remote_client import RemoteResult
from lab.remote_load import LoadRun
from lab.remote_metrics import MetricsWatch
from ui.theme import EXTRA_COLORS, FAILED_COLOR, PHASE_COLORS, legend_below, style


def chunks_figure(r: RemoteResult, lang: str) -> go.Figure:
    times = [r.send] + r.chunk_times
    gaps = [(b - a) * 1e3 for a, b in zip(times, times[1:])]
    colors = [PHASE_COLORS["prefill"]] + [PHASE_COLORS["decode"]] * (len(gaps) - 1)
    fig = go.Figure(go.Bar(x=list(range(1, len(gaps) + 1)), y=gaps, marker_color=colors, showlegend=False))
    for name, color in (
        (t("rm_chunks_ttft", lang), PHASE_COLORS["prefill"]),
        (t("rm_chunks_itl", lang), PHASE_COLORS["decode"]),
    ):
        fig.add_trace(go.Bar(x=[None], y=[None], marker_color=color, name=name))
    style(fig, t("rm_chunks_title", lang), t("rm_chunks_x", lang), t("rm_chunks_y", lang))
    return legend_below(fig, 380)


def _span(r: RemoteResult, part: str) -> tuple[float, float] | None:
    """Where a request's bar of this part starts and stops (perf_counter), or None: a failed request
    is one bar from send to its error, whatever arrived before it."""
    if part == "failed" or r.error is not None:
        return (r.send, r.done or r.send) if part == "failed" and r.error is not None else None
    first = r.chunk_times[0] if r.chunk_times else (r.done or r.send)
    end = r.chunk_times[-1] if r.chunk_times else first
    return (r.send, first) if part == "wait" else (first, end)


def gantt_figure(run: LoadRun, lang: str) -> go.Figure:
    """One row per request, in send order: waiting (sent → first chunk), then streaming; a failed
    request in red from send to its error."""
    fig = go.Figure()
    rows = run.results
    labels = [f"#{i + 1}" for i in range(len(rows))]
    for name, color, part in (
        (t("rm_gantt_wait", lang), PHASE_COLORS["prefill"], "wait"),
        (t("rm_gantt_stream", lang), PHASE_COLORS["decode"], "stream"),
        (t("rm_gantt_failed", lang), FAILED_COLOR, "failed"),
    ):
        spans = [_span(r, part) for r in rows]
        if part == "failed" and not any(spans):
            continue  # no failures: no legend entry for them
        base = [None if s is None else s[0] - run.start for s in spans]
        width = [None if s is None else max(0.0, s[1] - s[0]) for s in spans]
        fig.add_trace(go.Bar(y=labels, x=width, base=base, orientation="h", marker_color=color, name=name))
    style(
        fig,
        t("rm_gantt_title", lang),
        t("rm_gantt_x", lang),
        t("rm_gantt_y", lang),
        height=max(300, 60 + 22 * len(rows)),
    )
    fig.update_yaxes(autorange="reversed")
    fig.update_layout(barmode="overlay")
    return legend_below(fig, max(300, 60 + 22 * len(rows)))


def server_figure(seen: MetricsWatch, start: float, lang: str) -> go.Figure:
    fig = go.Figure()
    for which, color in (("running", PHASE_COLORS["decode"]), ("waiting", PHASE_COLORS["pending"])):
        points = seen.series(which)
        fig.add_trace(
            go.Scatter(
                x=[p[0] - start for p in points],
                y=[p[1] for p in points],
                mode="lines+markers",
                line_shape="hv",
                name=t(f"rm_series_{which}", lang),
                marker_color=color,
            )
        )
    kv = seen.series("kv_usage")
    if kv:
        fig.add_trace(
            go.Scatter(
                x=[p[0] - start for p in kv],
                y=[100 * p[1] for p in kv],
                mode="lines",
                name=t("rm_server_kv", lang),
                yaxis="y2",
                line_color=EXTRA_COLORS["kv"],
            )
        )
        fig.update_layout(
            yaxis2=dict(
                title=t("rm_server_kv", lang), overlaying="y", side="right", range=[0, 100], dtick=25, showgrid=False
            )
        )
    style(fig, t("rm_server_title", lang), t("rm_gantt_x", lang), t("rm_server_y", lang))
    return legend_below(fig, 380)


def sweep_figure(runs: list[LoadRun], lang: str) -> go.Figure:
    """Achieved against offered rate (with the line where they are equal), and TTFT P50 on a second axis."""
    offered = [r.plan.rate for r in runs]
    summaries = [r.summary() for r in runs]
    fig = go.Figure()
    fig.add_trace(
        go.Scatter(
            x=offered,
            y=offered,
            mode="lines",
            name=t("rm_sweep_ideal", lang),
            line=dict(dash="dot", color=PHASE_COLORS["pending"]),
        )
    )
    fig.add_trace(
        go.Scatter(
            x=offered,
            y=[s["requests_per_s"] for s in summaries],
            mode="lines+markers",
            name=t("rm_col_achieved", lang),
            marker_color=PHASE_COLORS["decode"],
        )
    )
    fig.add_trace(
        go.Scatter(
            x=offered,
            y=[s["ttft_ms"]["p50"] for s in summaries],
            mode="lines+markers",
            name=t("rm_sweep_ttft", lang),
            yaxis="y2",
            marker_color=PHASE_COLORS["prefill"],
        )
    )
    fig.update_layout(yaxis2=dict(title=t("rm_sweep_ttft", lang), overlaying="y", side="right", showgrid=False))
    style(fig, t("rm_sweep_title", lang), t("rm_sweep_x", lang), t("rm_sweep_y", lang))
    return legend_below(fig, 380)
