"""What each set-up gave, from a run's rounds (app_pages/disaggregation/run.py): how busy the machine
was, each set-up's numbers (the median of its rounds), each set-up against the colocated whole-prompt
server round by round (ratios with their interval and n, a verdict only where the interval allows,
ui/paired.py), goodput at the SLO over every round, which set-up served the most where that is
separable, and the first round's figures."""

from __future__ import annotations

import statistics
from typing import TYPE_CHECKING

import pandas as pd
import streamlit as st

from app_pages.disaggregation import keys
from app_pages.disaggregation.figures import distribution_figure, gantt_figure, interference_figure
from app_pages.disaggregation.strings import t
from app_pages.disaggregation.work import show_work
from lab.disaggregation import SETUPS, Summary
from lab.disaggregation_rounds import BASE, TPOT_FACTOR, TTFT_FACTOR, goodput_over_rounds, paired
from lab.pairing import GREATER, compare
from ui.paired import busy_beside, explain_text, ratio_text, retaken_text, verdict_text
from ui.slo_box import slo_text, verdict_row, verdict_table
from ui.tables import short_labels, show_table
from ui.widget_state import KEEP

if TYPE_CHECKING:
    from app_pages.disaggregation.run import DisaggResult

# Each number set beside the whole-prompt server's: its column, and the words for above and below 1.
COMPARED_WORDS = {
    "chat_gap_ms": ("dg_col_vs_gap", "dg_longer", "dg_shorter"),
    "chat_tpot_ms": ("dg_col_vs_tpot", "dg_longer", "dg_shorter"),
    "long_ttft_ms": ("dg_col_vs_long", "dg_longer", "dg_shorter"),
    "goodput": ("dg_col_vs_goodput", "dg_more", "dg_less"),
}

# The columns whose labels have a short message beside them (the long one is the column's help).
SHORT = ("dg_col_long_ttft", "dg_col_transfer", "dg_col_vs_gap", "dg_col_vs_long", "dg_col_vs_tpot")


def _cell(r, lang: str, greater: str, less: str) -> str:
    return f"{ratio_text(r, lang)}: {verdict_text(r, lang, t(greater, lang), t(less, lang))}"


def rounds_table(r: DisaggResult, lang: str) -> pd.DataFrame:
    """Each set-up against the whole-prompt server, paired round by round (the load other work put on
    the machine is said once, beside the table's header: every pair ran beside the same reading)."""
    sums, retaken = r.summaries(), r.rounds.retaken
    rows = []
    for name in (n for n in SETUPS if n != BASE and n in sums[0]):
        row = {t("dg_col_setup", lang): t(f"dg_setup_{name}", lang)}
        for what, (column, greater, less) in COMPARED_WORDS.items():
            row[t(column, lang)] = _cell(paired(sums, name, what, BASE, retaken), lang, greater, less)
        rows.append(row)
    return pd.DataFrame(rows)


def _median(sums: list[dict[str, Summary]], name: str, get) -> float | None:
    values = [get(s[name]) for s in sums if name in s and get(s[name]) is not None]
    return statistics.median(values) if values else None


def _summary_table(r: DisaggResult, lang: str) -> None:
    sums = r.summaries()
    rows = []
    for name in sums[0]:
        transfer = _median(sums, name, lambda s: s.transfer_ms)
        handoff = _median(sums, name, lambda s: s.handoff_bytes)
        rows.append(
            {
                t("dg_col_setup", lang): t(f"dg_setup_{name}", lang),
                t("dg_col_chat_tpot", lang): round(_median(sums, name, lambda s: s.chat_tpot_ms), 1),
                t("dg_col_chat_gap", lang): round(_median(sums, name, lambda s: s.chat_gap_ms)),
                t("dg_col_chat_ttft", lang): round(_median(sums, name, lambda s: s.chat_ttft_ms)),
                t("dg_col_long_ttft", lang): round(_median(sums, name, lambda s: s.long_ttft_ms)),
                # a colocated server hands nothing over: a dash, never an empty cell
                t("dg_col_transfer", lang): "—" if transfer is None else f"{transfer:.0f}",
                t("dg_col_handoff", lang): "—" if handoff is None else f"{handoff / 2**20:.1f}",
            }
        )
    st.markdown(f"**{t('dg_summary_header', lang, n=len(sums))}**")
    show_table(pd.DataFrame(rows), key=keys.SUMMARY, short=short_labels(t, lang, *SHORT))


