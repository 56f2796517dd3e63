"""The claims page's result: a summary line, one table of all verdicts (filled in as they land while the
check runs), then claim by claim the statement, the verdict, the measured numbers with the load beside
them, and a link to the page that shows it in depth."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from app_pages import BY_NAME, PageEntry
from app_pages.claims.strings import t
from lab.claims import CLAIM_IDS, CLAIM_PAGES
from lab.verdicts import FAILS, HOLDS, NOT_SEPARABLE, ROUGHLY, SHOWN, UNMEASURABLE, Verdict
from ui.claims_verdicts import verdict_label, verdict_numbers
from ui.paired import explain_text, retaken_text
from ui.tables import show_static_table
from ui.text import md_literal


def page_for(claim: str) -> PageEntry:
    """The page that shows a claim in depth (lab/claims.py names it, app_pages.PAGES knows it)."""
    return BY_NAME[CLAIM_PAGES[claim]]


def claims_table(lang: str) -> pd.DataFrame:
    """Before any check: every claim with its statement and the page that shows it."""
    return pd.DataFrame(
        [
            {
                t("cl_col_claim", lang): c,
                t("cl_col_text", lang): t(f"claim_{c}", lang),
                t("cl_col_page", lang): t(page_for(c).title_key, lang),
            }
            for c in CLAIM_IDS
        ]
    )


def render_claims_list(lang: str) -> None:
    show_static_table(claims_table(lang))  # a static table wraps its sentences: none is cut


def verdict_table(verdicts: dict[str, Verdict], lang: str, missing: str = "cl_not_checked") -> pd.DataFrame:
    """Every claim with its verdict and numbers; a claim not judged (yet) says so in both cells."""
    rows = []
    for c in CLAIM_IDS:
        v = verdicts.get(c)
        rows.append(
            {
                t("cl_col_claim", lang): c,
                t("cl_col_text", lang): t(f"claim_{c}", lang),
                t("cl_col_verdict", lang): verdict_label(v, lang) if v else t(missing, lang),
                t("cl_col_numbers", lang): verdict_numbers(v, lang) if v else "",
            }
        )
    return pd.DataFrame(rows)


def live_table(verdicts: dict[str, Verdict], lang: str) -> pd.DataFrame:
    """The table while the check runs: the verdicts so far, the rest still being measured."""
    return verdict_table(verdicts, lang, missing="cl_pending")


SUMMARY_KINDS = {
    HOLDS: "holds",
    ROUGHLY: "roughly",
    FAILS: "fails",
    NOT_SEPARABLE: "not_separable",
    UNMEASURABLE: "unmeasurable",
    SHOWN: "shown",
}


def summary_text(model: str, verdicts: dict[str, Verdict], lang: str) -> str:
    """ "On X: 14 hold, 7 hold roughly, 1 does not hold, 1 cannot be measured here." (kinds with none left out)."""
    parts = []
    for kind, name in SUMMARY_KINDS.items():
        n = sum(v.verdict == kind for v in verdicts.values())
        if n:
            parts.append(t(f"cl_n_{name}", lang, n=n))  # a plural: one form per count in the language's rule
    return t("cl_summary", lang, model=md_literal(model), parts=t("cl_and", lang).join(parts))


def render_summary(model: str, verdicts: dict[str, Verdict], lang: str, retaken: int = 0) -> None:
    st.markdown(summary_text(model, verdicts, lang))
    notes = [explain_text(lang)] + ([retaken_text(retaken, lang)] if retaken else [])
    st.caption(" ".join(notes))


def render_claim(claim: str, v: Verdict | None, lang: str) -> None:
    with st.container(border=True):
        c1, c2, c3 = st.columns([5, 1.4, 2], vertical_alignment="center")
        c1.markdown(f"**{claim}** · {t(f'claim_{claim}', lang)}")
        c2.markdown(f"**{verdict_label(v, lang) if v else t('cl_not_checked', lang)}**")
        page = page_for(claim)
        c3.page_link(
            page.file, label=t("cl_open_page", lang, page=t(page.title_key, lang)), icon=":material/arrow_forward:"
        )
        if v:
            st.caption(verdict_numbers(v, lang))


def linked_claim() -> str | None:
    """The claim a link in the lab's text points at (/claims?claim=C12), if it names one."""
    claim = st.query_params.get("claim", "").upper()
    return claim if claim in CLAIM_IDS else None


def render_linked_claim(claim: str, verdicts: dict[str, Verdict] | None, lang: str) -> None:
    """The claim a link led here for, first on the page: its statement, its verdict if checked, its page."""
    st.markdown(f"**{t('cl_linked', lang, claim=claim)}**")
    if verdicts and claim in verdicts:
        render_claim(claim, verdicts[claim], lang)
        return
    with st.container(border=True):
        c1, c3 = st.columns([5, 2], vertical_alignment="center")
        c1.markdown(f"**{claim}** · {t(f'claim_{claim}', lang)}")
        page = page_for(claim)
        c3.page_link(
            page.file, label=t("cl_open_page", lang, page=t(page.title_key, lang)), icon=":material/arrow_forward:"
        )


def render_result(model: str, verdicts: dict[str, Verdict], lang: str, retaken: int = 0) -> None:
    render_summary(model, verdicts, lang, retaken)
    st.subheader(t("cl_table_header", lang))
    show_static_table(verdict_table(verdicts, lang))  # wraps the long cells, at any width
    st.caption(t("cl_table_note", lang))
    st.subheader(t("cl_details_header", lang))
    for claim in CLAIM_IDS:
        render_claim(claim, verdicts.get(claim), lang)
