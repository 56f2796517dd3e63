"""Figures of the disaggregation lab: the runs of lab/disaggregation.py in, go.Figure out. One colour
per set-up; the Gantt colours phases."""

from __future__ import annotations

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from app_pages.disaggregation.strings import t
from lab.disaggregation import SetupRun, chat_gaps, is_long, long_windows, pairs, phases
from ui.theme import log_axis, style

SETUP_COLORS = {"whole": "#dc2626", "chunked": "#2563eb", "pd": "#16a34a"}
PHASE_COLORS = {
    "waiting": "#cbd5e1",
    "p_queue": "#cbd5e1",
    "prefill": "#ea580c",
    "transfer": "#7c3aed",
    "d_queue": "#94a3b8",
    "decode": "#0d9488",
}


def distribution_figure(runs: dict[str, SetupRun], lang: str = "en") -> go.Figure:
    """TTFT and TPOT of every request, per set-up: chats as dots, long prompts as diamonds."""
    fig = make_subplots(rows=1, cols=2, subplot_titles=(t("dg_fig_ttft_axis", lang), t("dg_fig_tpot_axis", lang)))
    for name, sr in runs.items():
        label = t(f"dg_setup_{name}", lang)
        for kind, symbol in (("chat", "circle"), ("long", "diamond")):
            metrics = [r.metrics for s, r in pairs(sr) if is_long(s) == (kind == "long") and r.metrics]
            for col, values in (
                (1, [m.ttft_ms for m in metrics]),
                (2, [m.tpot_ms for m in metrics if m.tpot_ms is not None]),
            ):
                fig.add_scatter(
                    x=[label] * len(values),
                    y=values,
                    mode="markers",
                    marker=dict(color=SETUP_COLORS[name], symbol=symbol, size=9, opacity=0.75),
                    name=f"{label}: {t(f'dg_fig_{kind}', lang)}",
                    legendgroup=f"{name}-{kind}",
                    showlegend=col == 1,
                    row=1,
                    col=col,
                )
    fig.update_yaxes(title_text="ms", rangemode="tozero")
    style(fig, t("dg_fig_dist", lang), t("dg_col_setup", lang), "ms", height=420)
    fig.update_xaxes(title_text=t("dg_col_setup", lang))
    return fig


def interference_figure(runs: dict[str, SetupRun], lang: str = "en") -> go.Figure:
    """One row per set-up: each chat gap where it ended, the long prompts' prefill spans shaded."""
    names = list(runs)
    fig = make_subplots(
        rows=len(names), cols=1, shared_xaxes=True, subplot_titles=[t(f"dg_setup_{n}", lang) for n in names]
    )
    shown = False
    for i, name in enumerate(names, start=1):
        sr = runs[name]
        gaps = chat_gaps(sr)
        fig.add_scatter(
            x=[g[0] for g in gaps],
            y=[g[1] for g in gaps],
            mode="markers",
            marker=dict(color=SETUP_COLORS[name], size=5),
            name=t(f"dg_setup_{name}", lang),
            text=[g[2] for g in gaps],
            row=i,
            col=1,
        )
        for a, b in long_windows(sr):
            fig.add_vrect(x0=a, x1=b, fillcolor="#f59e0b", opacity=0.18, line_width=0, row=i, col=1)
            if not shown:  # one legend entry for every shaded span
                fig.add_scatter(
                    x=[None],
                    y=[None],
                    mode="markers",
                    marker=dict(color="#f59e0b", symbol="square", size=12, opacity=0.4),
                    name=t("dg_fig_prefill_window", lang),
                    row=i,
                    col=1,
                )
                shown = True
        fig.update_yaxes(title_text=t("dg_fig_gap_axis", lang), rangemode="tozero", row=i, col=1)
    fig.update_xaxes(title_text=t("dg_fig_time_axis", lang), row=len(names), col=1)
    style(fig, t("dg_fig_interference", lang), "", t("dg_fig_gap_axis", lang), height=150 + 170 * len(names))
    fig.update_xaxes(title_text=t("dg_fig_time_axis", lang), row=len(names), col=1)
    return fig


