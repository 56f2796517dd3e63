"""Running the comparison from the page: policy A, then policy B, on the same workload, with a
progress bar per run and a Stop button; then the banner that says how it went.

The result goes into session state before the first step, and each run joins it as it finishes:
Stop (which interrupts this script) leaves the finished runs behind, marked stopped."""

from __future__ import annotations

import time

import streamlit as st

from app_pages.serving import keys
from app_pages.serving.run import Progress, ServingResult, ServingSettings, ServingStatus, run_policy
from app_pages.serving.run_latencies import run_name
from app_pages.serving.strings import t
from lab.busy import LoadMeter
from lab.workload import RequestSpec
from ui.errors import error_message, show_message
from ui.load_note import show_load
from ui.models import get_registry
from ui.progress import PacedBar

# What a new run resets: the inspectors' choices, and the cached timelines (keyed by the id of a
# trace, which a new trace could reuse once the old one is gone)
INSPECTOR_KEYS = (keys.TL_STEP, keys.TL_RUN, keys.BK_RUN, keys.MX_GROUP, keys.FIG_CACHE)
REDRAW_S = 0.25  # progress redraws a second at most 4: each one takes CPU from the engine (see ui/live.py)


def mark_interrupted() -> None:
    """A comparison still 'running' when the script starts again was cut short by Stop (or a rerun)."""
    result: ServingResult | None = st.session_state.get(keys.RESULT)
    if result is not None and result.status == ServingStatus.RUNNING:
        result.status = ServingStatus.STOPPED


def _progress_text(slot: str, policy: str, p: Progress, lang: str) -> str:
    return t(
        "sv_progress",
        lang,
        slot=slot.upper(),
        policy=t(f"sv_policy_{policy}", lang),
        steps=p.steps,
        finished=p.finished,
        total=p.total_requests,
        tokens=p.tokens,
        total_tokens=p.total_tokens,
    )


def run_comparison(bundle, specs: list[RequestSpec], settings: ServingSettings, preset: str, lang: str) -> None:
    result = ServingResult(
        model=bundle.name,
        preset=preset,
        settings=settings,
        num_requests=len(specs),
        kv_bytes_per_token=bundle.model.config.kv_bytes_per_token(bundle.model.dtype.itemsize),
        specs=specs,
    )
    st.session_state[keys.RESULT] = result
    st.session_state.pop(keys.POLICY_RUNS, None)  # judged on the previous workload
    for key in INSPECTOR_KEYS:
        st.session_state.pop(key, None)
    slot_box, meter = st.empty(), LoadMeter().start()
    with slot_box.container(), st.status(t("sv_running", lang, n=len(specs)), expanded=True) as box:
        st.button(t("stop", lang), key=keys.STOP, icon=":material/stop_circle:")
        for slot, policy in settings.policies.items():
            bar = PacedBar(
                st.progress(0.0, text=_progress_text(slot, policy, Progress(total_requests=len(specs)), lang)), lang
            )
            last = [0.0]

            def on_progress(p: Progress, slot=slot, policy=policy, bar=bar, last=last) -> None:
                now = time.perf_counter()
                if now - last[0] >= REDRAW_S:
                    bar.progress(p.fraction, text=_progress_text(slot, policy, p, lang))
                    last[0] = now

            try:
                run = run_policy(bundle, specs, settings, slot, get_registry().step_lock, on_progress)
            except Exception as exc:  # noqa: BLE001 - keep what finished, say what failed
                result.status, result.error = ServingStatus.FAILED, error_message(exc, lang)
                box.update(label=t("sv_failed", lang), state="error")
                return
            result.runs[slot] = run
            bar.progress(
                1.0,
                text=t("sv_run_finished", lang, name=run_name(run, lang), s=run.seconds, steps=len(run.trace.steps)),
            )
    result.status = ServingStatus.DONE
    result.load = meter.stop()
    slot_box.empty()


def banner(result: ServingResult, lang: str) -> None:
    names = ", ".join(run_name(r, lang) for r in result.runs.values())
    if result.status == ServingStatus.STOPPED:
        st.warning(t("sv_stopped", lang, kept=names or t("sv_nothing", lang)), icon=":material/stop_circle:")
    elif result.status == ServingStatus.FAILED:
        show_message(result.error or t("err_unexpected", lang, kind="?"))
    elif result.status == ServingStatus.DONE:
        secs = " · ".join(f"{r.slot.upper()} {r.seconds:.1f} s" for r in result.runs.values())
        st.success(
            t("sv_done", lang, n=result.num_requests, preset=t(f"sv_preset_{result.preset}", lang), secs=secs),
            icon=":material/check_circle:",
        )
        show_load(result.load, lang)
