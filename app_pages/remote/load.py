"""A load on the server: GuideLLM's modes with real concurrent streams, the server's /metrics read
beside it, live progress and a Stop; then the percentiles, each request's timeline and the server's
own gauges and TTFT histogram over the run."""
from __future__ import annotations

import asyncio
import time

import pandas as pd
import streamlit as st

from app_pages.remote import keys
from app_pages.remote.connect import Connection
from app_pages.remote.figures import gantt_figure, server_figure
from app_pages.remote.strings import t
from lab.remote_client import RemoteRequest
from lab.remote_load import MODES, LoadPlan, LoadRun, run_load
from lab.remote_metrics import MetricsWatch, watch
from lab.workload import QUESTIONS
from ui.errors import show_message
from ui.text import md_escape

PAGE_MODES = tuple(m for m in MODES if m != "workload")


def _controls(lang: str) -> bool:
    with st.form(keys.RUN_LOAD + "_form", border=False):
        st.radio(t("rm_mode", lang), PAGE_MODES, key=keys.MODE, horizontal=True,
                 format_func=lambda m: t(f"rm_mode_{m}", lang))
        c = st.columns(5)
        c[0].number_input(t("rm_requests", lang), 1, 1000, 16, key=keys.REQUESTS)
        c[1].number_input(t("rm_concurrency", lang), 1, 256, 4, key=keys.CONCURRENCY)
        c[2].number_input(t("rm_rate", lang), 0.1, 1000.0, 2.0, step=0.5, key=keys.RATE)
        c[3].number_input(t("rm_duration", lang), 1, 3600, 120, key=keys.DURATION)
        c[4].number_input(t("rm_load_tokens", lang), 1, 4096, 32, key=keys.LOAD_TOKENS)
        return st.form_submit_button(t("rm_run_load", lang), type="primary", icon=":material/speed:")


def _plan() -> LoadPlan:
    s = st.session_state
    requests = [RemoteRequest(q, int(s[keys.LOAD_TOKENS]), chat=True) for q in QUESTIONS]
    return LoadPlan(s[keys.MODE], requests, max_requests=int(s[keys.REQUESTS]), concurrency=int(s[keys.CONCURRENCY]),
                    rate=float(s[keys.RATE]), max_duration_s=float(s[keys.DURATION]))


async def _run_live(conn: Connection, model: str, run: LoadRun, seen: MetricsWatch, bar, lang: str) -> None:
    done = asyncio.Event()
    watcher = asyncio.create_task(watch(conn.endpoint, done)) if conn.kind else None
    load = asyncio.create_task(run_load(conn.endpoint, model, run.plan, run=run))
    try:
        while not load.done():
            finished = sum(1 for r in run.results if r.done)
            failed = sum(1 for r in run.results if r.error)
            bar.progress(min(1.0, finished / run.plan.max_requests),
                         text=t("rm_load_running", lang, done=finished, total=run.plan.max_requests, failed=failed))
            await asyncio.wait([load], timeout=0.25)
        load.result()
    finally:
        done.set()
        if watcher is not None:
            got = await watcher
            seen.snapshots, seen.note = got.snapshots, got.note


def render_load(conn: Connection, lang: str) -> None:
    if _controls(lang):
        try:
            plan = _plan()
        except ValueError as exc:
            show_message(str(exc))
            return
        run, seen = LoadRun(plan, start=time.perf_counter()), MetricsWatch()
        st.session_state[keys.LOAD_RESULT] = (run, seen)  # kept as it fills: Stop leaves what ran
        slot = st.empty()
        with slot.container():
            st.button(t("stop", lang), key=keys.STOP, icon=":material/stop_circle:")
            bar = st.progress(0.0)
        asyncio.run(_run_live(conn, st.session_state[keys.MODEL], run, seen, bar, lang))
        slot.empty()
    kept = st.session_state.get(keys.LOAD_RESULT)
    if kept is not None:
        render_run(*kept, lang)


def summary_table(run: LoadRun, lang: str) -> pd.DataFrame:
    summary = run.summary()
    rows = []
    for key, label in (("ttft_ms", "TTFT"), ("tpot_ms", "TPOT"), ("itl_ms", "ITL"), ("e2e_ms", "E2E")):
        p = summary[key]
        rows.append({t("rm_col_metric", lang): label, "P50": round(p["p50"], 1), "P90": round(p["p90"], 1),
                     "P99": round(p["p99"], 1), "mean": round(p["mean"], 1)})
    return pd.DataFrame(rows)


def render_run(run: LoadRun, seen: MetricsWatch, lang: str) -> None:
    summary = run.summary()
    end = run.end or (max((r.done or 0) for r in run.results) if run.results else run.start)
    stopped = run.stopped or run.end is None
    st.success(t("rm_load_done", lang, finished=summary["finished"], requests=summary["requests"], secs=max(0.0, end - run.start),
                 stopped=t("rm_load_stopped", lang) if stopped else ""), icon=":material/check_circle:")
    errors = [r.error for r in run.results if r.error]
    if errors:
        st.warning(md_escape(t("rm_load_errors", lang, n=len(errors), msg=errors[0])), icon=":material/warning:")
    if not summary["finished"]:
        return
    st.dataframe(summary_table(run, lang), hide_index=True, key=keys.SUMMARY_TABLE)
    st.caption(t("rm_throughput", lang, rps=summary["requests_per_s"], tps=summary["output_tokens_per_s"]))
    st.plotly_chart(gantt_figure(run, lang), key=keys.FIG_GANTT)
    if seen.snapshots:
        st.plotly_chart(server_figure(seen, run.start, lang), key=keys.FIG_SERVER)
        ttft = seen.over_run("ttft")
        if ttft is not None and ttft.count:
            st.caption(t("rm_server_hist", lang, p50=1e3 * ttft.quantile(0.5), p99=1e3 * ttft.quantile(0.99),
                         n=int(ttft.count)))
    else:
        st.caption(md_escape(t("rm_server_none", lang, note=seen.note or t("rm_kind_none", lang))))
