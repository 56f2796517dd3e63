"""The counted work of each set-up (lab/disaggregation_work.py) as a table: the run's first result,
on screen before the servers start, and the head of its results."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from app_pages.disaggregation.strings import t
from engine.layers.kv_cache import kv_bytes_per_token
from lab.disaggregation_work import SetupWork, counted_work
from ui.tables import show_table


def work_of(model, long_tokens: int, chunk: int) -> dict[str, SetupWork]:
    """The counts for the loaded model, its KV stored in its own dtype (the servers' default)."""
    return counted_work(model.config, kv_bytes_per_token(model.config, model.dtype), long_tokens, chunk)


def show_work(work: dict[str, SetupWork], long_tokens: int, lang: str, where=None) -> None:
    rows = [
        {
            t("dg_col_setup", lang): t(f"dg_setup_{name}", lang),
            t("dg_col_w_tokens", lang): w.tokens_per_step,
            t("dg_col_w_steps", lang): w.steps,
            t("dg_col_w_gflop", lang): round(w.largest_step_flops / 1e9, 2),
            t("dg_col_w_handoff", lang): round(w.handoff_bytes / 2**20, 2),
        }
        for name, w in work.items()
    ]
    with (where or st).container():
        st.markdown(f"**{t('dg_work_header', lang, L=long_tokens)}**")
        show_table(pd.DataFrame(rows))
