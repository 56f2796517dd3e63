"""The memory sweep's timing (C20): what eager's materialised scores cost in time against sdpa, the
same prefill each way, interleaved (lab/prefill_timing.py). The bytes eager writes come first (counted,
whatever the load); then each one's median time and eager ÷ sdpa with its interval and n, a verdict only
where the interval allows one, other work beside it (ui/paired.py); and a download with the intervals."""

from __future__ import annotations

import json

import pandas as pd
import streamlit as st

from app_pages.memory import keys
from app_pages.memory.strings import t
from app_pages.memory.sweep import SweepResult
from ui.paired import explain_text, ratio_text, retaken_text, verdict_text
from ui.tables import short_labels, show_table
from ui.text import download_name
from ui.theme import MIB


def timing_table(result: SweepResult, lang: str) -> None:
    """Eager against sdpa in time, beside what eager writes (counted): work first, then its time."""
    if not result.timings:
        return
    st.subheader(t("mem_time_header", lang))
    st.markdown(t("mem_time_explain", lang, layers=result.num_layers, heads=result.num_heads, bytes=result.elem_bytes))
    per_layer = [result.num_heads * x.L * x.L * result.elem_bytes for x in result.timings]
    table = pd.DataFrame(
        {
            "L": [x.L for x in result.timings],
            t("mem_col_scores_written", lang): [result.num_layers * b / MIB for b in per_layer],
            t("mem_col_eager_ms", lang): [x.eager_ms for x in result.timings],
            t("mem_col_sdpa_ms", lang): [x.sdpa_ms for x in result.timings],
            t("mem_col_time_ratio", lang): [ratio_text(x.ratio, lang) for x in result.timings],
            t("mem_col_time_verdict", lang): [
                verdict_text(x.ratio, lang, t("mem_eager_slower", lang), t("mem_eager_faster", lang))
                for x in result.timings
            ],
        }
    )
    number = st.column_config.NumberColumn(format="%.1f")
    config = {c: number for c in table.columns[1:4]}
    short = short_labels(t, lang, "mem_col_scores_written", "mem_col_eager_ms", "mem_col_sdpa_ms", "mem_col_time_ratio")
    show_table(table, key=keys.TIME_TABLE, short=short, column_config=config)
    retaken = sum(x.ratio.retaken for x in result.timings)
    st.caption(" ".join(x for x in (t("mem_time_caption", lang), retaken_text(retaken, lang)) if x))
    with st.expander(t("mem_pair_header", lang)):
        st.markdown(explain_text(lang))


def timings_json(result: SweepResult) -> str:
    """Each timed length: both medians and eager ÷ sdpa with its interval, n and the busiest load."""
    rows = [
        {"prompt_len": x.L, "eager_ms": x.eager_ms, "sdpa_ms": x.sdpa_ms, "eager_over_sdpa": x.ratio.to_dict()}
        for x in result.timings
    ]
    return json.dumps({"model": result.model_name, "dtype": result.dtype, "timings": rows}, indent=1)


def timing_download(result: SweepResult, lang: str) -> None:
    if not result.timings:
        return
    st.download_button(
        t("mem_download_timing", lang),
        timings_json(result),
        file_name=download_name("memory-timing", result.model_name, ext="json"),
        mime="application/json",
        on_click="ignore",
        key=keys.TIME_JSON,
        icon=":material/download:",
    )
