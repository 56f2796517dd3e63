"""Latency and throughput of the two runs side by side (C21, C22): TTFT, TPOT, ITL and E2E at
P50 / P90 / P99 and output tokens per second, all from lab.workload.summarize over the run's
own trace, for every request or one group of them (e.g. only the short chats). Each percentile
names its n; one that n cannot resolve is shown once, as "max of n" (ui/percentile_labels.py)."""

from __future__ import annotations

import math
import re

import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from app_pages.serving.run import PolicyRun
from app_pages.serving.strings import t
from app_pages.serving.timeline import row_names
from ui.load_note import ratio_label
from ui.percentile_labels import shown_stats, stat_label
from ui.theme import style

METRICS = ("ttft_ms", "tpot_ms", "itl_ms", "e2e_ms")
STATS = ("p50", "p90", "p99")
ALL = "*"  # the group of every request
RUN_COLORS = {"a": "#64748b", "b": "#2563eb"}


def label_group(label: str) -> str:
    """'chat 3' -> 'chat', 'long prompt' -> 'long prompt': requests that differ only by number."""
    return re.sub(r"\s*\d+$", "", label).strip() or label


def groups(labels: dict[int, str]) -> list[str]:
    return [ALL] + list(dict.fromkeys(label_group(x) for x in labels.values()))


def ids_in(run: PolicyRun, group: str) -> set[int] | None:
    """The run's sequence ids in `group` (None: all of them, as summarize takes it)."""
    if group == ALL:
        return None
    return {sid for sid, label in run.labels.items() if label_group(label) == group}


def run_name(run: PolicyRun, lang: str) -> str:
    return t("sv_run_name", lang, slot=run.slot.upper(), policy=t(f"sv_policy_{run.policy}", lang))


def ratio_column(lang: str, busy: bool = False) -> str:
    """The B / A column's name; timed on a busy machine it says its ratios are not given."""
    return ratio_label(t("sv_col_ratio", lang), busy, lang)


def metrics_table(runs: list[PolicyRun], group: str, lang: str = "en", busy: bool = False) -> pd.DataFrame:
    """Rows: each metric at each percentile, then throughput; a column per run (and B / A, left
    empty when the runs were timed on a busy machine)."""
    summaries = [r.summary(ids_in(r, group)) for r in runs]
    names = [run_name(r, lang) for r in runs]
    rows = []
    for m in METRICS:
        n = min(x[m]["n"] for x in summaries)
        for s in shown_stats(STATS, n):
            rows.append(
                _row(t(f"sv_m_{m}", lang), stat_label(s, n, lang), [x[m][s] for x in summaries], names, lang, busy)
            )
    rows.append(_row(t("sv_m_throughput", lang), "—", [x["throughput_tok_s"] for x in summaries], names, lang, busy))
    return pd.DataFrame(rows)


def b_over_a(a: float, b: float) -> float:
    return b / a if a and not math.isnan(a) and not math.isnan(b) else float("nan")


def _row(metric: str, stat: str, values: list[float], names: list[str], lang: str, busy: bool) -> dict:
    row = {t("sv_col_metric", lang): metric, t("sv_col_stat", lang): stat}
    row.update(dict(zip(names, values)))
    if len(values) == 2:
        row[ratio_column(lang, busy)] = float("nan") if busy else b_over_a(*values)
    return row


def metrics_figure(runs: list[PolicyRun], group: str, lang: str = "en") -> go.Figure:
    """One panel per metric, P50 / P90 / P99 bars of each run side by side (each with its n)."""
    titles = [t(f"sv_m_{m}", lang) for m in METRICS]
    fig = make_subplots(rows=1, cols=len(METRICS), subplot_titles=titles, horizontal_spacing=0.06)
    summaries = [run.summary(ids_in(run, group)) for run in runs]
    counts = {m: min(x[m]["n"] for x in summaries) for m in METRICS}
    for run, summary in zip(runs, summaries):
        for col, m in enumerate(METRICS, start=1):
            stats = shown_stats(STATS, counts[m])
            fig.add_trace(
                go.Bar(
                    x=[stat_label(s, counts[m], lang) for s in stats],
                    y=[summary[m][s] for s in stats],
                    name=run_name(run, lang),
                    legendgroup=run.slot,
                    showlegend=col == 1,
                    marker_color=RUN_COLORS[run.slot],
                    hovertemplate="%{x}: %{y:.1f} ms<extra>%{fullData.name}</extra>",
                ),
                row=1,
                col=col,
            )
    style(fig, t("sv_metrics_title", lang), t("sv_axis_percentile", lang), t("axis_ms", lang), height=400)
    fig.update_layout(barmode="group")
    for col in range(2, len(METRICS) + 1):
        fig.update_xaxes(title_text=t("sv_axis_percentile", lang), row=1, col=col)
    fig.update_yaxes(rangemode="tozero")
    return fig


def aligned(runs: list[PolicyRun]) -> list[tuple]:
    """The same request in every run, side by side: each run adds them in the same (arrival) order
    and sequence ids only grow, so the i-th id of one run is the i-th request of the other."""
    ordered = [sorted(run.trace.requests, key=lambda r: r.seq_id) for run in runs]
    return list(zip(*ordered))


def same_outputs(runs: list[PolicyRun]) -> tuple[int, int]:
    """(requests whose output tokens are identical in both runs, requests compared)."""
    if len(runs) < 2:
        return 0, 0
    pairs = aligned(runs)
    return sum(a.output_token_ids == b.output_token_ids for a, b in pairs), len(pairs)


def request_table(runs: list[PolicyRun], lang: str = "en") -> pd.DataFrame:
    """Per request: arrival, lengths, and each run's TTFT, E2E and preemptions; the output text."""
    first = runs[0]
    names, t0 = row_names(first.trace, first.labels), min(r.arrival for r in first.trace.requests)
    rows = []
    for records in aligned(runs):
        r = records[0]
        row = {
            t("sv_col_request", lang): names[r.seq_id],
            t("sv_col_arrival", lang): r.arrival - t0,
            t("sv_col_prompt", lang): len(r.prompt_token_ids),
            t("sv_col_output", lang): len(r.output_token_ids),
        }
        for run, rec in zip(runs, records):
            m, slot = rec.metrics, run.slot.upper()
            row[t("sv_col_ttft", lang, slot=slot)] = m.ttft_ms
            row[t("sv_col_e2e", lang, slot=slot)] = m.e2e_ms
            row[t("sv_col_preempt", lang, slot=slot)] = rec.num_preemptions
        row[t("sv_col_text", lang)] = r.text
        rows.append(row)
    return pd.DataFrame(rows).sort_values(t("sv_col_arrival", lang), kind="stable")
