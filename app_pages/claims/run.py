"""Running the claim checks from the page: the engine runs of lab/claims_measure.py under the
registry's step lock (they are timed), a progress bar per part and a Stop button, then one verdict per
claim (lab/claims.py). The page keeps the measured data and the verdicts in session state."""

from __future__ import annotations

import time
from dataclasses import dataclass

import streamlit as st

from app_pages.claims import keys
from app_pages.claims.strings import t
from engine.errors import LabError
from lab.busy import LoadMeter, MachineLoad
from lab.claims import TIMED_CLAIMS, check_all
from lab.claims_measure import ClaimData, ClaimSettings, measure_all
from lab.claims_pace import ClaimsProgress
from lab.verdicts import Verdict, unreliable_when_busy
from ui.errors import error_message, show_message
from ui.load_note import show_load
from ui.run_section import run_with_progress
from ui.text import with_eta


@dataclass
class ClaimsResult:
    model: str
    data: ClaimData
    verdicts: dict[str, Verdict]
    seconds: float
    leak_note: str | None = None  # why C16 could not run its loop
    load: MachineLoad | None = None  # other processes' CPU use while the checks were timed


def load_hf(bundle, lang: str) -> tuple[object | None, str | None]:
    """transformers' copy of the weights for the C16 loop (cached per server), or why not."""
    from ui.memory_leak import hf_model

    try:
        return hf_model(str(bundle.path)), None
    except Exception as exc:  # noqa: BLE001 - C16 then points to the memory lab instead
        return None, error_message(exc, lang)


def int8_copy(bundle):
    """The same model with int8 weights (bfloat16 activations, where this CPU's int8 kernel is fast) for
    C19's measured verdict; None where the format cannot run (then C19 argues from the roofline)."""
    from engine import load_model

    try:
        return load_model(str(bundle.path), dtype="bfloat16", device=str(bundle.model.device), weights="int8").model
    except LabError:
        return None


def run_checks(bundle, registry, lang: str, settings: ClaimSettings | None = None) -> None:
    settings = settings or ClaimSettings()
    st.session_state.pop(keys.RESULT, None)
    st.session_state[keys.RUNNING_FLAG] = True  # still set on the next run: Stop (or a rerun) cut it short

    def check(box) -> ClaimsResult:
        bar = st.progress(0.0, text=t("cl_stage_hf", lang))
        start = time.perf_counter()
        hf, leak_note = load_hf(bundle, lang)

        def progress(p: ClaimsProgress) -> None:
            what = t(
                "cl_stage", lang, done=p.part, total=p.total, what=t(f"cl_stage_{p.what}", lang, n=settings.scores_len)
            )
            bar.progress(p.fraction, text=with_eta(what, p.seconds_left, lang))

        quantized = int8_copy(bundle)
        with registry.step_lock, LoadMeter() as meter:
            data = measure_all(
                bundle.model,
                bundle.tokenizer,
                settings,
                bundle.name,
                hf_model=hf,
                progress=progress,
                quantized=quantized,
            )
        verdicts = unreliable_when_busy(check_all(data), meter.load, TIMED_CLAIMS)
        return ClaimsResult(bundle.name, data, verdicts, time.perf_counter() - start, leak_note, meter.load)

    run_with_progress(
        check,
        lang,
        running=t("cl_running", lang, model=bundle.name),
        failed=t("cl_failed", lang),
        keep=keys.RESULT,
        stop_key=keys.STOP,
    )
    st.session_state.pop(keys.RUNNING_FLAG, None)  # finished or failed: only a Stop leaves it set


def banner(lang: str) -> ClaimsResult | None:
    """The finished result, or a note that the last run was stopped; None when there is nothing to show."""
    if st.session_state.pop(keys.RUNNING_FLAG, None):
        st.warning(t("cl_stopped", lang), icon=":material/stop_circle:")
    result: ClaimsResult | None = st.session_state.get(keys.RESULT)
    if result is None:
        return None
    st.success(t("cl_done", lang, n=len(result.verdicts), secs=result.seconds), icon=":material/check_circle:")
    show_load(result.load, lang)
    if result.leak_note:
        show_message(t("cl_no_leak", lang, msg=result.leak_note))
    return result
