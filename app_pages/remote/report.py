"""A remote run as a standalone HTML page (the "Download report" button): the server, each load's
plan, the percentiles, the sweep curve, each request's timeline and the server's own gauges (and each
pool's), as the page draws them (ui/report_page.py embeds plotly.js once, so it opens offline). The API key
is never part of it: the URL is shown without credentials."""

from __future__ import annotations

from datetime import UTC, datetime

from app_pages.remote.figures import chunks_figure, gantt_figure, gauges_figure, server_figure, sweep_figure
from app_pages.remote.outcome import Line, outcome_lines
from app_pages.remote.strings import t
from engine.observe.request_metrics import tail_is_max
from lab.remote_load import LoadRun
from lab.remote_metrics import MetricsWatch
from lab.remote_trace import Saved, public_url
from ui.percentile_labels import stat_cell
from ui.report_page import figures_html, heading, html_document, muted, table_html
from ui.text import html_text

METRICS = (("ttft_ms", "TTFT"), ("tpot_ms", "TPOT"), ("itl_ms", "ITL"), ("e2e_ms", "E2E"))


def _fmt(x: float | None, digits: int = 1) -> str:
    return "—" if x is None or x != x else f"{x:,.{digits}f}"


def plan_line(run: LoadRun, lang: str) -> str:
    p = run.plan
    detail = {
        "concurrent": t("rm_plan_concurrency", lang, n=p.concurrency),
        "constant": t("rm_plan_rate", lang, rate=p.rate),
        "poisson": t("rm_plan_rate", lang, rate=p.rate),
    }
    return t(
        "rm_plan_line",
        lang,
        mode=t(f"rm_mode_{p.mode}", lang),
        n=p.max_requests,
        detail=detail.get(p.mode, ""),
        limit=p.max_duration_s,
    )


def _banner(line: Line) -> str:
    """A run's outcome line, coloured by its tone; a server's words as a list."""
    items = "".join(f"<li>{html_text(item)}</li>" for item in line.items)
    return (
        f'<div class="rp-banner rp-{line.tone}"><p>{html_text(line.text)}</p>'
        + (f"<ul>{items}</ul>" if items else "")
        + (f"<p>{html_text(line.note)}</p>" if line.note else "")
        + "</div>"
    )


def _percentiles(summary: dict, lang: str) -> str:
    rows = [
        [
            label,
            str(summary[key]["n"]),
            *(stat_cell(summary[key][p], p, summary[key]["n"]) for p in ("p50", "p90", "p99")),
            _fmt(summary[key]["mean"]),
        ]
        for key, label in METRICS
    ]
    return table_html([t("rm_col_metric", lang), "n", "P50", "P90", "P99", "mean"], rows)


def _sweep(runs: list[LoadRun], lang: str) -> list[str]:
    rows = []
    for run in runs:
        s = run.summary()
        rows.append(
            [
                f"{run.plan.rate:g}",
                _fmt(s["requests_per_s"], 2),
                _fmt(s["output_tokens_per_s"]),
                _fmt(s["ttft_ms"]["p50"]),
                stat_cell(s["ttft_ms"]["p99"], "p99", s["ttft_ms"]["n"]),
                _fmt(s["tpot_ms"]["p50"]),
                f"{s['finished']} / {s['requests']}",
            ]
        )
    header = [
        t("rm_col_rate", lang),
        t("rm_col_achieved", lang),
        t("rm_col_tokens", lang),
        "TTFT P50",
        "TTFT P99",
        "TPOT P50",
        t("rm_col_finished", lang),
    ]
    return [
        heading(t("rm_sweep_header", lang)),
        table_html(header, rows),
        figures_html({"sweep": sweep_figure(runs, lang)}),
        muted(t("rm_sweep_caption", lang)),
    ]


def server_ttft_text(ttft, lang: str) -> str:
    """The server's own TTFT histogram over a load, in words: P50, and P99 once 100 requests resolve it."""
    n = int(ttft.count)
    tail = (
        t("rm_server_no_p99", lang) if tail_is_max(99, n) else t("rm_server_p99", lang, p99=1e3 * ttft.quantile(0.99))
    )
    return t("rm_server_hist", lang, p50=1e3 * ttft.quantile(0.5), tail=tail, n=n)


def _server_note(seen: MetricsWatch, lang: str) -> str:
    ttft = seen.over_run("ttft")
    if ttft is not None and ttft.count:
        return muted(server_ttft_text(ttft, lang))
    if not seen.snapshots:
        return muted(t("rm_server_none", lang, note=seen.note or t("rm_server_unread", lang)))
    return ""


def _run(run: LoadRun, seen: MetricsWatch, lang: str, with_plotly_js: bool) -> list[str]:
    summary = run.summary()
    parts = [heading(t("rm_report_run", lang)), f"<p>{html_text(plan_line(run, lang))}</p>"]
    parts += [_banner(line) for line in outcome_lines(run, lang)]
    if not run.timed:
        return parts
    parts += [
        _percentiles(summary, lang),
        muted(t("rm_throughput", lang, rps=summary["requests_per_s"], tps=summary["output_tokens_per_s"])),
    ]
    single = run.results[0] if len(run.results) == 1 else None
    if single is not None and single.text:
        parts += [heading(t("rm_report_reply", lang)), f'<div class="pd-output">{html_text(single.text)}</div>']
    figures = {"gantt": gantt_figure(run, lang)}
    if single is not None:
        figures["chunks"] = chunks_figure(single, lang)
    if seen.snapshots:
        figures["server"] = server_figure(seen, run.start, lang)
    if any(pool.snapshots for pool in seen.pools.values()):
        figures["pools"] = gauges_figure(seen.pools, run.start, t("rm_fig_pools", lang), lang)
    return parts + [figures_html(figures, with_plotly_js), _server_note(seen, lang)]


def report_html(saved: Saved, lang: str = "en") -> str:
    title = t("rm_report_title", lang)
    body = [
        f"<h1>{html_text(title)}</h1>",
        muted(
            t(
                "rm_report_intro",
                lang,
                url=public_url(saved.base_url),
                model=saved.model,
                kind=saved.kind or t("rm_kind_none", lang),
                created=saved.created or datetime.now(UTC).isoformat(timespec="seconds"),
            )
        ),
    ]
    runs = [run for run, _ in saved.runs]
    if len(runs) > 1:
        body += _sweep(runs, lang)
    run, seen = saved.runs[-1]
    body += _run(run, seen, lang, with_plotly_js=len(runs) == 1)
    body.append(muted(t("rm_report_footer", lang)))
    return html_document(title, body, lang)
