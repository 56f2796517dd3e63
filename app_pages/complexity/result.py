"""What a cache on/off comparison measured (complexity/run.py): the work first, counted exactly (FLOPs
per step, the tokens recomputed without the cache, their exponents), then the time beside it (the
per-step ratio of the raced steps with its interval and n, the time's exponents with theirs); the
headline states what these sizes can show, and the charts put each count beside its timing."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from app_pages.complexity import keys
from app_pages.complexity.figures import (
    cumulative_figure,
    ratio_figure,
    step_flops_figure,
    step_time_figure,
)
from app_pages.complexity.run import Comparison, measure_comparison, render_controls
from app_pages.complexity.strings import t
from lab.complexity_math import Exponent, measured_exponents, scaled_theory
from ui.paired import explain_text, ratio_text
from ui.queue_wait import take_turn
from ui.tables import short_labels, show_table
from ui.text import md_literal

# The columns whose labels have a short message beside them (the long one is the column's help).
SHORT = ("cx_col_slope_ms", "cx_col_slope_doc_range")


def _exp(e: Exponent | None, lang: str) -> str:
    return t("cx_slope_none", lang) if e is None else t("cx_exp_interval", lang, x=e.value, low=e.low, high=e.high)


def _flops_exp(r: Comparison, kv: bool, lang: str) -> str:
    value = measured_exponents(r.runs[kv])[1]
    return t("cx_slope_none", lang) if value is None else f"{value:.2f}"


def exponent_table(r: Comparison, lang: str) -> pd.DataFrame:
    rows = []
    for kv in (True, False):
        run = r.runs[kv]
        theory = scaled_theory(r.prompt_len, run.cumulative_flops, 1 if kv else 2)
        rows.append(
            {
                t("cx_col_mode", lang): t("cx_cache_on" if kv else "cx_cache_off", lang),
                t("cx_col_slope_flops", lang): _flops_exp(r, kv, lang),
                t("cx_col_tokens_fed", lang): sum(r.race.tokens_fed[kv]),
                t("cx_col_total_ms", lang): round(sum(run.step_ms)),
                t("cx_col_slope_ms", lang): _exp(r.time_exponents.get(kv), lang),
                t("cx_col_slope_doc_range", lang): "—" if theory.slope is None else f"{theory.slope:.2f}",
                t("cx_col_slope_doc", lang): "2 (C14)" if kv else "3 (C13)",
            }
        )
    return pd.DataFrame(rows)


def headline(r: Comparison, lang: str) -> str:
    """What these sizes can show: the counted FLOPs' exponents, the time's beside them with their
    intervals, and where the document's exponents would show on this model."""
    last = r.prompt_len + r.num_steps
    measured = t(
        "cx_headline",
        lang,
        n=r.num_steps,
        on_f=_flops_exp(r, True, lang),
        off_f=_flops_exp(r, False, lang),
        on_t=_exp(r.time_exponents.get(True), lang),
        off_t=_exp(r.time_exponents.get(False), lang),
        last=last,
    )
    where = "cx_headline_far" if last < r.crossover_uncached else "cx_headline_near"
    return measured + " " + t(where, lang, cross=f"{r.crossover:,}", cross2=f"{r.crossover_uncached:,}")


def _metrics(r: Comparison, lang: str) -> None:
    """The counted row first, then the timed one with the paired ratio beside its totals."""
    on, off = r.runs[True], r.runs[False]
    c = st.columns(3)
    same = t("cx_yes" if r.tokens_match else "cx_no", lang)
    c[0].metric(t("cx_m_match", lang), same, help=t("cx_m_match_help", lang))
    c[1].metric(t("cx_m_flops_ratio", lang), f"{r.race.flops_ratio():.1f}×", help=t("cx_m_flops_ratio_help", lang))
    c[2].metric(t("cx_m_recomputed", lang), f"{r.race.tokens_recomputed:,}", help=t("cx_m_recomputed_help", lang))
    c = st.columns(3)
    c[0].metric(t("cx_m_on", lang), f"{sum(on.step_ms) / 1e3:.2f} s")
    c[1].metric(t("cx_m_off", lang), f"{sum(off.step_ms) / 1e3:.2f} s")
    c[2].markdown(t("cx_time_ratio", lang, ratio=ratio_text(r.race.ratio, lang)))


def render_result(r: Comparison, lang: str) -> None:
    st.info(headline(r, lang), icon=":material/functions:")
    _metrics(r, lang)
    st.caption(
        t(
            "cx_result_caption",
            lang,
            model=md_literal(r.model),
            L=r.prompt_len,
            N=r.max_new_tokens,
            n=r.num_steps,
            last=r.prompt_len + r.num_steps,
        )
    )
    show_table(exponent_table(r, lang), key=keys.EXPONENTS, short=short_labels(t, lang, *SHORT))
    last = r.prompt_len + r.num_steps
    st.markdown(
        t(
            "cx_reading" if last < r.crossover else "cx_reading_beyond",
            lang,
            last=last,
            cross=f"{r.crossover:,}",
            cross2=f"{r.crossover_uncached:,}",
        )
    )
    c1, c2 = st.columns(2)
    c1.plotly_chart(cumulative_figure(r.runs, r.prompt_len, "flops", lang), key=keys.FIG_CUM_FLOPS)
    slopes = {kv: e.value for kv, e in r.time_exponents.items() if e is not None}
    c2.plotly_chart(cumulative_figure(r.runs, r.prompt_len, "ms", lang, slopes), key=keys.FIG_CUM_MS)
    c1, c2 = st.columns(2)
    c1.plotly_chart(step_flops_figure(r.runs, r.prompt_len, lang), key=keys.FIG_STEP_FLOPS)
    c2.plotly_chart(step_time_figure(r.runs, r.prompt_len, lang), key=keys.FIG_STEP_MS)
    st.plotly_chart(ratio_figure(r.race, lang), key=keys.FIG_RATIO)
    st.caption(t("cx_ratio_caption", lang))
    st.caption(t("cx_noise_note", lang))
    with st.expander(t("cx_method", lang)):
        st.markdown(explain_text(lang))
    with st.expander(t("cx_text_header", lang)):
        st.text(r.text)  # st.text shows it literally: model output never becomes markup


def render_cache_section(bundle, registry, lang: str) -> None:
    st.markdown(t("cx_cache_intro", lang))
    prompt_len, max_new, clicked = render_controls(bundle.model.config.max_position, lang)
    if clicked:
        with take_turn(lang) as go:
            if go:
                measure_comparison(bundle, registry, prompt_len, max_new, lang)
    result = st.session_state.get(keys.RESULT)
    if result is None:
        st.info(t("cx_not_run", lang))
        return
    render_result(result, lang)
