"""The memory lab's fourth tab: the KV leak of C16, measured. N consecutive requests through a
hand-written Hugging Face loop that keeps one cache for ever, and through the engine, which frees
each request's blocks; tensor memory left behind and milliseconds per token, request by request."""

from __future__ import annotations

import statistics

import pandas as pd
import streamlit as st

from app_pages.memory import keys
from app_pages.memory.figures import leak_memory_figure, leak_speed_figure
from app_pages.memory.strings import t
from engine.errors import LabError
from lab.busy import LoadMeter
from lab.claims_scaling import c16_check
from lab.memory_lab import HF_STEP_COST
from lab.verdicts import Verdict, explain
from ui.errors import show_error
from ui.memory_leak import MAX_NEW_TOKENS, MAX_REQUESTS, LeakResult, check_settings, hf_model, run_engine, run_naive
from ui.models import get_registry
from ui.progress import PacedBar
from ui.public_caps import cap_help, capped
from ui.queue_wait import take_turn
from ui.tables import show_table
from ui.theme import MIB, fmt_bytes
from ui.widget_state import seed
from ui.widgets import whole_number, whole_number_box

DEFAULTS = {keys.LEAK_N: 8, keys.LEAK_NEW: 8}


def _controls(lang: str) -> bool:
    seed(DEFAULTS)
    with st.form(keys.LEAK_FORM):
        c1, c2 = st.columns(2)
        most = capped("max_requests", MAX_REQUESTS, keys.LEAK_N, 2)
        whole_number_box(c1, t("mem_leak_n", lang), 2, most, keys.LEAK_N, help=cap_help("max_requests", lang))
        whole_number_box(
            c2,
            t("max_new_tokens", lang),
            1,
            capped("max_new_tokens", MAX_NEW_TOKENS, keys.LEAK_NEW),
            keys.LEAK_NEW,
            help=cap_help("max_new_tokens", lang),
        )
        return st.form_submit_button(
            t("mem_leak_run", lang), type="primary", icon=":material/water_drop:", key=keys.LEAK_RUN
        )


def _run(bundle, lang: str) -> None:
    n, new = whole_number(st.session_state[keys.LEAK_N]), whole_number(st.session_state[keys.LEAK_NEW])
    try:
        check_settings(n, new, bundle.model.config.max_position, lang)
    except LabError as exc:
        show_error(exc, lang)
        return
    kv_per_token = bundle.model.config.kv_bytes_per_token(4)  # transformers' cache here is float32
    result, lock = LeakResult(n, new, kv_bytes_per_token=kv_per_token), get_registry().step_lock
    with st.status(t("mem_leak_running", lang, n=n), expanded=True) as box:
        bar = PacedBar(st.progress(0.0, text=t("mem_leak_stage_hf", lang)), lang)

        def progress(loop: str, start: float, share: float, done: float) -> None:
            bar.progress(start + share * done, text=t(f"mem_leak_stage_{loop}", lang, n=n, k=min(n, int(done * n) + 1)))

        naive_share = HF_STEP_COST / (HF_STEP_COST + 1)  # the work of each loop, in engine decode steps
        try:
            hf = hf_model(str(bundle.path))
            progress("naive", 0.0, naive_share, 0.0)
            meter = LoadMeter().start()
            run_naive(bundle, hf, result, lock, lambda f: progress("naive", 0.0, naive_share, f))
            progress("engine", naive_share, 1 - naive_share, 0.0)
            run_engine(bundle, result, lock, lambda f: progress("engine", naive_share, 1 - naive_share, f))
            result.load = meter.stop()
        except Exception as exc:  # noqa: BLE001 - a model transformers cannot load, or a failed loop
            box.update(label=t("mem_leak_failed", lang), state="error")
            show_error(exc, lang)
            return
        bar.progress(1.0, text=t("mem_leak_done", lang))
        box.update(label=t("mem_leak_done", lang), state="complete", expanded=False)
    st.session_state[keys.LEAK] = result


def _table(result: LeakResult, lang: str) -> pd.DataFrame:
    return pd.DataFrame(
        {
            t("mem_col_request", lang): [p.request + 1 for p in result.naive],
            t("mem_col_naive_mib", lang): [p.retained_bytes / MIB for p in result.naive],
            t("mem_col_naive_ctx", lang): [p.context_tokens for p in result.naive],
            t("mem_col_naive_ms", lang): [p.ms_per_token for p in result.naive],
            t("mem_col_engine_mib", lang): [p.retained_bytes / MIB for p in result.engine],
            t("mem_col_engine_ctx", lang): [p.context_tokens for p in result.engine],
            t("mem_col_engine_ms", lang): [p.ms_per_token for p in result.engine],
        }
    )


def _median_ms(points) -> float:
    return float(statistics.median(p.ms_per_token for p in points))


def _verdict(result: LeakResult) -> Verdict:
    """C16's check on this run's own numbers (the one the claims page runs): the leak is counted bytes;
    the load stands beside the ms per token it touched (_load_caption), never instead of the verdict."""
    return c16_check(
        [p.cache_bytes for p in result.naive],
        [p.ms_per_token for p in result.naive],
        [p.cache_bytes for p in result.engine],
    )


def _load_caption(result: LeakResult, lang: str) -> None:
    load = result.load
    if load is None:
        return
    if load.other_cores is None:
        st.caption(t("load_unknown", lang))
    else:
        st.caption(t("mem_leak_load", lang, other=load.other_cores, cores=load.cores))


def _show(result: LeakResult, lang: str) -> None:
    naive, ours = result.naive, result.engine
    c = st.columns(4)
    c[0].metric(
        t("mem_leak_m_naive", lang, n=result.n),
        fmt_bytes(naive[-1].retained_bytes),
        delta=t("mem_leak_m_growth", lang, b=fmt_bytes(result.growth_per_request)),
        delta_color="inverse",
    )
    c[1].metric(t("mem_leak_m_engine", lang, n=result.n), fmt_bytes(ours[-1].retained_bytes))
    c[2].metric(t("mem_leak_m_ctx", lang), f"{naive[-1].context_tokens:,}")
    c[3].metric(
        t("mem_leak_m_ms", lang),
        f"{_median_ms(naive):.0f} / {_median_ms(ours):.0f}",
        help=t("mem_leak_m_ms_help", lang),
    )
    _load_caption(result, lang)  # the ms per token are timings; the memory is not
    c1, c2 = st.columns(2)
    c1.plotly_chart(leak_memory_figure(naive, ours, lang), key=keys.FIG_LEAK_MEM)
    c2.plotly_chart(leak_speed_figure(naive, ours, lang), key=keys.FIG_LEAK_SPEED)
    st.markdown(
        t(
            "mem_leak_conclusion",
            lang,
            per_token=fmt_bytes(result.kv_bytes_per_token),
            verdict=explain(_verdict(result), lang),
        )
    )
    table = _table(result, lang)
    show_table(
        table,
        key=keys.LEAK_TABLE,
        column_config={col: st.column_config.NumberColumn(format="%.2f") for col in table.columns[[1, 3, 4, 6]]},
    )


def leak_panel(bundle, lang: str) -> None:
    st.markdown(t("mem_leak_explain", lang))
    if _controls(lang):
        with take_turn(lang) as go:
            if go:
                _run(bundle, lang)
    result: LeakResult | None = st.session_state.get(keys.LEAK)
    if result is None or not result.naive or not result.engine:
        st.info(t("mem_leak_none", lang))
        return
    _show(result, lang)
