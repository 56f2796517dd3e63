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
    what_it_compares,
)
from app_pages.compare.figures import (
    Series,
    itl_figure,
    kv_growth_figure,
    latency_bars_figure,
    peak_memory_figure,
    work_figure,
)
from app_pages.compare.replay import replay_section
from app_pages.compare.state import ColumnOutcome, CompareResult, CompareStatus
from app_pages.compare.strings import t
from ui.chips import output_html
from ui.errors import show_message
from ui.live_html import done_text
from ui.paired import explain_text, ratio_text, retaken_text
from ui.run_state import RunStatus
from ui.tables import show_table
from ui.text import md_escape
from ui.theme import KIB, MIB

INDEX_PX, COLUMNS_PX = 270, 660  # the summary table's widths: label, and all columns together


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


def summary_table(summaries: list[ColumnSummary], names: list[str], lang: str) -> pd.DataFrame:
    """One column per finished run, one row per metric (narrow enough to read without scrolling): the
    work it did (counted), its times over the first column's as paired ratios with their interval and
    n (ui/paired.py: the busy reading beside each), its times (medians over the repeats, with their
    spread when there are several), its memory, and its memory over the first column's. Every cell is
    text: a value that does not exist reads "—", never "None"."""
    base = summaries[0]

    def num(v: float | None, digits: int = 1) -> str:
        return "—" if v is None else f"{v:,.{digits}f}"

    def spread(s: ColumnSummary, name: str) -> str:
        v = (s.spread or {}).get(name)
        return "—" if v is None else f"{100 * v:.1f}"

    def vs(s: ColumnSummary, name: str) -> str:
        if s is base:
            return t("cmp_base_cell", lang)
        return ratio_text((s.vs_base or {}).get(name), lang)

    repeated = any(s.runs > 1 for s in summaries)
    rows = {
        "cmp_col_gflops": lambda s: num(s.gflops, 2),
        "cmp_col_mb_moved": lambda s: num(s.mb_moved, 0),
        "cmp_col_tokens_in": lambda s: f"{s.tokens_in:,}",
        "cmp_col_ttft_x": lambda s: vs(s, "ttft"),
        "cmp_col_tpot_x": lambda s: vs(s, "tpot"),
        "cmp_col_e2e_x": lambda s: vs(s, "e2e"),
        "cmp_col_runs": lambda s: str(s.runs),
        "cmp_col_prompt": lambda s: str(s.prompt_tokens),
        "cmp_col_output": lambda s: str(s.output_tokens),
        "cmp_col_ttft": lambda s: num(s.ttft_ms),
        "cmp_col_tpot": lambda s: num(s.tpot_ms),
        "cmp_col_itl_mean": lambda s: num(s.itl_mean_ms),
        "cmp_col_itl_p50": lambda s: num(s.itl_p50_ms),
        "cmp_col_itl_p99": lambda s: num(s.itl_p99_ms),
        "cmp_col_itl_n": lambda s: str(s.itl_n),
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
        "cmp_col_load": lambda s: load_cell(s.load, lang),
        "cmp_col_peak": lambda s: num(s.peak_bytes / MIB if s.peak_bytes is not None else None, 2),
        "cmp_col_kv": lambda s: num(s.kv_end_bytes / KIB),
        "cmp_col_peak_x": lambda s: num(ratio(s.peak_bytes, base.peak_bytes), 2),
        "cmp_col_kv_diff": lambda s: num((s.kv_end_bytes - base.kv_end_bytes) / KIB),
    }
    table = pd.DataFrame(
        {name: [f(s) for f in rows.values()] for s, name in zip(summaries, names)}, index=[t(k, lang) for k in rows]
    )
    table.index.name = t("cmp_col_metric", lang)
    return table


def load_cell(load, lang: str) -> str:
    """The other work on the machine while a column's runs were timed, in cores."""
    if load is None or load.other_cores is None:
        return "—"
    return t("cmp_load_cell", lang, other=load.other_cores, cores=load.cores)


def _charts(series: list[Series], summaries: list[ColumnSummary], lang: str) -> None:
    st.plotly_chart(work_figure(series, summaries, lang), key=keys.FIG_WORK)  # the work first, exact
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
    st.subheader(what_it_compares([c.settings for c in result.columns], lang))
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
    table = summary_table(summaries, names, lang)
    show_table(
        table,
        key=keys.TABLE,
        hide_index=False,
        height=35 * (len(table) + 1) + 3,  # every row, no inner scrolling
        short={name: t("cmp_column", lang, n=c.settings.index + 1) for name, c in zip(names, done)},  # the name: help
        column_config={  # the row labels whole, the columns sharing the rest of a 1400 px page's ~940 px
            "_index": st.column_config.TextColumn(width=INDEX_PX),
            **{name: st.column_config.TextColumn(width=max(120, COLUMNS_PX // len(names))) for name in names},
        },
    )
    if base.index != 0:
        st.caption(t("cmp_base_moved", lang, n=base.index + 1))
    if result.retaken:
        st.caption(retaken_text(result.retaken, lang))
    lines = biggest_differences(summaries, [c.settings for c in done], lang)
    if lines:
        st.markdown("\n".join(f"- {md_escape(line)}" for line in lines))  # names quote model paths
    st.caption(t("cmp_table_caption", lang, n=base.index + 1))
    with st.expander(t("cmp_pairing_header", lang)):
        st.markdown(explain_text(lang))
