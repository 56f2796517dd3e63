"""The result tabs of the playground, one function per tab: KV cache, attention, timings, memory,
steps. Each draws its figures from the run's records and says what they show."""

from __future__ import annotations

import streamlit as st

from app_pages.playground import keys
from app_pages.playground.figures import busy_note, latency_figure, memory_figure, time_share_figure
from app_pages.playground.step_table import produced_labels, step_table, worked_example_md
from app_pages.playground.strings import t
from app_pages.playground.thinned_charts import TABLE_ROWS, plot
from ui.figures_attention import attention_heatmap, attention_matrix, shapes_figure
from ui.figures_kv import kv_bytes_figure, kv_formula, kv_steps, kv_tokens_figure
from ui.formula import show_formula
from ui.run_state import RunResult
from ui.tables import show_table
from ui.theme import fmt_bytes
from ui.tokens import axis_labels
from ui.widget_state import KEEP


def kv_panel(result: RunResult, lang: str) -> None:
    m, last = result.model, kv_steps(result.steps, result.block_size)[-1]
    st.markdown(t("kv_explain", lang))
    show_formula(kv_formula(m.num_layers, m.num_kv_heads, m.head_dim, last.cached_tokens, m.elem_bytes, lang))
    st.caption(
        t(
            "kv_formula_caption",
            lang,
            tokens=last.cached_tokens,
            per_token=fmt_bytes(m.kv_bytes_per_token),
            dtype=m.dtype,
            block=result.block_size,
        )
    )
    if not result.settings.kv_cache:
        st.info(t("kv_off_note", lang))
    c1, c2 = st.columns(2)
    plot(kv_tokens_figure(result.steps, result.block_size, lang), keys.FIG_KV_TOKENS, lang, c1)
    plot(
        kv_bytes_figure(result.steps, result.block_size, m.num_layers, m.kv_bytes_per_token, lang),
        keys.FIG_KV_BYTES,
        lang,
        c2,
    )


@st.fragment
def attention_panel(result: RunResult, lang: str) -> None:
    steps = result.steps
    st.markdown(
        t(
            "shapes_explain",
            lang,
            heads=result.model.num_heads,
            kv_heads=result.model.num_kv_heads,
            layers=result.model.num_layers,
        )
    )
    chosen = steps[-1].step
    if len(steps) > 2:
        chosen = st.select_slider(
            t("shapes_pick", lang),
            options=[s.step for s in steps[1:]],
            value=steps[1].step,
            key=keys.SHAPES_STEP,
            persist_state=KEEP,
        )
    index = next(i for i, s in enumerate(steps) if s.step == chosen)
    st.plotly_chart(shapes_figure(steps, index, result.model.head_dim, lang), key=keys.FIG_SHAPES)
    st.subheader(t("heat_header", lang))
    if not result.has_attention:
        if not result.pass_pending:  # else the capture is on its way: its progress follows (results.py)
            st.info(t("heat_needs_eager", lang))
        return
    layers = sorted({layer for captured in result.attention for layer in captured})
    c1, c2 = st.columns(2)
    layer = c1.selectbox(t("heat_layer", lang), layers, index=len(layers) - 1, key=keys.HEAT_LAYER, persist_state=KEEP)
    head = c2.selectbox(
        t("heat_head", lang), list(range(result.model.num_heads)), key=keys.HEAT_HEAD, persist_state=KEEP
    )
    if len(layers) < result.model.num_layers:
        st.caption(t("heat_truncated", lang, n=len(layers), total=result.model.num_layers))
    matrix = attention_matrix(result.attention, layer, head)
    labels = axis_labels(result.prompt + result.pieces)
    first = next(a for a in result.attention if layer in a)
    st.plotly_chart(attention_heatmap(matrix, labels, first[layer].shape[1], layer, head, lang), key=keys.FIG_HEAT)
    st.caption(t("heat_caption", lang))


