"""A load on the server: GuideLLM's modes with real concurrent streams, the server's /metrics read
beside it, live progress and a Stop; then the percentiles, each request's timeline and the server's
own gauges and TTFT histogram over the run, and each run judged at an SLO (goodput) with the server's
account of a miss."""

from __future__ import annotations

import asyncio
import time
from contextlib import nullcontext
from pathlib import Path

import pandas as pd
import streamlit as st

from app_pages.remote import keys
from app_pages.remote.capacity import SLO_DEFAULTS
from app_pages.remote.connect import Connection
from app_pages.remote.figures import gantt_figure, server_figure, sweep_figure
from app_pages.remote.outcome import render_outcome
from app_pages.remote.pools import form_pools, pools_field, render_pools
from app_pages.remote.report import server_ttft_text
from app_pages.remote.saving import download_buttons
from app_pages.remote.strings import t
from engine.errors import LabError
from engine.loader.model_loader import BUNDLED_NAME, convert_bundled, load_tokenizer
from lab.catalogues import word
from lab.load_capacity import judge_run
from lab.remote_client import RemoteRequest
from lab.remote_load import MODES, LoadPlan, LoadRun, watched_load, workload_plan
from lab.remote_metrics import MetricsWatch
from lab.remote_trace import Saved
from lab.slo import Goodput
from lab.slo_cause import explain
from lab.synthetic_prompts import MAX_PROMPT_TOKENS, exact_prompts
from lab.workload import PRESET_NAMES, QUESTIONS, preset
from ui.errors import show_message
from ui.percentile_labels import stat_cell
from ui.public import public_settings
from ui.public_caps import cap_help, capped
from ui.slo_box import slo_box, verdict_row, verdict_table
from ui.text import md_escape
from ui.widget_state import KEEP
from ui.widgets import whole_number, whole_number_box

PAGE_MODES = (*MODES, "sweep")  # sweep: constant load at each rate in turn
PROMPT_SETS = ("questions", "synthetic")


@st.cache_resource(show_spinner=False)
def workload_tokenizer():
    """The bundled model's tokenizer, to cut the serving lab's workloads into text prompts."""
    return load_tokenizer(convert_bundled())


@st.cache_resource(show_spinner=False, max_entries=4)
def named_tokenizer(name: str):
    """A tokenizer from a local folder or a hub id (LabError when it cannot be loaded)."""
    return load_tokenizer(Path(name).expanduser() if Path(name).expanduser().is_dir() else Path(name))


def prompt_tokenizer() -> tuple[object, str]:
    """The synthetic prompts' tokenizer and its name: the one the form names, else the bundled
    model's (always in public mode: a visitor's folder or hub id would make this server read it)."""
    name = (st.session_state.get(keys.TOKENIZER) or "").strip()
    if not name or public_settings().enabled:
        return workload_tokenizer(), BUNDLED_NAME
    return named_tokenizer(name), name


def _controls(lang: str) -> bool:
    with st.form(keys.RUN_LOAD + "_form", border=False):
        st.radio(
            t("rm_mode", lang),
            PAGE_MODES,
            key=keys.MODE,
            horizontal=True,
            format_func=lambda m: t(f"rm_mode_{m}", lang),
            persist_state=KEEP,
        )
        c = st.columns(5)
        most = capped("max_requests", 1000, keys.REQUESTS)
        whole_number_box(
            c[0],
            t("rm_requests", lang),
            1,
            most,
            keys.REQUESTS,
            value=min(16, most),
            help=cap_help("max_requests", lang, t("rm_requests_help", lang)),
        )
        whole_number_box(c[1], t("rm_concurrency", lang), 1, 256, keys.CONCURRENCY, value=4)
        c[2].number_input(t("rm_rate", lang), 0.1, 1000.0, 2.0, step=0.5, key=keys.RATE, persist_state=KEEP)
        whole_number_box(c[3], t("rm_duration", lang), 1, 3600, keys.DURATION, value=120)
        whole_number_box(
            c[4], t("rm_load_tokens", lang), 1, 4096, keys.LOAD_TOKENS, value=32, help=t("rm_load_tokens_help", lang)
        )
        c1, c2, c3 = st.columns([2, 2, 1.4], vertical_alignment="bottom")
        c1.selectbox(
            t("rm_preset", lang), PRESET_NAMES, key=keys.PRESET, help=t("rm_preset_help", lang), persist_state=KEEP
        )
        c2.text_input(
            t("rm_rates", lang), "0.5, 1, 2, 4", key=keys.RATES, help=t("rm_rates_help", lang), persist_state=KEEP
        )
        c3.toggle(t("rm_unique", lang), True, key=keys.UNIQUE, help=t("rm_unique_help", lang), persist_state=KEEP)
        p1, p2, p3 = st.columns([2, 1.4, 2.6], vertical_alignment="bottom")
        p1.selectbox(
            t("rm_prompts", lang),
            PROMPT_SETS,
            key=keys.PROMPTS,
            format_func=lambda p: t(f"rm_prompts_{p}", lang),
            help=t("rm_prompts_help", lang),
            persist_state=KEEP,
        )
        whole_number_box(p2, t("rm_prompt_tokens", lang), 1, MAX_PROMPT_TOKENS, keys.PROMPT_TOKENS, value=128)
        public = public_settings().enabled
        p3.text_input(
            t("rm_tokenizer", lang),
            "",
            key=keys.TOKENIZER,
            placeholder=t("rm_tokenizer_bundled", lang, name=BUNDLED_NAME),
            help=t("rm_tokenizer_public" if public else "rm_tokenizer_help", lang),
            disabled=public,
            persist_state=KEEP,
        )
        pools_field(lang)
        return st.form_submit_button(t("rm_run_load", lang), type="primary", icon=":material/speed:")