def gantt_figure(sr: SetupRun, lang: str = "en") -> go.Figure:
    """Each request on each worker. The pair: queue and prefill on the prefill worker's lane, the
    hand-off as an arrow to the decode worker's lane, queue and decode there. A colocated server: the
    client's view (waiting for the first token, then decoding) on one lane."""
    fig, seen = go.Figure(), set()
    rows = phases(sr)
    if sr.setup == "pd":
        p_lane, d_lane = t("dg_gantt_prefill_lane", lang), t("dg_gantt_decode_lane", lang)
        lanes = [f"{p_lane} · {r['label']}" for r in rows] + [f"{d_lane} · {r['label']}" for r in rows]
    else:
        lanes = [f"{t('dg_gantt_server_lane', lang)} · {r['label']}" for r in rows]
    # Lanes are numbers, labelled: an arrow's ends in category names are not read alike by every plotly.js.
    y = {lane: -i for i, lane in enumerate(lanes)}  # the first lane on top

    def bar(lane: str, phase: str, start: float, end: float) -> None:
        fig.add_bar(
            y=[y[lane]],
            x=[max(end - start, 1e-4)],
            base=[start],
            orientation="h",
            marker_color=PHASE_COLORS[phase],
            name=t(f"dg_phase_{phase}", lang),
            legendgroup=phase,
            showlegend=phase not in seen,
            hovertemplate=f"{lane}<br>{t(f'dg_phase_{phase}', lang)}: %{{base:.2f}} s + %{{x:.3f}} s<extra></extra>",
        )
        seen.add(phase)

    if sr.setup == "pd":
        for r in rows:
            p, d = f"{p_lane} · {r['label']}", f"{d_lane} · {r['label']}"
            for phase in ("p_queue", "prefill"):
                if phase in r:
                    bar(p, phase, *r[phase])
            for phase in ("d_queue", "decode"):
                if phase in r:
                    bar(d, phase, *r[phase])
            if "transfer" in r:
                (a, b) = r["transfer"]
                fig.add_annotation(
                    x=b, y=y[d], ax=a, ay=y[p], xref="x", yref="y", axref="x", ayref="y",
                    showarrow=True, arrowhead=3, arrowwidth=2, arrowcolor=PHASE_COLORS["transfer"], text="",
                )  # fmt: skip
        fig.add_scatter(
            x=[None], y=[None], mode="lines", line=dict(color=PHASE_COLORS["transfer"], width=3),
            name=t("dg_phase_transfer", lang),
        )  # fmt: skip
    else:
        for r, name in zip(rows, lanes):
            if r["first"] is not None:
                bar(name, "waiting", r["sent"], r["first"])
                bar(name, "decode", r["first"], r["done"])
    fig.update_layout(barmode="overlay", bargap=0.25)
    fig.update_yaxes(tickvals=list(y.values()), ticktext=list(y), range=[-len(lanes) + 0.4, 0.6], zeroline=False)
    title = f"{t('dg_fig_gantt', lang)}: {t(f'dg_setup_{sr.setup}', lang)}"
    return style(fig, title, t("dg_fig_time_axis", lang), t("dg_fig_lane_axis", lang), height=160 + 26 * len(lanes))


def calculator_figure(
    links: list[tuple[str, float]], prefill_s: float | None, prefill_label: str, lang: str = "en"
) -> go.Figure:
    """Each link's hand-off time as a bar; the projected prefill as a line: under it, the transfer hides."""
    fig = go.Figure()
    fig.add_bar(
        y=[name for name, _ in links],
        x=[1e3 * s for _, s in links],
        orientation="h",
        marker_color=PHASE_COLORS["transfer"],
        name=t("dg_phase_transfer", lang),
    )
    if prefill_s is not None:
        fig.add_vline(x=1e3 * prefill_s, line=dict(color=PHASE_COLORS["prefill"], dash="dash", width=2))
        fig.add_scatter(
            x=[None], y=[None], mode="lines", line=dict(color=PHASE_COLORS["prefill"], dash="dash"),
            name=prefill_label,
        )  # fmt: skip
    values = [1e3 * s for _, s in links] + ([1e3 * prefill_s] if prefill_s is not None else [])
    log_axis(fig, "x", 0.5 * min(values), 2 * max(values), max_ticks=6)
    return style(fig, t("dg_fig_calc", lang), t("dg_fig_calc_axis", lang), t("dg_col_link", lang), height=380)
