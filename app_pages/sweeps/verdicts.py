"""The sweeps page's verdicts: the table of C4, C8, C9 and C18 from the rounds measured so far (each
comparison a paired ratio with its interval and n, the load beside it), how many rounds were measured
again, and the method in one caption."""

from __future__ import annotations

import streamlit as st

from engine.errors import LabError
from lab.sweep_verdicts import sweep_verdicts
from lab.sweeps import SweepResult
from ui.claims_verdicts import sweep_frame
from ui.paired import explain_text, retaken_text
from ui.tables import show_static_table


def render_verdicts(result: SweepResult, lang: str) -> None:
    try:
        verdicts = sweep_verdicts(result)
    except LabError as exc:
        st.info(str(exc))
        return
    show_static_table(sweep_frame(verdicts, lang))  # a table: the sentences wrap
    notes = [explain_text(lang)] + ([retaken_text(result.retaken, lang)] if result.retaken else [])
    st.caption(" ".join(notes))
