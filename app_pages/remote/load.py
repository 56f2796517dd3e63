"""A load on the server: GuideLLM's modes with real concurrent streams, the server's /metrics read
beside it, live progress and a Stop; then the percentiles, each request's timeline and the server's
own gauges and TTFT histogram over the run, and each run judged at an SLO (goodput) with the server's
account of a miss."""

from __future__ import annotations

import asyncio
import time
from contextlib import nullcontext

import pandas as pd
import streamlit as st

from app_pages.remote import keys
from app_pages.remote.capacity import SLO_DEFAULTS
from app_pages.remote.connect import Connection
from app_pages.remote.figures import gantt_figure, server_figure, sweep_figure
from app_pages.remote.load_form import check_public, form_plans, load_controls
from app_pages.remote.outcome import escaped, render_outcome
from app_pages.remote.pools import form_pools, render_pools
from app_pages.remote.report import server_ttft_text
from app_pages.remote.saving import download_buttons
from app_pages.remote.strings import t
from engine.errors import LabError
from lab.catalogues import Message, word
from lab.load_capacity import judge_run
from lab.remote_load import LoadPlan, LoadRun, watched_load
from lab.remote_metrics import MetricsWatch
from lab.remote_trace import Saved
from lab.slo import Goodput
from lab.slo_cause import explain
from ui.errors import show_error, show_message
from ui.percentile_labels import stat_cell
from ui.public import CappedError, public_settings
from ui.queue_wait import take_turn
from ui.slo_box import slo_box, verdict_row, verdict_table
from ui.tables import short_labels, show_table
from ui.text import md_escape
from ui.widgets import whole_number


async def _run_live(
    conn: Connection, model: str, run: LoadRun, seen: MetricsWatch, bar, label: str, lang: str, pools: dict, stop=None
) -> None:
    def show(run: LoadRun) -> None:
        finished = sum(1 for r in run.results if r.done)
        failed = sum(1 for r in run.results if r.error)
        bar.progress(
            min(1.0, finished / run.plan.max_requests),
            text=label + t("rm_load_running", lang, done=finished, total=run.plan.max_requests, failed=failed),
        )

    if not conn.kind:  # not watched: why, as found on connecting
        seen.note = conn.metrics_note or None
    await watched_load(conn.endpoint, model, run, seen, stop, read_metrics=bool(conn.kind), progress=show, pools=pools)


def _asked_plans(lang: str) -> list[LoadPlan] | None:
    """The form's loads within a public server's caps, or None with the reason shown."""
    synthetic = st.session_state[keys.PROMPTS] == "synthetic"
    try:
        with st.spinner(t("rm_prompts_cutting", lang)) if synthetic else nullcontext():
            plans = form_plans(lang)
        check_public(plans, lang)
    except CappedError as exc:
        show_error(exc, lang)
        return None
    except LabError as exc:
        show_message(str(exc))
        return None
    return plans


def _run_all(conn: Connection, plans: list[LoadPlan], pools: dict, lang: str) -> None:
    """Each load in turn, kept as it fills (a Stop leaves what ran). On a public server the loads
    together end within the time limit (PUBLIC_BUDGET_S at most): a sweep cannot hold the turn longer."""
    runs = [(LoadRun(plan, start=time.perf_counter()), MetricsWatch()) for plan in plans]
    st.session_state[keys.LOAD_RESULT] = runs
    ends = time.perf_counter() + whole_number(st.session_state[keys.DURATION])
    stop = (lambda: time.perf_counter() > ends) if public_settings().enabled else None
    slot = st.empty()
    with slot.container():
        st.button(t("stop", lang), key=keys.STOP, icon=":material/stop_circle:")
        bar = st.progress(0.0)
    for i, (run, seen) in enumerate(runs):
        if stop is not None and stop():
            break
        label = t("rm_sweep_step", lang, rate=run.plan.rate, k=i + 1, n=len(runs)) if len(runs) > 1 else ""
        asyncio.run(_run_live(conn, st.session_state[keys.MODEL], run, seen, bar, label, lang, pools, stop))
    slot.empty()


def render_load(conn: Connection, lang: str) -> None:
    if load_controls(lang):
        plans = _asked_plans(lang)
        pools = form_pools(conn.endpoint) if plans else None
        if plans and pools is not None:
            with take_turn(lang) as go:  # on a public server: a turn, counted against the per-minute limit
                if go:
                    _run_all(conn, plans, pools, lang)
    kept = [(run, seen) for run, seen in st.session_state.get(keys.LOAD_RESULT) or [] if run.results]
    if not kept:  # nothing was sent (a Stop before the first request, or no run yet)
        return
    render_runs(kept, lang)
    download_buttons(Saved(conn.endpoint.base_url, st.session_state[keys.MODEL], conn.kind, kept), lang, keys.DL_LOAD)


def render_runs(kept: list[tuple[LoadRun, MetricsWatch]], lang: str, prefix: str = "") -> None:
    """A sweep's table and curve when there are several runs, then the last one in detail, then the
    goodput verdict of each."""
    if len(kept) > 1:
        render_sweep([run for run, _ in kept], lang, prefix)
    run, seen = kept[-1]  # the last (the highest rate of a sweep)
    render_run(run, seen, lang, prefix)
    render_goodput(kept, lang, prefix)