def _requests(first: int = 0) -> list[RemoteRequest]:
    """Replies of exactly the asked length, as benchmark tools ask for them (a server that does not honour
    ignore_eos is pointed out under the results); with unique starts, one numbered prompt per request,
    numbered from `first` (no two share a prefix a server could have cached, across a sweep's loads too).
    Synthetic prompts (always numbered) go to the completions API: a chat template would add its own
    tokens to their exact length."""
    s = st.session_state
    tokens = whole_number(s[keys.LOAD_TOKENS])
    if s[keys.PROMPTS] == "synthetic":
        tokenizer, name = prompt_tokenizer()
        length = whole_number(s[keys.PROMPT_TOKENS])
        return [
            RemoteRequest(p, tokens, chat=False, ignore_eos=True, prompt_tokens=length, tokenizer=name)
            for p in exact_prompts(tokenizer, length, whole_number(s[keys.REQUESTS]), first)
        ]
    if not s[keys.UNIQUE]:
        return [RemoteRequest(q, tokens, chat=True, ignore_eos=True) for q in QUESTIONS]
    n = whole_number(s[keys.REQUESTS])
    return [
        RemoteRequest(f"({first + i + 1}) {QUESTIONS[i % len(QUESTIONS)]}", tokens, chat=True, ignore_eos=True)
        for i in range(n)
    ]


def _plan(rate: float | None = None, first: int = 0) -> LoadPlan:
    """The form's load; a sweep's rate, and where its prompts' numbers start, when it is one of a sweep."""
    s = st.session_state
    if s[keys.MODE] == "workload":
        return workload_plan(
            workload_tokenizer(),
            preset(s[keys.PRESET], workload_tokenizer()),
            max_duration_s=whole_number(s[keys.DURATION]),
        )
    mode = "constant" if rate is not None else s[keys.MODE]
    return LoadPlan(
        mode,
        _requests(first),
        max_requests=whole_number(s[keys.REQUESTS]),
        concurrency=whole_number(s[keys.CONCURRENCY]),
        rate=rate or float(s[keys.RATE]),
        max_duration_s=whole_number(s[keys.DURATION]),
    )


def sweep_rates(text: str, lang: str) -> list[float]:
    try:
        rates = [float(x) for x in text.replace(";", ",").split(",") if x.strip()]
    except ValueError:
        rates = []
    if not rates or len(rates) > 12 or any(not 0 < r <= 1000 for r in rates):
        raise LabError(t("rm_bad_rates", lang, text=text))
    return sorted(set(rates))


async def _run_live(
    conn: Connection, model: str, run: LoadRun, seen: MetricsWatch, bar, label: str, lang: str, pools: dict
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
    await watched_load(conn.endpoint, model, run, seen, read_metrics=bool(conn.kind), progress=show, pools=pools)


def _plans(lang: str) -> list[LoadPlan]:
    """The form's loads: one, or a sweep's one per rate."""
    s = st.session_state
    if s[keys.MODE] != "sweep":
        return [_plan()]
    return [_plan(rate, k * whole_number(s[keys.REQUESTS])) for k, rate in enumerate(sweep_rates(s[keys.RATES], lang))]


def render_load(conn: Connection, lang: str) -> None:
    if _controls(lang):
        synthetic = st.session_state[keys.PROMPTS] == "synthetic"
        try:
            with st.spinner(t("rm_prompts_cutting", lang)) if synthetic else nullcontext():
                plans = _plans(lang)
        except LabError as exc:
            show_message(str(exc))
            return
        pools = form_pools(conn.endpoint)
        if pools is None:
            return
        runs = [(LoadRun(plan, start=time.perf_counter()), MetricsWatch()) for plan in plans]
        st.session_state[keys.LOAD_RESULT] = runs  # kept as they fill: Stop leaves what ran
        slot = st.empty()
        with slot.container():
            st.button(t("stop", lang), key=keys.STOP, icon=":material/stop_circle:")
            bar = st.progress(0.0)
        for i, (run, seen) in enumerate(runs):
            label = t("rm_sweep_step", lang, rate=run.plan.rate, k=i + 1, n=len(runs)) if len(runs) > 1 else ""
            asyncio.run(_run_live(conn, st.session_state[keys.MODEL], run, seen, bar, label, lang, pools))
        slot.empty()
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
        g = judge_run(slo, run)
        first = {t("rm_gp_col_load", lang): load_name(run, lang)}
        rows.append(verdict_row(first, g, lang) | {t("rm_gp_col_why", lang): why_cell(run, seen, g, lang)})
    verdict_table(rows, prefix + keys.LOAD_GOODPUT_TABLE, lang)


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
        st.dataframe(summary_table(run, lang), hide_index=True, key=prefix + keys.SUMMARY_TABLE)
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
    st.dataframe(sweep_table(runs, lang), hide_index=True, key=prefix + keys.SWEEP_TABLE)
    st.plotly_chart(sweep_figure(runs, lang), key=prefix + keys.FIG_SWEEP)
    st.caption(t("rm_sweep_caption", lang))
