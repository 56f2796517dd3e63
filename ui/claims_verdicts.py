"""Verdicts as the sweeps and claims pages show them: a mark and a word, the sentence with the measured
numbers (lab.verdicts.explain, from the catalogues) with the load other work put on the machine beside
it where the verdict timed something (ui/paired.py's words), and the sweeps page's table."""

from __future__ import annotations

import pandas as pd

from lab.verdicts import FAILS, HOLDS, NOT_SEPARABLE, ROUGHLY, SHOWN, UNMEASURABLE, UNRELIABLE, Verdict, explain
from ui.i18n import t
from ui.paired import busy_beside

MARKS = {HOLDS: "✓", ROUGHLY: "≈", FAILS: "✗", UNMEASURABLE: "–", SHOWN: "→", UNRELIABLE: "⚠", NOT_SEPARABLE: "≟"}


def verdict_label(v: Verdict, lang: str) -> str:
    return f"{MARKS[v.verdict]} {t('verdict_' + v.verdict, lang)}"


def verdict_numbers(v: Verdict, lang: str) -> str:
    """The numbers behind a verdict, and beside them how busy other work kept the machine while they
    were timed (nothing where it was quiet or nothing was timed)."""
    return explain(v, lang) + busy_beside(v.load, lang)


def sweep_frame(verdicts: list[Verdict], lang: str) -> pd.DataFrame:
    """The sweeps page's table: claim, verdict, the numbers behind it, the rule used."""
    return pd.DataFrame(
        [
            {
                t("sw_col_claim", lang): v.claim,
                t("sw_col_verdict", lang): verdict_label(v, lang),
                t("sw_col_numbers", lang): verdict_numbers(v, lang),
                t("sw_col_rule", lang): t(f"rule_{v.claim.lower()}", lang),
            }
            for v in verdicts
        ]
    )
