"""The live view while a run streams: a Stop button and one HTML block (status, token chips, KV
blocks), redrawn as the engine steps.

Why redraws are rate-limited: each update costs the server and the browser a few milliseconds of
CPU, and on a small machine (2 cores here) that time is taken from the engine's own threads. One
redraw per ~25 ms decode step halved the engine's speed; 10 a second kept ~75 % of it, 4 a second
~85 % (scripts/ui_latency.py). So the prefill step (the first token) is drawn at once,
decode steps at most every `redraw_interval()` seconds, and the final state always; the replay
then shows the run one step at a time.
"""

from __future__ import annotations

import os
import time

import streamlit as st

from ui.chips import legend_html
from ui.errors import error_message, show_error
from ui.i18n import t
from ui.live_html import live_html
from ui.models import ModelRegistry
from ui.prefill_pace import remember as remember_prefill
from ui.replay import STEP_KEY as REPLAY_STEP_KEY
from ui.run_driver import needs_pass, run_steps, start_run
from ui.run_state import RunResult, RunSettings, RunStatus

RUN_KEY = "pg_result"
STOP_KEY = "pg_stop"
REDRAW_ENV = "PDLAB_LIVE_REDRAW_S"
DEFAULT_REDRAW_S = 0.25


def redraw_interval() -> float:
    """Seconds between live redraws; PDLAB_LIVE_REDRAW_S overrides (0 = every step)."""
    try:
        return max(0.0, float(os.environ.get(REDRAW_ENV, DEFAULT_REDRAW_S)))
    except ValueError:
        return DEFAULT_REDRAW_S


def run_live(bundle, settings: RunSettings, registry: ModelRegistry, slot, lang: str) -> RunResult | None:
    """Run one prompt, streaming into `slot`; the result lands in session state as it grows, so a
    Stop (which interrupts this script) leaves the partial run behind to show. The untimed second
    pass is left to the page (result.pass_pending: it has one to run), so the results can show
    before it runs (the playground runs it in a thread of its own)."""
    try:
        engine, result = start_run(bundle, settings)
    except Exception as exc:  # noqa: BLE001 - bad input: a clear message, nothing else
        with slot.container():
            show_error(exc, lang)
        return None
    st.session_state[RUN_KEY] = result
    st.session_state.pop(REPLAY_STEP_KEY, None)  # a new run replays from its own end
    with slot.container(border=True):
        scroll_here()
        st.button(t("stop", lang), key=STOP_KEY, icon=":material/stop_circle:")
        view = st.empty()
        st.html(legend_html(lang, speculative=bool(settings.speculative_k)))
    view.html(live_html(result, lang))
    interval, last_drawn = redraw_interval(), 0.0
    try:
        for event in run_steps(engine, result, registry.step_lock):
            now = time.perf_counter()
            if (event.step is not None and event.step.phase == "prefill") or now - last_drawn >= interval:
                view.html(live_html(result, lang))
                last_drawn = now
        view.html(live_html(result, lang))
        remember_prefill(result)
        result.pass_pending = needs_pass(result)
    except Exception as exc:  # noqa: BLE001 - keep what ran, say what failed
        result.status, result.error = RunStatus.FAILED, error_message(exc, lang)  # shown with the results
    slot.empty()
    return result


def scroll_here() -> None:
    """Bring this place to the top of the window: a run's live view, drawn below the controls, would
    otherwise play out of sight (at 1400×900 it began below the fold). A fixed script, no user text."""
    st.html(
        '<div id="pd-run-top"></div>'
        '<script>document.getElementById("pd-run-top")?.scrollIntoView({block: "start"});</script>',
        unsafe_allow_javascript=True,
    )
