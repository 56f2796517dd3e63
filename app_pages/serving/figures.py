"""Serving lab figures over time: the per-request Gantt chart and the batch composition per step.
Pure functions: a run's records in, a go.Figure out. Request labels can come from the user, so
they are HTML-escaped before Plotly (which renders a subset of HTML in text) sees them."""

from __future__ import annotations

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from app_pages.serving.strings import t
from app_pages.serving.timeline import ordered_requests, origin, request_segments, row_names, step_totals, step_window
from engine.observe.trace import Trace
from ui.text import html_text
from ui.theme import EXTRA_COLORS, PHASE_COLORS, legend_below, style

KIND_COLORS = {"waiting": PHASE_COLORS["pending"], "prefill": PHASE_COLORS["prefill"], "decode": PHASE_COLORS["decode"]}
HIGHLIGHT = "#f59e0b"
# Room for the legend's four entries in up to three rows: on a phone they wrap, and a legend that
# needs more room than kept takes it from the plot (the rows were a few pixels high at 390 px)
LEGEND_ROWS = 3
ROW_PX, MIN_PLOT_PX = 28, 180  # each request's row, and the plot's least height however few rows


def gantt_height(num_rows: int) -> int:
    """The timeline's height: its rows at ROW_PX each (never under MIN_PLOT_PX), the title above and
    the legend's LEGEND_ROWS below."""
    legend = 70 + 40 + 30 * (LEGEND_ROWS - 1)  # as legend_below keeps it
    return 60 + max(MIN_PLOT_PX, ROW_PX * num_rows) + legend


TOKEN_COLOR = "#1e293b"


def _token_marks(trace: Trace, names: dict[int, str], lang: str) -> go.Scatter:
    """A tick at every output token's time: the gaps between ticks are the ITLs a user feels."""
    t0 = origin(trace)
    reqs = ordered_requests(trace)
    return go.Scatter(
        x=[x - t0 for r in reqs for x in r.token_times],
        y=[html_text(names[r.seq_id]) for r in reqs for _ in r.token_times],
        mode="markers",
        name=t("sv_token_marks", lang),
        marker=dict(symbol="line-ns-open", size=13, color=TOKEN_COLOR, line=dict(width=1.5, color=TOKEN_COLOR)),
        customdata=[i + 1 for r in reqs for i in range(len(r.token_times))],
        hovertemplate=t("sv_hover_token", lang, label="%{y}", n="%{customdata}", s="%{x:.3f}") + "<extra></extra>",
    )


def _step_hover(lang: str) -> str:
    return (
        t(
            "sv_hover_step",
            lang,
            name="%{fullData.name}",
            label="%{y}",
            step="%{customdata[0]}",
            tokens="%{customdata[1]}",
            context="%{customdata[2]}",
            batch="%{customdata[3]}",
            ms="%{customdata[4]:.1f}",
        )
        + "<extra></extra>"
    )


def gantt_figure(
    trace: Trace,
    labels: dict[int, str],
    title: str,
    lang: str = "en",
    highlight: int | None = None,
    x_max: float | None = None,
) -> go.Figure:
    """One row per request: waiting (thin, grey), then a bar per engine step it was part of.

    highlight: index of a step to mark across all rows (the step the inspector shows)."""
    segments = request_segments(trace, labels)
    fig = go.Figure()
    for kind in ("waiting", "prefill", "decode"):
        chosen = [s for s in segments if s.kind == kind]
        if not chosen:
            continue
        hover = (
            t("sv_hover_wait", lang, label="%{y}", ms="%{customdata[4]:.0f}") + "<extra></extra>"
            if kind == "waiting"
            else _step_hover(lang)
        )
        fig.add_trace(
            go.Bar(
                orientation="h",
                y=[html_text(s.label) for s in chosen],
                x=[s.end_s - s.start_s for s in chosen],
                base=[s.start_s for s in chosen],
                name=t(f"sv_kind_{kind}", lang),
                marker_color=KIND_COLORS[kind],
                marker_line=dict(width=0.5, color="white"),
                width=0.3 if kind == "waiting" else 0.75,
                customdata=[[s.step, s.num_tokens, s.context_len, s.batch_tokens, s.ms] for s in chosen],
                hovertemplate=hover,
            )
        )
    names = row_names(trace, labels)
    fig.add_trace(_token_marks(trace, names, lang))
    order = [html_text(names[r.seq_id]) for r in ordered_requests(trace)]
    style(fig, title, t("sv_axis_wall_s", lang), t("sv_axis_request", lang))
    legend_below(fig, gantt_height(len(order)), rows=LEGEND_ROWS)
    fig.update_layout(barmode="overlay", bargap=0.1)
    fig.update_yaxes(categoryorder="array", categoryarray=order, autorange="reversed")
    fig.update_xaxes(rangemode="tozero", range=[0, x_max] if x_max else None)
    return mark_step(fig, trace, highlight, lang) if highlight is not None and trace.steps else fig


