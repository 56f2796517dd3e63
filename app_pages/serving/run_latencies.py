"""Latency and throughput of the two policies side by side (C21, C22): TTFT, TPOT, ITL and E2E at
P50 / P90 / P99 and output tokens per second, all from lab.workload.summarize over each run's own
trace, for every request or one group of them (e.g. only the short chats). Each policy's number is
the median over the rounds it raced in; B ÷ A pairs the rounds (lab/pairing.py) and is worded by
ui/paired.py: its interval and n, a verdict only where the interval allows one. Each percentile
names its n; one that n cannot resolve is shown once, as "max of n" (ui/percentile_labels.py)."""

from __future__ import annotations

import math
import re
import statistics

import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from app_pages.serving.run import PolicyRun
from app_pages.serving.strings import t
from app_pages.serving.timeline import row_names
from lab.pairing import RatioInterval, ratio_interval
from ui.paired import busy_beside, ratio_text, verdict_text
from ui.percentile_labels import shown_stats, stat_label
from ui.theme import style

METRICS = ("ttft_ms", "tpot_ms", "itl_ms", "e2e_ms")
THROUGHPUT = "throughput_tok_s"
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


def ratio_column(lang: str, load=None) -> str:
    """The B ÷ A column's name: the median of the rounds' paired ratios, its interval and n, with the
    load other work put on the machine beside it (said once for the whole column: every round's pairs
    ran beside the same reading)."""
    return t("sv_col_ratio", lang) + busy_beside(load, lang)


def stat_of(summary: dict, metric: str, stat: str) -> float:
    """One number of lab.workload.summarize: a metric's percentile, or the throughput itself."""
    return summary[metric] if metric == THROUGHPUT else summary[metric][stat]


def round_values(rounds: list[dict[str, PolicyRun]], slot: str, group: str, metric: str, stat: str) -> list[float]:
    """The statistic of `slot`'s run in each round, for one group of requests."""
    return [stat_of(r[slot].summary(ids_in(r[slot], group)), metric, stat) for r in rounds if slot in r]


def paired_ratio(
    rounds: list[dict[str, PolicyRun]], group: str, metric: str, stat: str, retaken: int = 0, load=None
) -> RatioInterval | None:
    """B ÷ A of one statistic, paired round by round (both raced through the same seconds), as a
    median with its interval and n; None where no round has both (or no pair has a value)."""
    both = [r for r in rounds if "a" in r and "b" in r]
    if not both:
        return None
    a, b = (round_values(both, slot, group, metric, stat) for slot in ("a", "b"))
    if not any(x > 0 and y >= 0 for x, y in zip(a, b)):  # NaN (no value) compares False: no pair
        return None
    return ratio_interval(b, a, retaken, load)


def median_of(values: list[float]) -> float:
    known = [v for v in values if not math.isnan(v)]
    return statistics.median(known) if known else float("nan")


def metrics_table(
    rounds: list[dict[str, PolicyRun]], group: str, lang: str = "en", retaken: int = 0, load=None
) -> pd.DataFrame:
    """Rows: each metric at each percentile, then throughput; a column per run (the median over the
    rounds) and, with both runs, B ÷ A paired round by round, with its interval, n and verdict (the load
    beside them in the ratio column's name)."""
    slots = [s for s in ("a", "b") if s in rounds[0]]
    first = [rounds[0][s] for s in slots]
    names = [run_name(r, lang) for r in first]
    summaries = [r.summary(ids_in(r, group)) for r in first]  # n: how many values are behind a percentile
    rows = []
    for m in (*METRICS, THROUGHPUT):
        n = min(x[m]["n"] for x in summaries) if m != THROUGHPUT else 0
        for s in shown_stats(STATS, n) if m != THROUGHPUT else ("—",):
            label = t(f"sv_m_{m}", lang) if m != THROUGHPUT else t("sv_m_throughput", lang)
            row = {t("sv_col_metric", lang): label, t("sv_col_stat", lang): stat_label(s, n, lang) if n else s}
            row |= {name: median_of(round_values(rounds, slot, group, m, s)) for name, slot in zip(names, slots)}
            if len(slots) == 2:
                r = paired_ratio(rounds, group, m, s, retaken)  # the load stands in the column's name
                row[ratio_column(lang, load)] = ratio_text(r, lang)
                row[t("sv_col_verdict", lang)] = verdict_text(r, lang, t("sv_b_higher", lang), t("sv_b_lower", lang))
            rows.append(row)
    return pd.DataFrame(rows)


def metrics_figure(rounds: list[dict[str, PolicyRun]], group: str, lang: str = "en") -> go.Figure:
    """One panel per metric, P50 / P90 / P99 bars of each run side by side (each with its n), the
    median over the rounds."""
    titles = [t(f"sv_m_{m}", lang) for m in METRICS]
    fig = make_subplots(rows=1, cols=len(METRICS), subplot_titles=titles, horizontal_spacing=0.06)
    runs = [rounds[0][s] for s in ("a", "b") if s in rounds[0]]
    summaries = [run.summary(ids_in(run, group)) for run in runs]
    counts = {m: min(x[m]["n"] for x in summaries) for m in METRICS}
    for run in runs:
        for col, m in enumerate(METRICS, start=1):
            stats = shown_stats(STATS, counts[m])
            fig.add_trace(
                go.Bar(
                    x=[stat_label(s, counts[m], lang) for s in stats],
                    y=[median_of(round_values(rounds, run.slot, group, m, s)) for s in stats],
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
