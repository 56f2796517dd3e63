"""Beside our engine: the same requests, all sent at once, on this lab's engine in this process (the
sidebar's model) and on the connected server, with one table of P50s and the server/local ratio."""

from __future__ import annotations

import asyncio
import math
from dataclasses import dataclass

import pandas as pd
import streamlit as st

from app_pages.remote import keys
from app_pages.remote.connect import Connection
from app_pages.remote.outcome import render_outcome
from app_pages.remote.strings import t
from engine import EngineConfig
from engine.errors import LabError
from lab.remote_client import RemoteRequest
from lab.remote_load import LoadPlan, LoadRun, run_load
from lab.workload import QUESTIONS, RequestSpec, run_workload, summarize
from ui.errors import show_message
from ui.models import get_registry, load_for_page
from ui.public_caps import cap_help, capped
from ui.queue_wait import take_turn
from ui.sidebar import CHOICE_KEY
from ui.tables import show_table
from ui.widgets import whole_number, whole_number_box

METRICS = (("ttft_ms", "TTFT P50 (ms)"), ("tpot_ms", "TPOT P50 (ms)"), ("e2e_ms", "E2E P50 (ms)"))


@dataclass
class Beside:
    local_model: str
    local: dict  # lab.workload.summarize of the in-process run
    remote: dict  # LoadRun.summary of the server run
    failed: int
    run: LoadRun | None = None  # the server run itself (its replies, their finish reasons)


def _controls(lang: str) -> bool:
    with st.form(keys.RUN_BESIDE + "_form", border=False):
        c1, c2 = st.columns(2)
        most = capped("max_requests", 64, keys.BESIDE_REQUESTS)
        whole_number_box(
            c1,
            t("rm_requests", lang),
            1,
            most,
            keys.BESIDE_REQUESTS,
            value=min(8, most),
            help=cap_help("max_requests", lang),
        )
        most = capped("max_new_tokens", 512, keys.BESIDE_TOKENS)
        whole_number_box(
            c2,
            t("rm_load_tokens", lang),
            1,
            most,
            keys.BESIDE_TOKENS,
            value=min(16, most),
            help=cap_help("max_new_tokens", lang),
        )
        return st.form_submit_button(t("rm_run_beside", lang), type="primary", icon=":material/compare_arrows:")


def run_beside(conn: Connection, model: str, bundle, n: int, new_tokens: int) -> Beside:
    prompts = [QUESTIONS[i % len(QUESTIONS)] for i in range(n)]
    specs = [RequestSpec(0.0, bundle.tokenizer(p).input_ids, new_tokens, f"#{i + 1}") for i, p in enumerate(prompts)]
    config = EngineConfig(probe_memory=False, max_num_seqs=max(16, n))
    with get_registry().step_lock:  # timed: no other session's step in between
        trace, _ = run_workload(bundle.model, bundle.tokenizer, specs, config)
    requests = [RemoteRequest(p, new_tokens, chat=False, ignore_eos=True) for p in prompts]
    run = asyncio.run(run_load(conn.endpoint, model, LoadPlan("concurrent", requests, max_requests=n, concurrency=n)))
    summary = run.summary()
    return Beside(bundle.name, summarize(trace), summary, summary["failed"], run)


def three_figures(value: float) -> float:
    """At least three significant figures (0.974, 3.82, 38.2, 1234.5): the ratio beside two values
    then agrees with the values as shown, also for a tiny model's sub-millisecond TPOT."""
    if not math.isfinite(value) or value == 0:
        return value
    return round(value, max(1, 2 - math.floor(math.log10(abs(value)))))


def beside_table(b: Beside, lang: str) -> pd.DataFrame:
    rows = []
    for key, label in METRICS:
        local, remote = b.local[key]["p50"], b.remote[key]["p50"]
        rows.append(
            {
                t("rm_col_metric", lang): label,
                t("rm_col_local", lang): three_figures(local),
                t("rm_col_server", lang): three_figures(remote),
                t("rm_col_ratio", lang): round(remote / local, 2),
            }
        )
    local, remote = b.local["throughput_tok_s"], b.remote["output_tokens_per_s"]
    rows.append(
        {
            t("rm_col_metric", lang): t("rm_col_tokens", lang),
            t("rm_col_local", lang): three_figures(local),
            t("rm_col_server", lang): three_figures(remote),
            t("rm_col_ratio", lang): round(remote / local, 2),
        }
    )
    return pd.DataFrame(rows)


def _run(conn: Connection, lang: str) -> None:
    bundle = load_for_page(st.session_state[CHOICE_KEY], lang)
    if bundle is None:
        return
    with st.spinner(t("rm_beside_running", lang)):
        try:
            st.session_state[keys.BESIDE_RESULT] = run_beside(
                conn,
                st.session_state[keys.MODEL],
                bundle,
                whole_number(st.session_state[keys.BESIDE_REQUESTS]),
                whole_number(st.session_state[keys.BESIDE_TOKENS]),
            )
        except LabError as exc:
            show_message(str(exc))


def render_beside(conn: Connection, lang: str) -> None:
    st.markdown(t("rm_beside_intro", lang))
    if _controls(lang):
        with take_turn(lang) as go:
            if go:
                _run(conn, lang)
    b: Beside | None = st.session_state.get(keys.BESIDE_RESULT)
    if b is None:
        return
    if b.run is not None:
        render_outcome(b.run, lang, with_finished=bool(b.failed))  # the reasons where the failures show
    if not b.remote["ttft_ms"]["n"]:
        return  # nothing timed on the server: nothing to compare
    show_table(beside_table(b, lang), key=keys.BESIDE_TABLE)
    st.caption(t("rm_beside_caption", lang, model=b.local_model))
