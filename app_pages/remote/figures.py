"""The remote page's charts: the gap before each chunk of one stream; each request of a load as a
bar from send to first chunk (queue + prefill) and on to its last chunk (decode), or to its error;
the server's own running / waiting / KV-usage gauges over the load (and each pool's, a row each)."""

from __future__ import annotations

import plotly.graph_objects as go
from plotly.subplots import make_subplots

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


def gauges_figure(sources: dict[str, MetricsWatch], start: float, title: str, lang: str) -> go.Figure:
    """Running and waiting requests (left axis) and the KV cache in use (right axis, 0-100 %) over the
    load: one row per server read (the one under load, or each pool, its name over its row)."""
    names = list(sources)
    rows = len(names)
    fig = make_subplots(
        rows=rows,
        cols=1,
        shared_xaxes=True,
        specs=[[{"secondary_y": True}]] * rows,
        subplot_titles=names if any(names) else None,
    )
    legend: set[str] = set()  # each series named once, by the first row that has it
    for i, name in enumerate(names, start=1):
        series = {which: sources[name].series(which) for which in ("running", "waiting", "kv_usage")}
        for which, color in (("running", PHASE_COLORS["decode"]), ("waiting", PHASE_COLORS["pending"])):
            points = series[which]
            fig.add_scatter(
                x=[p[0] - start for p in points],
                y=[p[1] for p in points],
                mode="lines+markers",
                line_shape="hv",
                marker_color=color,
                name=t(f"rm_series_{which}", lang),
                legendgroup=which,
                showlegend=bool(points) and which not in legend,
                row=i,
                col=1,
            )
            legend |= {which} if points else set()
        kv = series["kv_usage"]
        if kv:
            fig.add_scatter(
                x=[p[0] - start for p in kv],
                y=[100 * p[1] for p in kv],
                mode="lines",
                line=dict(color=EXTRA_COLORS["kv"], dash="dot"),
                name=t("rm_server_kv", lang),
                legendgroup="kv",
                showlegend="kv" not in legend,
                row=i,
                col=1,
                secondary_y=True,
            )
            legend.add("kv")
        fig.update_yaxes(title_text=t("rm_server_y", lang), rangemode="tozero", row=i, col=1)
        fig.update_yaxes(
            title_text=t("rm_server_kv", lang), range=[0, 100], dtick=25, showgrid=False, row=i, col=1, secondary_y=True
        )
    height = 380 if rows == 1 else 140 + 200 * rows
    style(fig, title, t("rm_gantt_x", lang), t("rm_server_y", lang), height)
    fig.update_xaxes(title_text=None)  # one time axis, under the last row
    fig.update_xaxes(title_text=t("rm_gantt_x", lang), row=rows, col=1)
    return legend_below(fig, height)


def server_figure(seen: MetricsWatch, start: float, lang: str) -> go.Figure:
    return gauges_figure({"": seen}, start, t("rm_server_title", lang), lang)


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
