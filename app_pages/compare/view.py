"""The last comparison: each column's outcome and text, the side-by-side replay, the shared charts
and the summary table with each column's ratio to the first, and a caption naming the biggest
differences."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from app_pages.compare import keys
from app_pages.compare.column_summary import (
    ColumnSummary,
    biggest_differences,
    column_name,
    prompts_differ,
    ratio,
    setting_phrases,
    summarise,
)
from app_pages.compare.figures import Series, itl_figure, kv_growth_figure, latency_bars_figure, peak_memory_figure
from app_pages.compare.replay import replay_section
from app_pages.compare.state import ColumnOutcome, CompareResult, CompareStatus
from app_pages.compare.strings import t
from lab.busy import busiest
from ui.chips import output_html
from ui.errors import show_message
from ui.live_html import done_text
from ui.load_note import ratio_label, show_load
from ui.run_state import RunStatus
from ui.text import md_escape
from ui.theme import KIB, MIB


def _outcome(c: ColumnOutcome, lang: str) -> None:
    """One column's header: its settings, how it went, its text."""
    st.markdown(f"**{t('cmp_column', lang, n=c.settings.index + 1)}**")
    phrases = setting_phrases(c.settings, lang)
    if c.settings.run.chat and not c.chat_applied and c.result is not None:
        phrases["chat"] = t("cmp_chat_missing", lang)
    st.caption(" · ".join(phrases.values()))
    r = c.result
    if c.error:
        show_message(c.error)
    elif r is None:
        st.warning(t("cmp_not_run", lang), icon=":material/stop_circle:")
        return
    elif r.status == RunStatus.STOPPED:
        st.warning(t("run_stopped", lang, n=len(r.tokens)), icon=":material/stop_circle:")
    elif r.status == RunStatus.DONE:
        st.success(done_text(r, lang), icon=":material/check_circle:")
    if r is not None and r.tokens:
        st.html(output_html(r.text))


TIME_RATIOS = ("cmp_col_ttft_x", "cmp_col_tpot_x", "cmp_col_e2e_x")


def summary_table(summaries: list[ColumnSummary], names: list[str], lang: str, busy: bool = False) -> pd.DataFrame:
    """One column per finished run, one row per metric (narrow enough to read without scrolling);
    the times' spread over the repeats when there are several; the last rows are each run's ratio to
    (and KV difference from) the base, the first run. Timed on a busy machine, the time ratios are
    left empty and their rows say why (memory ratios do not depend on the machine's load)."""
    base = summaries[0]

    def num(v: float | None, digits: int = 1) -> float | None:
        return None if v is None else round(v, digits)

    def mib(b: int | None) -> float | None:
        return None if b is None else b / MIB

    def spread(s: ColumnSummary, name: str) -> float | None:
        v = (s.spread or {}).get(name)
        return None if v is None else round(100 * v, 1)

    repeated = any(s.runs > 1 for s in summaries)
    rows = {
        "cmp_col_runs": lambda s: s.runs,
        "cmp_col_prompt": lambda s: s.prompt_tokens,
        "cmp_col_output": lambda s: s.output_tokens,
        "cmp_col_ttft": lambda s: num(s.ttft_ms),
        "cmp_col_tpot": lambda s: num(s.tpot_ms),
        "cmp_col_itl_mean": lambda s: num(s.itl_mean_ms),
        "cmp_col_itl_p50": lambda s: num(s.itl_p50_ms),
        "cmp_col_itl_p99": lambda s: num(s.itl_p99_ms),
        "cmp_col_itl_n": lambda s: s.itl_n,
        "cmp_col_e2e": lambda s: num(s.e2e_ms, 0),
        **(
            {
                "cmp_col_ttft_spread": lambda s: spread(s, "ttft_ms"),
                "cmp_col_tpot_spread": lambda s: spread(s, "tpot_ms"),
                "cmp_col_e2e_spread": lambda s: spread(s, "e2e_ms"),
            }
            if repeated
            else {}
        ),
        "cmp_col_peak": lambda s: num(mib(s.peak_bytes), 2),
        "cmp_col_kv": lambda s: num(s.kv_end_bytes / KIB),
        "cmp_col_ttft_x": lambda s: num(ratio(s.ttft_ms, base.ttft_ms), 2),
        "cmp_col_tpot_x": lambda s: num(ratio(s.tpot_ms, base.tpot_ms), 2),
        "cmp_col_e2e_x": lambda s: num(ratio(s.e2e_ms, base.e2e_ms), 2),
        "cmp_col_peak_x": lambda s: num(ratio(s.peak_bytes, base.peak_bytes), 2),
        "cmp_col_kv_diff": lambda s: num((s.kv_end_bytes - base.kv_end_bytes) / KIB),
    }
    if busy:
        rows = {key: (lambda s: None) if key in TIME_RATIOS else f for key, f in rows.items()}
    labels = [ratio_label(t(k, lang), busy and k in TIME_RATIOS, lang) for k in rows]
    table = pd.DataFrame({name: [f(s) for f in rows.values()] for s, name in zip(summaries, names)}, index=labels)
    table.index.name = t("cmp_col_metric", lang)
    return table


def _charts(series: list[Series], summaries: list[ColumnSummary], lang: str) -> None:
    c1, c2 = st.columns(2)
    c1.plotly_chart(latency_bars_figure(series, summaries, lang), key=keys.FIG_LATENCY)
    c2.plotly_chart(itl_figure(series, lang), key=keys.FIG_ITL)
    c1, c2 = st.columns(2)
    c1.plotly_chart(kv_growth_figure(series, lang), key=keys.FIG_KV)
    c2.plotly_chart(peak_memory_figure(series, lang), key=keys.FIG_PEAK)
    st.caption(t("cmp_charts_caption", lang))


def render_comparison(result: CompareResult | None, lang: str) -> None:
    if result is None:
        st.info(t("cmp_no_run", lang))
        return
    if result.status == CompareStatus.STOPPED:
        st.warning(t("cmp_stopped", lang), icon=":material/stop_circle:")
    for c, box in zip(result.columns, st.columns(len(result.columns), border=True)):
        with box:
            _outcome(c, lang)
    done = result.finished
    if not done:
        return
    base = done[0].settings
    differ = prompts_differ([c.settings for c in done])
    names = [column_name(c.settings, base, lang, differ) for c in done]
    st.subheader(t("cmp_replay_header", lang))
    replay_section(done, lang)
    summaries = [summarise(c) for c in done]
    st.subheader(t("cmp_charts_header", lang))
    _charts([Series(name, c.settings.color, c.result) for name, c in zip(names, done)], summaries, lang)
    st.subheader(t("cmp_table_header", lang))
    loads = [run.load for c in done for run in c.runs or [c.result] if run.load is not None]
    busy = any(x.busy for x in loads)
    table = summary_table(summaries, names, lang, busy)
    st.dataframe(
        table,
        key=keys.TABLE,
        height=35 * (len(table) + 1) + 3,  # every row, no inner scrolling
        column_config={"_index": st.column_config.TextColumn(width="large")},  # the longest label, whole
    )
    if base.index != 0:
        st.caption(t("cmp_base_moved", lang, n=base.index + 1))
    show_load(busiest(loads), lang)
    lines = biggest_differences(summaries, [c.settings for c in done], lang, busy=busy)
    if lines:
        st.markdown("\n".join(f"- {md_escape(line)}" for line in lines))  # names quote model paths
    st.caption(t("cmp_table_caption", lang, n=base.index + 1))
