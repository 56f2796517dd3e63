"""The projection section: TTFT, TPOT and KV capacity of famous models on datasheet GPUs, from the
formulas in lab/projection.py (shown beside the charts), with editable efficiency factors; and the
projection beside published measurements, so its error is visible."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from app_pages.roofline import keys
from app_pages.roofline.figures import kv_capacity_figure, tpot_batch_figure, tpot_context_figure, ttft_figure
from app_pages.roofline.strings import formula, t
from engine.config import PRESETS
from lab.projection import GPU_PRESETS, KV_DTYPE_BYTES, PUBLISHED, kv_capacity, predict_tpot, predict_ttft
from ui.formula import show_formula
from ui.tables import show_table
from ui.widget_state import KEEP, seed
from ui.widgets import whole_number_box

PROJ_MODELS = ["LLaMA-7B", "Llama-2-7B", "Llama-3-8B", "Qwen2.5-7B", "Llama-2-70B", "Llama-3-70B"]
DEFAULTS = {
    keys.PJ_MODELS: ["LLaMA-7B", "Llama-3-8B", "Qwen2.5-7B", "Llama-3-70B"],
    keys.PJ_GPU: "A100 80GB SXM",
    keys.PJ_EFF_C: 0.7,
    keys.PJ_EFF_B: 0.7,
    keys.PJ_CONTEXT: 2048,
    keys.PJ_BATCH: 1,
    keys.PJ_KV: "fp16",
}
PROMPTS = [128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768]
BATCHES = [1, 2, 4, 8, 16, 32, 64, 128, 256]
CONTEXTS = [256, 512, 1024, 2048, 4096, 8192, 16384, 32768]
WEIGHT_BYTES = 2  # fp16 / bf16 weights


def render_controls(lang: str) -> tuple[list[str], str, float, float, int, int, str]:
    seed(DEFAULTS)
    c1, c2 = st.columns([3, 2])
    models = c1.multiselect(t("rf_pj_models", lang), PROJ_MODELS, key=keys.PJ_MODELS, persist_state=KEEP)
    gpu = c2.selectbox(t("rf_pj_gpu", lang), list(GPU_PRESETS), key=keys.PJ_GPU, persist_state=KEEP)
    c1, c2, c3, c4, c5 = st.columns(5)
    eff_c = c1.number_input(
        t("rf_pj_eff_c", lang),
        0.05,
        1.0,
        step=0.05,
        key=keys.PJ_EFF_C,
        help=t("rf_pj_eff_help", lang),
        persist_state=KEEP,
    )
    eff_b = c2.number_input(
        t("rf_pj_eff_b", lang),
        0.05,
        1.0,
        step=0.05,
        key=keys.PJ_EFF_B,
        help=t("rf_pj_eff_help", lang),
        persist_state=KEEP,
    )
    context = whole_number_box(c3, t("rf_pj_context", lang), 1, 131072, keys.PJ_CONTEXT, step=1024)
    batch = whole_number_box(c4, t("rf_pj_batch", lang), 1, 1024, keys.PJ_BATCH)
    kv = c5.selectbox(t("rf_pj_kv", lang), list(KV_DTYPE_BYTES), key=keys.PJ_KV, persist_state=KEEP)
    return list(models), gpu, float(eff_c), float(eff_b), context, batch, kv


def gpu_table(lang: str) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {
                t("rf_col_gpu", lang): g.name,
                t("rf_col_tflops", lang): g.peak_flops_per_s / 1e12,
                t("rf_col_tbs", lang): g.bytes_per_s / 1e12,
                t("rf_col_mem", lang): g.memory_bytes / 1e9,
                t("rf_col_ridge", lang): round(g.peak_flops_per_s / g.bytes_per_s),
                t("rf_col_source", lang): g.source,
            }
            for g in GPU_PRESETS.values()
        ]
    )


def published_table(eff_c: float, eff_b: float, lang: str) -> pd.DataFrame:
    rows = []
    for source, model, gpu_name, metric, length, published_ms in PUBLISHED:
        c, g = PRESETS[model], GPU_PRESETS[gpu_name]
        if metric == "TTFT":
            ms = predict_ttft(c, length, g.peak_flops_per_s, g.bytes_per_s, WEIGHT_BYTES, eff_c, eff_b).seconds * 1e3
        else:
            ms = (
                predict_tpot(
                    c, 1, length + 1, g.peak_flops_per_s, g.bytes_per_s, WEIGHT_BYTES, None, eff_c, eff_b
                ).seconds
                * 1e3
            )
        rows.append(
            {
                t("rf_col_source", lang): source,
                t("rf_col_model", lang): model,
                t("rf_col_gpu", lang): gpu_name,
                t("rf_col_metric", lang): f"{metric}, L={length}, B=1",
                t("rf_col_published", lang): round(published_ms, 2),
                t("rf_col_projected", lang): round(ms, 2),
                t("rf_col_error", lang): f"{100 * (ms / published_ms - 1):+.0f} %",
            }
        )
    return pd.DataFrame(rows)


def kv_table(models: list[str], gpu: str, context: int, lang: str) -> tuple[pd.DataFrame, dict[str, list[int]]]:
    g = GPU_PRESETS[gpu]
    rows, by_dtype = [], {d: [] for d in KV_DTYPE_BYTES}
    for name in models:
        c = PRESETS[name]
        attn = "MHA" if c.num_kv_heads == c.num_heads else f"GQA {c.num_heads}/{c.num_kv_heads}"
        row = {
            t("rf_col_model", lang): name,
            t("rf_col_attn", lang): attn,
            t("rf_col_weights_gb", lang): round(c.num_params * WEIGHT_BYTES / 1e9, 1),
        }
        for d, nbytes in KV_DTYPE_BYTES.items():
            cap = kv_capacity(c, g.memory_bytes, context, WEIGHT_BYTES, nbytes)
            row[t("rf_col_kv_token", lang, dtype=d)] = round(c.kv_bytes_per_token(nbytes) / 1024)
            row[t("rf_col_seqs", lang, dtype=d)] = cap.num_seqs
            by_dtype[d].append(cap.num_seqs)
        rows.append(row)
    return pd.DataFrame(rows), by_dtype


def render_projection_section(lang: str) -> None:
    st.markdown(t("rf_pj_intro", lang))
    models, gpu, eff_c, eff_b, context, batch, kv = render_controls(lang)
    with st.expander(t("rf_pj_gpus", lang)):
        show_table(gpu_table(lang), key=keys.PJ_GPU_TABLE)
    st.markdown(t("rf_pj_published", lang))
    show_table(published_table(eff_c, eff_b, lang), key=keys.PJ_PUBLISHED_TABLE)
    if not models:
        st.info(t("rf_pj_pick", lang))
        return
    g = GPU_PRESETS[gpu]
    too_big = {m for m in models if PRESETS[m].num_params * WEIGHT_BYTES > g.memory_bytes}
    if too_big:
        st.warning(t("rf_pj_too_big", lang, models=", ".join(sorted(too_big)), gpu=gpu, mem=g.memory_bytes / 1e9))
    kv_bytes = KV_DTYPE_BYTES[kv]
    args = (g.peak_flops_per_s, g.bytes_per_s, WEIGHT_BYTES)

    def fits(m: str, tokens: int) -> bool:  # no point beyond a model's context window
        return tokens <= PRESETS[m].max_position

    ttft = {
        m: [predict_ttft(PRESETS[m], L, *args, eff_c, eff_b).seconds * 1e3 if fits(m, L) else None for L in PROMPTS]
        for m in models
    }
    c1, c2 = st.columns([3, 2])
    c1.plotly_chart(ttft_figure(PROMPTS, ttft, gpu, lang, too_big), key=keys.FIG_TTFT)
    c2.markdown(t("rf_pj_ttft_formula", lang))
    show_formula(
        formula(r"\mathrm{TTFT}(L) = \frac{\mathrm{FLOPs}_{<prefill>}(L)}{e_c\,P} + \frac{W}{e_b\,B_w}", lang), c2
    )
    c2.markdown(t("rf_pj_symbols", lang, P=g.peak_flops_per_s / 1e12, Bw=g.bytes_per_s / 1e12, ec=eff_c, eb=eff_b))
    tpot_b = {
        m: [
            predict_tpot(PRESETS[m], b, context, *args, kv_bytes, eff_c, eff_b).seconds * 1e3
            if fits(m, context)
            else None
            for b in BATCHES
        ]
        for m in models
    }
    tpot_c = {
        m: [
            predict_tpot(PRESETS[m], batch, c, *args, kv_bytes, eff_c, eff_b).seconds * 1e3 if fits(m, c) else None
            for c in CONTEXTS
        ]
        for m in models
    }
    c1, c2 = st.columns(2)
    c1.plotly_chart(tpot_batch_figure(BATCHES, tpot_b, gpu, context, lang, too_big), key=keys.FIG_TPOT_BATCH)
    c2.plotly_chart(tpot_context_figure(CONTEXTS, tpot_c, gpu, batch, lang, too_big), key=keys.FIG_TPOT_CTX)
    show_formula(
        formula(
            r"\mathrm{TPOT}(B, C) = \max(t_{<read>}, t_{<compute>}) \qquad "
            r"t_{<read>} = \frac{W + B\,C\,k_v + B\,k_v}{e_b\,B_w} \qquad "
            r"t_{<compute>} = \frac{\mathrm{FLOPs}_{<decode>}(B, C)}{e_c\,P}",
            lang,
        )
    )
    st.markdown(t("rf_pj_tpot_reading", lang, kv=kv))
    st.caption(t("rf_pj_context_note", lang, models=", ".join(f"{m} {PRESETS[m].max_position:,}" for m in models)))
    st.markdown(t("rf_pj_kv_header", lang, C=context, gpu=gpu))
    show_formula(
        formula(
            r"N_{<seqs>} = \left\lfloor \frac{0.9\,M - W}{C \cdot 2\,n_{<layers>}\,n_{kv}\,d_{<head>}\,b_{kv}} \right\rfloor",
            lang,
        )
    )
    table, by_dtype = kv_table(models, gpu, context, lang)
    c1, c2 = st.columns([3, 2])
    c1.plotly_chart(kv_capacity_figure(models, by_dtype, gpu, context, lang), key=keys.FIG_KV)
    c2.markdown(t("rf_pj_kv_reading", lang))
    show_table(table, key=keys.PJ_KV_TABLE)
