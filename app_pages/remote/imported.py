"""A GuideLLM or `vllm bench serve` report opened on the page: each load's percentiles by our
definitions beside the tool's own figures, its timeline, and every load judged at the SLO box."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from app_pages.remote import keys
from app_pages.remote.figures import gantt_figure
from app_pages.remote.load import render_goodput, summary_table
from app_pages.remote.strings import t
from lab.remote_metrics import MetricsWatch
from lab.report_import import Imported, ImportedRun
from ui.percentile_labels import stat_cell
from ui.tables import show_table
from ui.text import md_literal
from ui.widget_state import KEEP

METRIC_NAMES = {"ttft_ms": "TTFT", "tpot_ms": "TPOT", "itl_ms": "ITL", "e2e_ms": "E2E"}


def theirs_table(run: ImportedRun, lang: str) -> pd.DataFrame:
    rows = []
    for f in run.theirs:
        ours = METRIC_NAMES[f.ours] if f.ours else t("rm_imported_none", lang)
        cells = {s.upper(): stat_cell(f.stats[s], s, f.n) if s in f.stats else "—" for s in ("p50", "p90", "p99")}
        mean = f"{f.stats['mean']:,.1f}" if "mean" in f.stats else "—"
        rows.append(
            {t("rm_imported_col_figure", lang): f.label, t("rm_imported_col_ours", lang): ours, "n": f.n}
            | cells
            | {"mean": mean}
        )
    return pd.DataFrame(rows)


def render_imported(name: str, imported: Imported, lang: str) -> None:
    prefix = keys.SAVED_PREFIX
    st.info(
        t(
            "rm_imported",
            lang,
            file=md_literal(name),
            tool=imported.tool,
            n=len(imported.runs),
            target=md_literal(imported.target),
        ),
        icon=":material/upload_file:",
    )
    with st.expander(t("rm_imported_diff_header", lang)):
        st.markdown(t("rm_imported_diff", lang))
    labels = [r.label for r in imported.runs]
    pick = 0
    if len(labels) > 1:
        pick = st.selectbox(
            t("rm_imported_pick", lang),
            range(len(labels)),
            format_func=labels.__getitem__,
            key=prefix + keys.imported_pick(name),
            persist_state=KEEP,
        )
    chosen = imported.runs[pick]
    st.markdown(t("rm_imported_ours", lang))
    show_table(summary_table(chosen.run, lang), key=prefix + keys.SUMMARY_TABLE)
    if not imported.per_token_times:
        st.caption(t("rm_imported_no_itl", lang))
    if chosen.theirs:
        st.markdown(t("rm_imported_theirs", lang, tool=imported.tool))
        show_table(theirs_table(chosen, lang), key=prefix + keys.IMPORTED_THEIRS)
    if imported.send_times:
        st.plotly_chart(gantt_figure(chosen.run, lang), key=prefix + keys.FIG_GANTT)
    else:
        st.caption(t("rm_imported_no_sends", lang))
    unread = MetricsWatch(note=t("rm_imported_server", lang))
    render_goodput([(r.run, unread) for r in imported.runs], lang, prefix)