def mark_step(fig: go.Figure, trace: Trace, index: int, lang: str = "en") -> go.Figure:
    """A copy of a timeline with the index-th step marked across every row. Copying a built chart
    costs a tenth of building it (Plotly validates every bar), which keeps stepping through a
    full-size run responsive."""
    out = go.Figure(fig)
    x0, x1 = step_window(trace, index)
    return step_band(out, x0, x1, t("sv_step_mark", lang, step=trace.steps[index].step))


def step_band(fig: go.Figure, x0: float, x1: float, label: str) -> go.Figure:
    """Mark one step's span without recolouring the bars in it: a tinted band behind the traces (it
    shows between the bars) and an unfilled outline in front (where the step starts and ends)."""
    fig.add_vrect(x0=x0, x1=x1, fillcolor=HIGHLIGHT, opacity=0.25, line_width=0, layer="below")
    fig.add_vrect(
        x0=x0,
        x1=x1,
        fillcolor="rgba(0,0,0,0)",
        line=dict(color=HIGHLIGHT, width=2),
        layer="above",
        annotation_text=label,
        annotation_position="outside top",
    )
    return fig


def run_end_s(trace: Trace) -> float:
    """When the last step ended, in seconds since the first arrival (a shared x range for two runs)."""
    if not trace.steps:
        return 0.0
    return step_window(trace, len(trace.steps) - 1)[1]


def composition_figure(trace: Trace, budget: int | None, lang: str = "en", highlight: int | None = None) -> go.Figure:
    """Tokens each step processed, prefill and decode stacked (their sum is the budget used), with
    the per-step budget when chunked prefill enforces one, and the batch size on the right axis."""
    rows = step_totals(trace)
    x = [r.step for r in rows]
    fig = make_subplots(specs=[[{"secondary_y": True}]])
    for phase in ("decode", "prefill"):  # decode at the bottom: the scheduler fills it first
        y = [r.decode_tokens if phase == "decode" else r.prefill_tokens for r in rows]
        fig.add_trace(
            go.Bar(
                x=x,
                y=y,
                name=t(f"sv_tokens_{phase}", lang),
                marker_color=PHASE_COLORS[phase],
                hovertemplate=t("sv_hover_tokens", lang, step="%{x}", n="%{y}") + "<extra></extra>",
            ),
            secondary_y=False,
        )
    if budget is not None and x:
        fig.add_trace(
            go.Scatter(
                x=[x[0] - 0.5, x[-1] + 0.5],
                y=[budget, budget],
                mode="lines",
                name=t("sv_budget_line", lang, n=budget),
                line=dict(color=EXTRA_COLORS["line"], dash="dash"),
            ),
            secondary_y=False,
        )
    fig.add_trace(
        go.Scatter(
            x=x,
            y=[r.num_seqs for r in rows],
            mode="lines",
            line_shape="hvh",
            name=t("sv_batch_size", lang),
            line=dict(color=EXTRA_COLORS["blocks"]),
        ),
        secondary_y=True,
    )
    style(fig, t("sv_comp_title", lang), t("axis_step", lang), t("sv_axis_tokens_step", lang))
    fig.update_layout(barmode="stack", bargap=0.05)
    most = max((r.num_seqs for r in rows), default=1)
    fig.update_yaxes(
        title_text=t("sv_axis_seqs", lang),
        secondary_y=True,
        rangemode="tozero",
        showgrid=False,
        tick0=0,
        dtick=max(1, -(-most // 5)),
    )  # whole sequences only
    fig.update_yaxes(rangemode="tozero", secondary_y=False)
    if highlight is not None and rows:
        step = rows[highlight].step
        step_band(fig, step - 0.5, step + 0.5, t("sv_step_mark", lang, step=step))
    return fig