def load_name(run: LoadRun, lang: str) -> str:
    plan = run.plan
    if plan.mode in ("constant", "poisson"):
        return t("rm_gp_load_rate", lang, rate=plan.rate)
    if plan.mode == "concurrent":
        return t("rm_gp_load_concurrent", lang, n=plan.concurrency)
    return t("rm_gp_load_other", lang, mode=plan.mode, n=len(run.results))


def why_cell(run: LoadRun, seen: MetricsWatch, g: Goodput, lang: str) -> str:
    if g.holds or g.limiting is None:
        return "—"
    in_flight = {"synchronous": 1, "concurrent": run.plan.concurrency}.get(run.plan.mode)
    cause = explain(seen, g.limiting, in_flight)
    return word(cause.message(), lang) if cause is not None else t("rm_gp_no_metrics", lang)


def render_goodput(kept: list[tuple[LoadRun, MetricsWatch]], lang: str, prefix: str = "") -> None:
    """Every run judged at the SLO the box sets, with the server's account of a miss."""
    st.subheader(t("rm_gp_header", lang))
    st.caption(t("rm_gp_intro", lang))
    slo = slo_box(lang, prefix + keys.LOAD_SLO_PREFIX, SLO_DEFAULTS)
    if slo is None:
        return
    rows = []
    for run, seen in kept:
        failed = run.nothing_timed()
        if failed is not None:  # nothing got through: no verdict over it, but why
            no_verdict = word(Message("load_no_verdict", {"failed": escaped(failed)}), lang)
            st.error(f"{md_escape(load_name(run, lang))}: {no_verdict}", icon=":material/error:")
            continue
        g = judge_run(slo, run)
        first = {t("rm_gp_col_load", lang): load_name(run, lang)}
        rows.append(verdict_row(first, g, lang) | {t("rm_gp_col_why", lang): why_cell(run, seen, g, lang)})
    if rows:
        verdict_table(rows, prefix + keys.LOAD_GOODPUT_TABLE, lang, short_labels(t, lang, "rm_gp_col_why"))


def summary_table(run: LoadRun, lang: str) -> pd.DataFrame:
    summary = run.summary()
    rows = []
    for key, label in (("ttft_ms", "TTFT"), ("tpot_ms", "TPOT"), ("itl_ms", "ITL"), ("e2e_ms", "E2E")):
        p = summary[key]
        rows.append(
            {
                t("rm_col_metric", lang): label,
                "n": p["n"],
                **{s.upper(): stat_cell(p[s], s, p["n"]) for s in ("p50", "p90", "p99")},
                "mean": "—" if p["mean"] != p["mean"] else f"{p['mean']:,.1f}",  # as the other cells: 19.0, 1,371.0
            }
        )
    return pd.DataFrame(rows)


def render_run(run: LoadRun, seen: MetricsWatch, lang: str, prefix: str = "") -> None:
    """One load's results; `prefix` keeps element keys apart when a saved run is shown too."""
    summary = run.summary()
    render_outcome(run, lang)
    if not run.results:
        return
    prompts = {r.request.prompt for r in run.results}
    if len(prompts) < len(run.results):
        st.caption(t("rm_prompts_repeat", lang, n=len(run.results), k=len(prompts)))
    if run.timed:
        show_table(summary_table(run, lang), key=prefix + keys.SUMMARY_TABLE)
        st.caption(t("rm_throughput", lang, rps=summary["requests_per_s"], tps=summary["output_tokens_per_s"]))
    st.plotly_chart(gantt_figure(run, lang), key=prefix + keys.FIG_GANTT)
    if seen.snapshots:
        st.plotly_chart(server_figure(seen, run.start, lang), key=prefix + keys.FIG_SERVER)
        ttft = seen.over_run("ttft")
        if ttft is not None and ttft.count:
            st.caption(server_ttft_text(ttft, lang))
    else:
        st.caption(md_escape(t("rm_server_none", lang, note=seen.note or t("rm_server_unread", lang))))
    render_pools(seen, run.start, lang, prefix)


def sweep_table(runs: list[LoadRun], lang: str) -> pd.DataFrame:
    rows = []
    for run in runs:
        summary = run.summary()
        rows.append(
            {
                t("rm_col_rate", lang): run.plan.rate,
                t("rm_col_achieved", lang): round(summary["requests_per_s"], 2),
                t("rm_col_tokens", lang): round(summary["output_tokens_per_s"], 1),
                "TTFT P50": round(summary["ttft_ms"]["p50"], 1),
                "TTFT P99": stat_cell(summary["ttft_ms"]["p99"], "p99", summary["ttft_ms"]["n"]),
                "TPOT P50": round(summary["tpot_ms"]["p50"], 1),
                t("rm_col_finished", lang): f"{summary['finished']} / {summary['requests']}",
            }
        )
    return pd.DataFrame(rows)


def render_sweep(runs: list[LoadRun], lang: str, prefix: str = "") -> None:
    st.subheader(t("rm_sweep_header", lang))
    show_table(sweep_table(runs, lang), key=prefix + keys.SWEEP_TABLE)
    st.plotly_chart(sweep_figure(runs, lang), key=prefix + keys.FIG_SWEEP)
    st.caption(t("rm_sweep_caption", lang))
