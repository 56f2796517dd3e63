"""The transfer tab: what the hand-off costs on real hardware (lab/pd_transfer.py), for famous models
on datasheet links and GPUs. Pure arithmetic: nothing runs."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from app_pages.disaggregation import keys
from app_pages.disaggregation.figures import calculator_figure
from app_pages.disaggregation.strings import t
from engine.errors import LabError
from lab.pd_transfer import KV_ELEMENT_BYTES, calculator, calculator_models
from lab.projection import GPU_PRESETS
from ui.errors import show_error
from ui.tables import show_table
from ui.theme import fmt_bytes
from ui.widget_state import KEEP, seed
from ui.widgets import whole_number_box

DEFAULTS = {keys.CALC_MODEL: "Llama-3-8B", keys.CALC_KV: "bfloat16", keys.CALC_PROMPT: 4096, keys.CALC_GPU: "H100 SXM"}


def render_transfer_tab(lang: str) -> None:
    st.markdown(t("dg_calc_intro", lang))
    seed(DEFAULTS)
    c = st.columns(4)
    model = c[0].selectbox(t("dg_calc_model", lang), calculator_models(), key=keys.CALC_MODEL, persist_state=KEEP)
    kv = c[1].selectbox(t("dg_calc_kv", lang), list(KV_ELEMENT_BYTES), key=keys.CALC_KV, persist_state=KEEP)
    prompt = whole_number_box(c[2], t("dg_calc_prompt", lang), 1, 1_000_000, keys.CALC_PROMPT, step=1024)
    gpu = c[3].selectbox(t("dg_calc_gpu", lang), list(GPU_PRESETS), key=keys.CALC_GPU, persist_state=KEEP)
    if prompt is None:
        return
    try:
        n, rows, links = calculator(model, prompt, gpu, kv)
    except LabError as exc:
        show_error(exc, lang)
        return
    m1, m2 = st.columns(2)
    m1.metric(t("dg_calc_bytes", lang), fmt_bytes(n), help=f"{fmt_bytes(n / prompt)} {t('dg_calc_per_token', lang)}")
    prefill_s = rows[0].prefill_s if rows else None
    if prefill_s is not None:
        m2.metric(t("dg_calc_prefill", lang, gpu=gpu), f"{1e3 * prefill_s:,.1f} ms")
    else:
        st.info(t("dg_calc_no_prefill", lang, model=model))
    table = []
    for link, seconds in links:
        row = {t("dg_col_link", lang): link, t("dg_col_transfer_ms", lang): round(1e3 * seconds, 2)}
        if prefill_s is not None:
            row[t("dg_col_prefill_ms", lang)] = round(1e3 * prefill_s, 1)
            extra = 1e3 * (seconds - prefill_s)
            row[t("dg_col_hides", lang)] = t("dg_hides_yes", lang) if extra <= 0 else t("dg_hides_no", lang, ms=extra)
        table.append(row)
    show_table(pd.DataFrame(table), key=keys.CALC_TABLE)
    label = t("dg_calc_prefill", lang, gpu=gpu)
    st.plotly_chart(calculator_figure(links, prefill_s, label, lang), key=keys.FIG_CALC)