def _winner(r: DisaggResult, lang: str) -> None:
    """The set-up whose goodput is separably above every other's, round by round; or none."""
    sums, load, retaken = r.summaries(), r.rounds.load, r.rounds.retaken
    names = list(sums[0])
    name = {n: t(f"dg_setup_{n}", lang) for n in names}
    for best in names:
        against = {other: paired(sums, best, "goodput", other, retaken, load) for other in names if other != best}
        if all(x is not None and compare(x) == GREATER for x in against.values()):
            ratios = "; ".join(f"÷ {name[o]} {ratio_text(x, lang)}" for o, x in against.items())
            st.markdown(t("dg_winner", lang, best=name[best], slo=slo_text(r.slo, lang), ratios=ratios))
            return
    st.markdown(t("dg_no_winner", lang, slo=slo_text(r.slo, lang)))


def _goodput(r: DisaggResult, lang: str) -> None:
    st.markdown(f"**{t('dg_goodput_header', lang, n=len(r.rounds.rounds))}** ({slo_text(r.slo, lang)})")
    if r.calibration is not None:
        c = r.calibration
        st.caption(t("dg_calibrated", lang, tf=TTFT_FACTOR, ttft=c.solo_ttft_ms, pf=TPOT_FACTOR, tpot=c.solo_tpot_ms))
    judged = [
        verdict_row(
            {t("dg_col_setup", lang): t(f"dg_setup_{n}", lang)},
            goodput_over_rounds([x[n] for x in r.rounds.rounds], r.slo),
            lang,
            r.rounds.load,
        )
        for n in r.runs
    ]
    verdict_table(judged, keys.GOODPUT, lang)


def _load_caption(r: DisaggResult, lang: str) -> None:
    load = r.rounds.load
    if load is None:
        return
    said = (
        t("dg_load", lang, other=load.other_cores, cores=load.cores)
        if load.other_cores is not None
        else t("load_unknown", lang)
    )
    st.caption(" ".join(x for x in (said, retaken_text(r.rounds.retaken, lang)) if x))


def render_results(r: DisaggResult, lang: str) -> None:
    _load_caption(r, lang)
    if r.work:
        show_work(r.work, r.long_tokens, lang)
    _summary_table(r, lang)
    header = t("dg_compare_header", lang, n=len(r.rounds.rounds))
    st.markdown(f"**{header}**{busy_beside(r.rounds.load, lang)}")
    show_table(rounds_table(r, lang), key=keys.COMPARE, short=short_labels(t, lang, *SHORT))
    with st.expander(t("dg_pair_header", lang)):
        st.markdown(explain_text(lang))
    _goodput(r, lang)
    _winner(r, lang)
    pd_sum = r.summaries()[0].get("pd")
    if pd_sum and pd_sum.transfer_ms is not None and pd_sum.handoff_bytes:
        st.markdown(t("dg_why_pd", lang, mib=pd_sum.handoff_bytes / 2**20, ms=pd_sum.transfer_ms))
    st.plotly_chart(distribution_figure(r.runs, lang), key=keys.FIG_DIST)
    st.plotly_chart(interference_figure(r.runs, lang), key=keys.FIG_INTERFERENCE)
    st.caption(t("dg_interference_caption", lang))
    if st.session_state.get(keys.GANTT_SETUP) not in r.runs:
        st.session_state[keys.GANTT_SETUP] = "pd" if "pd" in r.runs else next(iter(r.runs))
    which = st.radio(
        t("dg_gantt_setup", lang),
        list(r.runs),
        format_func=lambda n: t(f"dg_setup_{n}", lang),
        key=keys.GANTT_SETUP,
        horizontal=True,
        persist_state=KEEP,
    )
    st.plotly_chart(gantt_figure(r.runs[which], lang), key=keys.FIG_GANTT)
    st.caption(t("dg_gantt_caption", lang))
