"""Capacity: on a GPU preset (the roofline lab's list) and a memory budget, how many KV tokens and
sequences of a given context fit beside the weights in each format, for the loaded model or a
preset one, with its GQA saving shown against the same model with one KV head per query head.
Arithmetic only (lab/precision_formats.py's formulas): no model runs."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from app_pages.precision import keys
from app_pages.precision.strings import t
from engine.config import PRESETS, ModelConfig
from lab.precision_formats import capacity, kv_token_bytes, mha_twin
from lab.projection import GPU_PRESETS
from ui.tables import show_table
from ui.widget_state import KEEP
from ui.widgets import whole_number_box

LOADED = "__loaded__"
WEIGHT_BYTES = (("float16 / bfloat16", 2.0), ("int8", 1.0), ("int4 (for scale)", 0.5))
KV_FORMATS = (("float16 / bfloat16", "float16"), ("float8 e4m3", "float8_e4m3fn"), ("int8 + scales", "int8"))


def capacity_rows(model: ModelConfig, budget: float, context: int, lang: str) -> pd.DataFrame:
    rows = []
    for w_name, w_bytes in WEIGHT_BYTES:
        weights = model.num_params * w_bytes
        for kv_name, kv in KV_FORMATS:
            for twin, label in ((model, model.name), (mha_twin(model), t("pr_cap_mha", lang))):
                if twin is not model and (model.num_kv_heads == model.num_heads or kv != "float16"):
                    continue  # the MHA row once per weights format, beside fp16 KV: the GQA factor
                c = capacity(twin, weights, budget, kv_token_bytes(twin, kv), context, label)
                rows.append(
                    {
                        t("pr_cap_col_model", lang): label,
                        t("pr_cap_col_weights", lang): w_name,
                        t("pr_cap_col_weights_gb", lang): round(weights / 1e9, 2),
                        t("pr_cap_col_kv", lang): kv_name,
                        t("pr_cap_col_kv_token", lang): c.kv_token_bytes,
                        t("pr_cap_col_tokens", lang): c.tokens,
                        t("pr_cap_col_seqs", lang, L=context): c.sequences,
                    }
                )
    return pd.DataFrame(rows)


def render_capacity(loaded: ModelConfig | None, lang: str) -> None:
    st.subheader(t("pr_cap_header", lang))
    st.markdown(t("pr_cap_intro", lang))
    c1, c2, c3, c4 = st.columns(4)
    gpu = GPU_PRESETS[c1.selectbox(t("pr_cap_gpu", lang), list(GPU_PRESETS), index=1, key=keys.GPU, persist_state=KEEP)]
    share = whole_number_box(
        c2, t("pr_cap_budget", lang), 10, 100, keys.BUDGET, step=5, value=90, help=t("pr_cap_budget_help", lang)
    )
    options = ([LOADED] if loaded is not None else []) + list(PRESETS)
    name = c3.selectbox(
        t("pr_cap_model", lang),
        options,
        key=keys.CAP_MODEL,
        persist_state=KEEP,
        format_func=lambda o: t("pr_cap_loaded", lang, name=loaded.name) if o == LOADED else o,
    )
    model = loaded if name == LOADED else PRESETS[name]
    context = whole_number_box(
        c4, t("pr_cap_context", lang), 1, 1 << 20, keys.CAP_CONTEXT, value=min(4096, model.max_position)
    )
    budget = gpu.memory_bytes * share / 100
    rows = capacity_rows(model, budget, context, lang)
    counts = {c: st.column_config.NumberColumn(format="localized") for c in rows.columns[-3:]}  # 3,113,323
    show_table(rows, key=keys.CAP_TABLE, column_config=counts)
    group = model.num_heads // model.num_kv_heads
    st.caption(
        t(
            "pr_cap_caption",
            lang,
            heads=model.num_heads,
            kv_heads=model.num_kv_heads,
            group=group,
            gpu=gpu.name,
            budget=budget / 1e9,
        )
    )
