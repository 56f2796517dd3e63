"""How long a claims check should take here, said beside the button (and after a run, at its pace): at
the pace of this session's last check of the same model, else at the step time this machine's measured read bandwidth implies, else at
the reference machine's (lab/claims_pace.py). Where the full check would take long (a big model, a
slow machine), the page suggests the quick one."""

from __future__ import annotations

import streamlit as st

from app_pages.claims import keys
from app_pages.claims.strings import t
from lab.claims_measure import ClaimSettings
from lab.claims_pace import LONG_CHECK_S, predicted_seconds, step_seconds
from lab.claims_run import PARTS
from ui.text import fmt_duration


def step_s(bundle) -> float:
    """Seconds per decode step of work for this model on this machine, as best known before a run."""
    last = st.session_state.get(keys.RESULT)
    if last is not None and last.model == bundle.name and last.step_s:
        return last.step_s
    from lab.hardware import cached_ceilings

    ceilings = cached_ceilings(bundle.model.device.type)
    return step_seconds(bundle.model.weight_bytes, ceilings.read_bytes_per_s if ceilings else None)


def render_estimate(bundle, settings: ClaimSettings, quick: bool, lang: str) -> None:
    """A caption with both checks' times, or the suggestion to run the quick one."""
    pace = step_s(bundle)
    full = predicted_seconds(PARTS, ClaimSettings().with_rounds(settings.rounds), pace)
    fast = predicted_seconds(PARTS, ClaimSettings.quick().with_rounds(settings.rounds), pace)
    words = dict(full=fmt_duration(full, lang), quick=fmt_duration(fast, lang))
    if not quick and full > LONG_CHECK_S:
        st.info(t("cl_suggest_quick", lang, **words), icon=":material/bolt:")
    else:
        st.caption(t("cl_estimate", lang, **words))