def timings_panel(result: RunResult, lang: str) -> None:
    metrics = result.metrics
    c = st.columns(5)
    c[0].metric(t("m_ttft", lang), f"{metrics.ttft_ms:.1f} ms", help=t("m_ttft_help", lang))
    c[1].metric(
        t("m_tpot", lang), "—" if metrics.tpot_ms is None else f"{metrics.tpot_ms:.1f} ms", help=t("m_tpot_help", lang)
    )
    c[2].metric(t("m_e2e", lang), f"{metrics.e2e_ms:.0f} ms", help=t("m_e2e_help", lang))
    c[3].metric(
        t("m_tps", lang), "—" if not metrics.tpot_ms else f"{1000 / metrics.tpot_ms:.1f}", help=t("m_tps_help", lang)
    )
    c[4].metric(
        t("m_share", lang),
        f"{metrics.prefill_share:.0%} / {1 - metrics.prefill_share:.0%}",
        help=t("m_share_help", lang),
    )
    busy = busy_note(result.load, lang)
    if busy:  # right under the numbers it touched (a grey line under each was cut off in a narrow column)
        st.caption(t("timed_beside", lang, busy=busy))
    if result.load is None and result.loaded_from:
        st.caption(t("load_unrecorded", lang))
    if result.settings.probe_memory or result.has_attention or result.pass_pending:
        st.caption(t("two_pass_note", lang))
    plot(latency_figure(result.tokens, result.arrival, lang, result.steps, busy), keys.FIG_LATENCY, lang)
    st.caption(t("timings_caption", lang))
    c1, _ = st.columns(2)
    c1.plotly_chart(time_share_figure(metrics, lang, busy), key=keys.FIG_SHARE)


def memory_panel(result: RunResult, lang: str) -> None:
    steps = result.steps
    method = "cuda" if result.model.device.startswith("cuda") else "cpu"
    st.markdown(t(f"mem_explain_{method}", lang))
    peaks = [s.peak_bytes for s in steps if s.peak_bytes is not None]
    if peaks:
        decode = sorted(s.peak_bytes for s in steps if s.phase == "decode" and s.peak_bytes is not None)
        c1, c2, c3 = st.columns(3)
        c1.metric(t("m_mem_prefill", lang), fmt_bytes(steps[0].peak_bytes or 0))
        c2.metric(t("m_mem_decode", lang), fmt_bytes(decode[len(decode) // 2]) if decode else "—")
        c3.metric(t("m_mem_weights", lang), fmt_bytes(result.model.weight_bytes))
        if result.memory_pass:
            st.caption(t("mem_from_pass", lang))
    else:
        st.info(t("mem_pass_missing" if result.settings.probe_memory else "mem_probe_off", lang))
    plot(memory_figure(steps, result.block_size, result.model.kv_bytes_per_token, lang), keys.FIG_MEMORY, lang)


def steps_panel(result: RunResult, lang: str) -> None:
    st.markdown(worked_example_md(result, lang))
    steps = shown = result.steps
    if len(steps) > TABLE_ROWS:  # a long loaded trace: a page at a time keeps the browser responsive
        starts = list(range(0, len(steps), TABLE_ROWS))
        if st.session_state.get(keys.STEP_PAGE) not in starts:  # a shorter run than the last one
            st.session_state[keys.STEP_PAGE] = 0
        start = st.selectbox(
            t("table_page", lang, rows=TABLE_ROWS),
            starts,
            key=keys.STEP_PAGE,
            persist_state=KEEP,
            format_func=lambda i: t(
                "table_page_fmt", lang, first=steps[i].step, last=steps[min(i + TABLE_ROWS, len(steps)) - 1].step
            ),
        )
        st.caption(t("table_paged", lang, total=len(steps), rows=TABLE_ROWS))
        shown = steps[start : start + TABLE_ROWS]
    show_table(step_table(shown, produced_labels(result), lang), key=keys.STEP_TABLE)
    st.caption(t("tbl_shapes", lang))  # the dimension names here: in the headers they were cut off
