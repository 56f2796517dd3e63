"""The serving lab's result tabs: timeline (Gantt and the batch of any step, one iteration at a
time), blocks (the physical pool, waste, prefix hits) and metrics (A against B). Each tab is a
fragment: stepping through a run or switching what is shown redraws that tab only."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from app_pages.serving import keys
from app_pages.serving.blocks import pool_figure, prefix_figure, waste_figure, waste_series, waste_share
from app_pages.serving.figures import composition_figure, gantt_figure, mark_step, run_end_s
from app_pages.serving.goodput import goodput_panel
from app_pages.serving.notes import here_sentence
from app_pages.serving.run import POLICIES, PolicyRun, ServingResult
from app_pages.serving.run_latencies import (
    ALL,
    THROUGHPUT,
    groups,
    median_of,
    metrics_figure,
    metrics_table,
    ratio_column,
    request_table,
    round_values,
    run_name,
    same_outputs,
)
from app_pages.serving.strings import t
from app_pages.serving.timeline import batch_rows, step_window
from ui.paired import explain_text
from ui.tables import show_table
from ui.theme import fmt_bytes
from ui.widget_state import KEEP


def _runs(result: ServingResult) -> list[PolicyRun]:
    return [result.runs[k] for k in ("a", "b") if k in result.runs]


def _pick_run(result: ServingResult, key: str, lang: str) -> PolicyRun:
    runs = _runs(result)
    if len(runs) == 1:
        return runs[0]
    slot = st.radio(
        t("sv_inspect_run", lang),
        [r.slot for r in runs],
        key=key,
        horizontal=True,
        format_func=lambda s: run_name(result.runs[s], lang),
        persist_state=KEEP,
    )
    return result.runs[slot]


def _move(delta: int, last: int) -> None:
    st.session_state[keys.TL_STEP] = min(max(st.session_state.get(keys.TL_STEP, 0) + delta, 0), last)


def _step_navigator(num_steps: int, lang: str) -> int:
    """Previous / next buttons and a slider over the run's steps; returns the chosen step index."""
    last = num_steps - 1
    st.session_state[keys.TL_STEP] = min(max(int(st.session_state.get(keys.TL_STEP, 0)), 0), last)
    c1, c2, c3 = st.columns([1.4, 1.2, 5], vertical_alignment="bottom")
    c1.button(
        t("sv_prev", lang),
        key=keys.PREV,
        on_click=_move,
        args=(-1, last),
        icon=":material/skip_previous:",
        disabled=st.session_state[keys.TL_STEP] <= 0,
    )
    c2.button(
        t("sv_next", lang),
        key=keys.NEXT,
        on_click=_move,
        args=(1, last),
        icon=":material/skip_next:",
        disabled=st.session_state[keys.TL_STEP] >= last,
    )
    if last > 0:
        c3.slider(t("sv_step_slider", lang), 0, last, key=keys.TL_STEP, persist_state=KEEP)
    return st.session_state[keys.TL_STEP]


def _gantt(run: PolicyRun, x_max: float, lang: str) -> go.Figure:
    """The run's timeline, built once per run and language: every step of the inspector reuses it."""
    cache = st.session_state.setdefault(keys.FIG_CACHE, {})
    key = (id(run.trace), lang, x_max)
    if key not in cache:
        if len(cache) >= 8:  # old runs' charts: a session only ever shows two
            cache.clear()
        cache[key] = gantt_figure(
            run.trace, run.labels, t("sv_gantt_title", lang, name=run_name(run, lang)), lang, x_max=x_max
        )
    return cache[key]


def _step_caption(run: PolicyRun, index: int, lang: str) -> str:
    step = run.trace.steps[index]
    start, end = step_window(run.trace, index)
    prefill = sum(q.num_tokens for q in step.seqs if q.phase == "prefill")
    decode = sum(q.num_tokens for q in step.seqs if q.phase == "decode")
    budget = t("sv_budget_of", lang, n=run.step_budget) if run.chunked else t("sv_budget_none", lang)
    return t(
        "sv_step_caption",
        lang,
        step=step.step,
        last=len(run.trace.steps) - 1,
        start=start,
        end=end,
        ms=step.ms,
        seqs=len(step.seqs),
        decode=decode,
        prefill=prefill,
        total=prefill + decode,
        budget=budget,
        waiting=step.num_waiting,
        blocks=step.kv_blocks,
        pool=run.num_blocks,
    )


def _batch_frame(run: PolicyRun, index: int, lang: str) -> pd.DataFrame:
    rows = batch_rows(run.trace, run.labels, index)
    return pd.DataFrame(
        {
            t("sv_col_request", lang): [r.label for r in rows],
            t("sv_col_phase", lang): [t(f"phase_{r.phase}", lang) for r in rows],
            t("sv_col_tokens", lang): [r.num_tokens for r in rows],
            t("sv_col_positions", lang): [
                t("sv_positions", lang, a=r.first_pos, b=r.context_len - 1, p=r.prompt_len)
                if r.phase == "prefill"
                else str(r.context_len - 1)
                for r in rows
            ],
            t("sv_col_blocks", lang): [r.blocks for r in rows],
        }
    )


