"""The second pass as the page sees it: started after the timed run, called off before the next one,
and, while it runs, its progress and time left where its readings will land (the Memory tab; the
Attention tab when the heatmap waits for its capture). When it ends, the page is drawn again with
its readings (every tab, the step table's peaks and the downloads)."""

from __future__ import annotations

import streamlit as st

from app_pages.playground import keys
from app_pages.playground.second_pass import POLL_S, PassJob, prepare_pass, start_pass
from app_pages.playground.session_alive import this_session_alive
from app_pages.playground.strings import t
from ui.errors import error_message
from ui.models import get_registry
from ui.public import public_settings
from ui.run_state import RunResult, RunStatus
from ui.text import with_eta


def prepare(result: RunResult) -> None:
    """The pass a finished timed run asks for, kept for the page to show and `begin` to start."""
    job = prepare_pass(result)
    if job is not None:
        st.session_state[keys.PASS_JOB] = job


def begin(bundle, result: RunResult | None) -> None:
    """Start the prepared pass of this run, once the page has drawn its tabs (also when the script
    that prepared it was cut short before; on a public server it takes a turn as a run does)."""
    job: PassJob | None = st.session_state.get(keys.PASS_JOB)
    if bundle is None or job is None or job.result is not result or job.launched or not job.running:
        return
    public = public_settings()
    registry = get_registry()
    if public.enabled:
        start_pass(job, bundle, registry.step_lock, registry.run_queue(public.max_active_runs), this_session_alive())
    else:
        start_pass(job, bundle, registry.step_lock)


def cancel_running() -> None:
    """Call off this session's pass still running: its probed steps would take turns with the next
    timed run's and slow it."""
    job: PassJob | None = st.session_state.pop(keys.PASS_JOB, None)
    if job is not None and job.running:
        job.cancel()


def running_job(result: RunResult | None) -> PassJob | None:
    """The pass of this run while it runs, else None."""
    job: PassJob | None = st.session_state.get(keys.PASS_JOB)
    return job if job is not None and job.result is result and job.running else None


def settle(result: RunResult | None, lang: str) -> None:
    """At the start of a script run: a pass that failed makes its run failed, worded in this session's
    language (as a failure of the timed run is); a pass pending with no job behind it (the server
    restarted, the session was lost) will not finish."""
    job: PassJob | None = st.session_state.get(keys.PASS_JOB)
    if job is not None and not job.running and job.result is result:
        st.session_state.pop(keys.PASS_JOB, None)
        if job.error is not None:
            result.status, result.error = RunStatus.FAILED, error_message(job.error, lang)
    if result is not None and result.pass_pending and running_job(result) is None:
        result.pass_pending = False


def progress_text(job: PassJob, key: str, lang: str) -> str:
    if job.waiting:
        return t("pass_waiting", lang)
    return with_eta(t(key, lang, done=job.done, total=job.total), job.seconds_left(), lang)


def show_progress(job: PassJob, lang: str, heat_slot=None) -> None:
    """The pass's bar and line, redrawn every POLL_S seconds until it ends; then the whole page is
    drawn again, now with its readings. One fragment redraws them all: here (the Memory tab, in a
    container whose key scripts/app_browser.py's wait_idle and scripts/page_budgets.py look for)
    and in `heat_slot` (an st.empty the page made, where an eager run's heatmap will go)."""
    places = [(heat_slot, "pass_heat_progress")] if heat_slot is not None else []
    for slot, key in places:  # drawn in the page's own run first: a fragment may then redraw them
        slot.progress(job.fraction(), text=progress_text(job, key, lang))

    @st.fragment(run_every=POLL_S)
    def progress() -> None:
        if not job.running:
            st.rerun()  # the whole page: the tabs, the step table and the downloads take the readings
        with st.container(key=keys.PASS_PROGRESS):
            st.progress(job.fraction(), text=progress_text(job, "pass_progress", lang))
        for slot, key in places:
            slot.progress(job.fraction(), text=progress_text(job, key, lang))

    progress()
