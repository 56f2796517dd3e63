"""The memory lab's second tab: C20 exactly. For a model (a preset or the loaded one), a dtype and
a prompt length: the score matrix per head and per layer beside the KV cache and the weights, and
the "will it fit" predictor for 24 / 40 / 80 / 141 GB, naming the term that overflows, for eager
attention, a fused kernel and chunked prefill. Pure arithmetic: instant, no model needed."""

from __future__ import annotations

import streamlit as st

from app_pages.memory import keys
from app_pages.memory.fit import (
    DTYPE_BYTES,
    fit_figure,
    fit_short,
    fit_table,
    fit_variants,
    fmt_si,
    formulas,
    max_length_table,
    predict,
    score_numbers,
    term_name,
)
from app_pages.memory.strings import t
from engine.config import PRESETS, ModelConfig
from lab.memory_lab import GPU_SIZES_GB
from ui.errors import shown_errors
from ui.tables import show_table
from ui.text import md_escape
from ui.widget_state import KEEP, seed
from ui.widgets import whole_number_box

LOADED = "__loaded__"  # the option standing for the model loaded in the sidebar
DEFAULTS = {
    keys.FIT_MODEL: "LLaMA-7B",
    keys.FIT_DTYPE: "float16",
    keys.FIT_L: 10_000,
    keys.FIT_CHUNK: 1024,
    keys.FIT_BATCH: 1,
}


def _model_options(bundle) -> dict[str, ModelConfig]:
    options = dict(PRESETS)
    if bundle is not None:
        options[LOADED] = bundle.model.config
    return options


def _controls(bundle, lang: str) -> tuple[ModelConfig, str, int, int, int]:
    seed(DEFAULTS)
    options = _model_options(bundle)
    if st.session_state[keys.FIT_MODEL] not in options:
        st.session_state[keys.FIT_MODEL] = DEFAULTS[keys.FIT_MODEL]
    loaded_label = t("mem_fit_loaded", lang, name=bundle.name) if bundle is not None else ""
    c1, c2, c3, c4, c5 = st.columns([1.6, 1, 1, 1, 0.8])
    key = c1.selectbox(
        t("mem_fit_model", lang),
        list(options),
        key=keys.FIT_MODEL,
        format_func=lambda k: loaded_label if k == LOADED else k,
        persist_state=KEEP,
    )
    dtype = c2.selectbox(t("dtype_label", lang), list(DTYPE_BYTES), key=keys.FIT_DTYPE, persist_state=KEEP)
    L = whole_number_box(c3, t("mem_fit_L", lang), 1, 10_000_000, keys.FIT_L, step=1000)
    chunk = whole_number_box(
        c4, t("mem_fit_chunk", lang), 1, 1_000_000, keys.FIT_CHUNK, step=256, help=t("mem_fit_chunk_help", lang)
    )
    batch = whole_number_box(c5, t("mem_fit_batch", lang), 1, 4096, keys.FIT_BATCH)
    return options[key], dtype, L, chunk, batch


def _numbers(c: ModelConfig, L: int, nbytes: int, batch: int, lang: str) -> None:
    n, f = score_numbers(c, L, nbytes, batch), formulas(c, L, nbytes, batch)
    cols = st.columns(4)
    for col, key, value in zip(
        cols, ("per_head", "per_layer", "kv_cache", "weights"), (n.per_head, n.per_layer, n.kv_cache, n.weights)
    ):
        col.metric(t(f"mem_num_{key}", lang), fmt_si(value))
        col.caption(f"`{f[key]}`")
    st.info(
        t(
            "mem_loose_note",
            lang,
            L=f"{L:,}",
            per_head=fmt_si(n.per_head),
            heads=c.num_heads,
            per_layer=fmt_si(n.per_layer),
            layers=c.num_layers,
            all_layers=fmt_si(n.all_layers),
            model=md_escape(c.name),
        ),
        icon=":material/rule:",
    )


def _verdict(c: ModelConfig, L: int, nbytes: int, chunk: int, batch: int, lang: str) -> None:
    """Say in words where C20's trap springs: weights + KV fit, the scores do not."""
    eager, fused, chunked = fit_variants(chunk)
    trapped = [gb for gb in GPU_SIZES_GB if predict(c, L, nbytes, gb, eager, batch).overflow == "attention scores"]
    if trapped:
        gb = trapped[-1]
        r = predict(c, L, nbytes, gb, eager, batch)
        rescued = [
            t(f"mem_rescue_{v.key}", lang, chunk=v.chunk)
            for v in (fused, chunked)
            if predict(c, L, nbytes, gb, v, batch).fits
        ]
        st.warning(
            t(
                "mem_trap",
                lang,
                gb=gb,
                wkv=fmt_si(r.weights + r.kv_cache),
                scores=fmt_si(r.scores),
                rescued=t("mem_rescue_or", lang).join(rescued) or t("mem_trap_none", lang),
            ),
            icon=":material/warning:",
        )
    else:
        r = predict(c, L, nbytes, GPU_SIZES_GB[0], eager, batch)
        st.caption(t("mem_no_trap", lang, first=term_name(r.overflow, lang) if r.overflow else t("mem_nothing", lang)))


@st.fragment  # its inputs rerun this tab only, never a sweep running in another
def fit_panel(bundle, lang: str) -> None:
    st.markdown(t("mem_fit_explain", lang))
    c, dtype, L, chunk, batch = _controls(bundle, lang)
    nbytes = DTYPE_BYTES[dtype]
    if L >= c.max_position:
        st.caption(t("mem_fit_beyond_ctx", lang, ctx=f"{c.max_position:,}"))
    with shown_errors(lang):
        _numbers(c, L, nbytes, batch, lang)
        _verdict(c, L, nbytes, chunk, batch, lang)
        st.plotly_chart(fit_figure(c, L, nbytes, chunk, batch, lang), key=keys.FIG_FIT)
        st.markdown(t("mem_fit_table_header", lang, L=f"{L:,}"))
        show_table(fit_table(c, L, nbytes, chunk, batch, lang), key=keys.FIT_TABLE, short=fit_short(chunk, lang))
        st.markdown(t("mem_max_table_header", lang))
        longest = max_length_table(c, nbytes, chunk, batch, lang)
        show_table(
            longest,
            key=keys.MAX_TABLE,
            short=fit_short(chunk, lang),
            column_config={col: st.column_config.NumberColumn(format="localized") for col in longest.columns[1:]},
        )
        st.caption(t("mem_fit_table_caption", lang, dtype=dtype))
        with st.expander(t("mem_formulas", lang)):
            lines = [f"- **{t(f'mem_num_{k}', lang)}**: `{v}`" for k, v in formulas(c, L, nbytes, batch).items()]
            st.markdown("\n".join(lines))
            st.caption(t("mem_formulas_caption", lang))
