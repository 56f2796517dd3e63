"""The memory lab's third tab: real attention probabilities of a prompt (eager backend, captured
per layer): any layer and head, the mean over heads, or every layer at once; the prefill triangle
then one row per decode step; PNG and CSV downloads of what is shown."""

from __future__ import annotations

import streamlit as st

from app_pages.memory import keys
from app_pages.memory.heat import (
    MODES,
    csv_text,
    layer_matrices,
    layers_csv,
    layers_figure,
    mean_heatmap,
    mean_matrix,
    png_bytes,
    tile,
)
from app_pages.memory.strings import t
from ui.errors import error_message, show_error, show_message
from ui.figures_attention import attention_heatmap, attention_matrix
from ui.models import get_registry
from ui.public_caps import prompt_cap
from ui.queue_wait import take_turn
from ui.run_driver import measure_pass, run_steps, start_run
from ui.run_state import RunResult, RunSettings, RunStatus
from ui.text import download_name, visible
from ui.widget_state import KEEP, seed
from ui.widgets import whole_number, whole_number_box

DEFAULTS = {
    keys.HEAT_PROMPT: "The capital of France is Paris. The capital of Italy is",
    keys.HEAT_NEW: 6,
    keys.HEAT_CHAT: False,
    keys.HEAT_MODE: "head",
}


def _controls(lang: str) -> bool:
    seed(DEFAULTS)
    with st.form(keys.HEAT_FORM):
        st.text_area(t("prompt", lang), key=keys.HEAT_PROMPT, height=80, max_chars=prompt_cap(), persist_state=KEEP)
        c1, c2 = st.columns(2)
        whole_number_box(c1, t("max_new_tokens", lang), 1, 64, keys.HEAT_NEW)
        c2.toggle(t("chat_template", lang), key=keys.HEAT_CHAT, help=t("chat_template_help", lang), persist_state=KEEP)
        return st.form_submit_button(
            t("mem_heat_run", lang), type="primary", icon=":material/grid_on:", key=keys.HEAT_RUN
        )


def _run(bundle, lang: str) -> None:
    s = st.session_state
    settings = RunSettings(
        prompt=s[keys.HEAT_PROMPT] or "",
        chat=bool(s[keys.HEAT_CHAT]),
        max_new_tokens=whole_number(s[keys.HEAT_NEW]),
        attention="eager",
        probe_memory=False,
    )
    try:
        engine, result = start_run(bundle, settings)
    except Exception as exc:  # noqa: BLE001 - bad input (empty prompt, too long): a message
        show_error(exc, lang)
        return
    st.session_state[keys.HEAT_RESULT] = result
    bar = st.progress(0.0, text=t("mem_heat_running", lang, L=result.num_prompt_tokens))
    try:
        for _ in run_steps(engine, result, get_registry().step_lock):
            bar.progress(
                min(1.0, len(result.tokens) / settings.max_new_tokens),
                text=t("mem_heat_progress", lang, n=len(result.tokens), total=settings.max_new_tokens),
            )
        for done, total in measure_pass(engine, result, get_registry().step_lock):  # the capture is untimed
            bar.progress(done / total, text=t("mem_heat_capturing", lang, done=done, total=total))
    except Exception as exc:  # noqa: BLE001
        result.status, result.error = RunStatus.FAILED, error_message(exc, lang)
    bar.empty()


def _downloads(png: bytes, csv: str, stem: str, result: RunResult, lang: str) -> None:
    name = (stem, result.model.name, result.settings.prompt)
    c1, c2, _ = st.columns([1, 1, 3])
    c1.download_button(
        t("mem_download_png", lang),
        png,
        file_name=download_name(*name, ext="png", when=result.started),
        mime="image/png",
        on_click="ignore",
        key=keys.HEAT_PNG,
        icon=":material/image:",
    )
    c2.download_button(
        t("mem_download_csv", lang),
        csv,
        file_name=download_name(*name, ext="csv", when=result.started),
        mime="text/csv",
        on_click="ignore",
        key=keys.HEAT_CSV,
        icon=":material/table:",
    )


@st.fragment  # switching the view, layer or head redraws this part only
def _show(result: RunResult, lang: str) -> None:
    if result.status == RunStatus.FAILED:
        show_message(result.error or t("err_unexpected", lang, kind="?"))
    if not result.has_attention:
        return
    m = result.model
    layers = sorted({layer for captured in result.attention for layer in captured})
    labels = [visible(p.label) for p in result.prompt + result.pieces]
    c1, c2, c3 = st.columns([1.6, 1, 1])
    mode = c1.segmented_control(
        t("mem_heat_mode", lang),
        MODES,
        key=keys.HEAT_MODE,
        required=True,
        format_func=lambda k: t(f"mem_heat_mode_{k}", lang),
        persist_state=KEEP,
    )
    layer = c2.selectbox(
        t("heat_layer", lang),
        layers,
        index=len(layers) - 1,
        key=keys.HEAT_LAYER,
        disabled=mode == "layers",
        persist_state=KEEP,
    )
    head = c3.selectbox(
        t("heat_head", lang), list(range(m.num_heads)), key=keys.HEAT_HEAD, disabled=mode != "head", persist_state=KEEP
    )
    if len(layers) < m.num_layers:
        st.caption(t("heat_truncated", lang, n=len(layers), total=m.num_layers))
    first = next(a for a in result.attention if layer in a)
    prefill_rows = first[layer].shape[1]
    if mode == "layers":
        mats = layer_matrices(result.attention, m.num_heads)
        st.plotly_chart(layers_figure(mats, lang, prefill_rows), key=keys.FIG_LAYERS)
        _downloads(
            png_bytes(tile(list(mats.values()))), layers_csv(mats, labels), "attention-layers-mean", result, lang
        )
    elif mode == "mean":
        matrix = mean_matrix(result.attention, layer, m.num_heads)
        st.plotly_chart(mean_heatmap(matrix, labels, prefill_rows, layer, m.num_heads, lang), key=keys.FIG_HEAT)
        _downloads(png_bytes(matrix), csv_text(matrix, labels), f"attention-layer{layer}-mean", result, lang)
    else:
        matrix = attention_matrix(result.attention, layer, head)
        st.plotly_chart(attention_heatmap(matrix, labels, prefill_rows, layer, head, lang), key=keys.FIG_HEAT)
        _downloads(png_bytes(matrix), csv_text(matrix, labels), f"attention-layer{layer}-head{head}", result, lang)
    st.caption(t("mem_heat_caption", lang, L=result.num_prompt_tokens, n=len(result.tokens)))


def heat_panel(bundle, lang: str) -> None:
    st.markdown(t("mem_heat_explain", lang))
    if _controls(lang):
        with take_turn(lang) as go:
            if go:
                _run(bundle, lang)
    result: RunResult | None = st.session_state.get(keys.HEAT_RESULT)
    if result is None:
        st.info(t("mem_heat_none", lang))
        return
    _show(result, lang)