@st.fragment
def timeline_panel(result: ServingResult, lang: str) -> None:
    st.markdown(t("sv_timeline_intro", lang))
    run = _pick_run(result, keys.TL_RUN, lang)
    if not run.trace.steps:
        st.info(t("sv_no_steps", lang))
        return
    x_max = max(run_end_s(r.trace) for r in _runs(result)) * 1.02  # one time scale for both runs
    index = _step_navigator(len(run.trace.steps), lang)
    st.plotly_chart(mark_step(_gantt(run, x_max, lang), run.trace, index, lang), key=keys.FIG_GANTT)
    st.markdown(_step_caption(run, index, lang))
    show_table(_batch_frame(run, index, lang), key=keys.BATCH_TABLE)
    st.plotly_chart(
        composition_figure(run.trace, run.step_budget if run.chunked else None, lang, highlight=index),
        key=keys.FIG_COMP,
    )
    others = [r for r in _runs(result) if r is not run]
    for other in others:
        st.plotly_chart(_gantt(other, x_max, lang), key=keys.FIG_GANTT_OTHER)
    st.caption(t("sv_timeline_caption", lang))


@st.fragment
def blocks_panel(result: ServingResult, lang: str) -> None:
    st.markdown(t("sv_blocks_intro", lang))
    run = _pick_run(result, keys.BK_RUN, lang)
    points = waste_series(run)
    per_token = result.kv_bytes_per_token
    prompt_tokens = sum(len(r.prompt_token_ids) for r in run.trace.requests)
    hits = run.trace.steps[-1].prefix_hit_tokens if run.trace.steps else 0
    c = st.columns(5)
    c[0].metric(
        t("sv_m_pool", lang),
        t("sv_m_pool_value", lang, used=max((s.kv_blocks for s in run.trace.steps), default=0), pool=run.num_blocks),
        help=t("sv_m_pool_help", lang, size=fmt_bytes(run.num_blocks * run.block_size * per_token)),
    )
    c[1].metric(t("sv_m_waste_paged", lang), f"{waste_share(points, 'paged'):.0%}", help=t("sv_m_waste_help", lang))
    c[2].metric(
        t("sv_m_waste_contig", lang), f"{waste_share(points, 'contiguous'):.0%}", help=t("sv_m_waste_help", lang)
    )
    c[3].metric(
        t("sv_m_prefix", lang),
        f"{hits / max(prompt_tokens, 1):.0%}",
        help=t("sv_m_prefix_help", lang, hits=hits, total=prompt_tokens),
    )
    c[4].metric(t("sv_m_preempt", lang), run.num_preemptions, help=t("sv_m_preempt_help", lang))
    st.plotly_chart(pool_figure(run, t("sv_pool_title", lang, name=run_name(run, lang)), lang), key=keys.FIG_POOL)
    st.plotly_chart(waste_figure(run, lang), key=keys.FIG_WASTE)
    peak = max(points, key=lambda p: p.stored) if points else None
    if peak is not None:
        st.caption(
            t(
                "sv_blocks_caption",
                lang,
                step=peak.step,
                stored=fmt_bytes(peak.stored * per_token),
                paged=fmt_bytes(peak.paged * per_token),
                contig=fmt_bytes(peak.contiguous * per_token),
                full=fmt_bytes(peak.contiguous_max * per_token),
                ctx=run.context_len,
            )
        )
    if POLICIES[run.policy].get("prefix_caching"):
        st.plotly_chart(prefix_figure(run, lang), key=keys.FIG_PREFIX)
    else:
        st.caption(t("sv_prefix_off", lang))


@st.fragment
def metrics_panel(result: ServingResult, lang: str, bundle=None) -> None:
    runs = _runs(result)
    st.markdown(t("sv_metrics_intro", lang))
    options = groups(runs[0].labels)
    group = st.selectbox(
        t("sv_group", lang),
        options,
        key=keys.MX_GROUP,
        format_func=lambda g: t("sv_group_all", lang) if g == ALL else g,
        persist_state=KEEP,
    )
    rounds = result.rounds or [result.runs]
    c = st.columns(len(runs) + 1)
    for col, run in zip(c, runs):
        col.metric(
            t("sv_m_throughput_run", lang, slot=run.slot.upper()),
            f"{median_of(round_values(rounds, run.slot, ALL, THROUGHPUT, '')):.1f} tok/s",
            help=t("sv_m_throughput_help", lang, name=run_name(run, lang), n=len(rounds)),
        )
    same, compared = same_outputs(runs)
    if compared:
        c[-1].metric(t("sv_m_same", lang), f"{same} / {compared}", help=t("sv_m_same_help", lang))
    table = metrics_table(rounds, group, lang, result.retaken, result.load)
    number = st.column_config.NumberColumn(format="%.1f", width="small")
    config = {run_name(r, lang): number for r in runs} | {
        t("sv_col_metric", lang): st.column_config.TextColumn(width="small"),
        t("sv_col_stat", lang): st.column_config.TextColumn(width="small"),
        ratio_column(lang, result.load): st.column_config.TextColumn(width="large"),
    }
    show_table(
        table, key=keys.METRICS_TABLE, column_config=config, height=35 * (len(table) + 1) + 3
    )  # every row at once: no scrolling inside the table
    st.plotly_chart(metrics_figure(rounds, group, lang), key=keys.FIG_METRICS)
    notes = [t("sv_metrics_caption", lang, n=len(rounds)), t(f"sv_metrics_note_{result.preset}", lang)]
    here = here_sentence(result.preset, rounds, lang, result.retaken, result.load)
    st.caption(" ".join(notes + [here]).strip())
    with st.expander(t("sv_pair_header", lang)):
        st.markdown(explain_text(lang))
    st.subheader(t("sv_gp_header", lang))
    goodput_panel(result, runs, lang, bundle)
    with st.expander(t("sv_requests_header", lang)):
        show_table(request_table(runs, lang), key=keys.REQUEST_TABLE)
