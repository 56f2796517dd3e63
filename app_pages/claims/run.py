"""Running the claim checks from the page: lab/claims_run.py's parts under the registry's step lock
(they are timed), a progress bar that moves within every part and a Stop button, and each claim's
verdict in the table the moment the runs it needs are measured. The page keeps the verdicts in session
state as they land, so a Stop leaves those already judged."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import streamlit as st

from app_pages.claims import keys
from app_pages.claims.estimate import step_s
from app_pages.claims.panels import live_table
from app_pages.claims.strings import t
from engine.errors import LabError
from lab.claims_measure import ClaimData, ClaimSettings
from lab.claims_pace import ClaimsProgress, part_work
from lab.claims_run import ClaimsCheck
from lab.verdicts import Verdict
from ui.errors import error_message, show_message
from ui.run_section import run_with_progress
from ui.tables import show_static_table
from ui.text import with_eta

REDRAW_S = 0.5  # at most two progress redraws a second within a part: each takes CPU from the steps timed


@dataclass
class ClaimsResult:
    model: str
    settings: ClaimSettings
    verdicts: dict[str, Verdict] = field(default_factory=dict)  # filled as they land
    data: ClaimData | None = None
    seconds: float = 0.0
    complete: bool = False
    leak_note: str | None = None  # why C16 could not run its loop
    step_s: float | None = None  # this check's seconds per decode step of work: the next estimate's pace

    @property
    def retaken(self) -> int:
        """Rounds measured again because other work took the machine meanwhile."""
        d = self.data
        if d is None:
            return 0
        return (d.sweep.retaken if d.sweep else 0) + (d.precision.prefill.retaken if d.precision else 0)


def load_hf(bundle, result: ClaimsResult, lang: str):
    """transformers' copy of the weights for the C16 loop (cached per server), or None, saying why."""
    from ui.memory_leak import hf_model

    try:
        return hf_model(str(bundle.path))
    except Exception as exc:  # noqa: BLE001 - C16 then points to the memory lab instead
        result.leak_note = error_message(exc, lang)
        return None


def int8_copy(bundle):
    """The same model with int8 weights (bfloat16 activations, where this CPU's int8 kernel is fast) for
    C19's measured verdict; None where the format cannot run (then C19 argues from the roofline)."""
    from engine import load_model

    try:
        return load_model(str(bundle.path), dtype="bfloat16", device=str(bundle.model.device), weights="int8").model
    except LabError:
        return None


def run_checks(bundle, registry, lang: str, settings: ClaimSettings) -> None:
    result = ClaimsResult(bundle.name, settings)
    st.session_state[keys.RESULT] = result  # fills as verdicts land: a Stop keeps those judged
    st.session_state[keys.RUNNING_FLAG] = True  # still set on the next run: Stop (or a rerun) cut it short

    def check(box) -> ClaimsResult:
        bar = st.progress(0.0, text=t("cl_stage_starting", lang))
        table = st.empty()
        start, last = time.perf_counter(), [0.0]

        def progress(p: ClaimsProgress) -> None:
            now = time.perf_counter()
            if p.within and now - last[0] < REDRAW_S:
                return  # each redraw takes CPU from the steps being timed
            last[0] = now
            what = t(
                "cl_stage", lang, done=p.part, total=p.total, what=t(f"cl_stage_{p.what}", lang, n=settings.scores_len)
            )
            bar.progress(p.fraction, text=with_eta(what, p.seconds_left, lang))

        run = ClaimsCheck(
            bundle.model,
            bundle.tokenizer,
            settings,
            bundle.name,
            hf_loader=lambda: load_hf(bundle, result, lang),
            quantized_loader=lambda: int8_copy(bundle),
            step_s=step_s(bundle),  # the estimate before a pace is measured, the one the page showed
        )
        result.data = run.data
        with registry.step_lock:
            for verdict in run.verdicts(progress):
                result.verdicts[verdict.claim] = verdict
                show_static_table(live_table(result.verdicts, lang), where=table)  # between parts: nothing is timed
        result.seconds, result.complete = time.perf_counter() - start, True
        result.step_s = result.seconds / sum(part_work(p, settings) for p in run.parts)
        return result

    ran = run_with_progress(
        check,
        lang,
        running=t("cl_running", lang, model=bundle.name),
        failed=t("cl_failed", lang),
        keep=keys.RESULT,
        stop_key=keys.STOP,
    )
    if ran is None:  # it failed, and the error says so: nothing half-judged is kept
        st.session_state.pop(keys.RESULT, None)
    st.session_state.pop(keys.RUNNING_FLAG, None)  # finished or failed: only a Stop leaves it set


def banner(lang: str) -> ClaimsResult | None:
    """The result so far, with a note that the last run was stopped; None when there is nothing to show."""
    stopped = st.session_state.pop(keys.RUNNING_FLAG, None)
    result: ClaimsResult | None = st.session_state.get(keys.RESULT)
    if result is None or (not result.complete and not result.verdicts):
        if stopped:
            st.warning(t("cl_stopped_none", lang), icon=":material/stop_circle:")
        return None
    if not result.complete:
        st.warning(t("cl_stopped", lang, n=len(result.verdicts)), icon=":material/stop_circle:")
    else:
        st.success(t("cl_done", lang, n=len(result.verdicts), secs=result.seconds), icon=":material/check_circle:")
    if result.leak_note:
        show_message(t("cl_no_leak", lang, msg=result.leak_note))
    return result
