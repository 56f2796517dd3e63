"""Running the comparison from the page: policies A and B raced over the same workload, round after
round (app_pages/serving/run.py), with one progress bar, a Stop button, and the table of B ÷ A so far
under it after every round; then the banner that says how it went.

The result goes into session state before the first step, and each round joins it as it lands:
Stop (which interrupts this script) leaves the rounds already raced behind, marked stopped."""

from __future__ import annotations

import time

import streamlit as st

from app_pages.serving import keys
from app_pages.serving.run import (
    Progress,
    ServingResult,
    ServingSettings,
    ServingStatus,
    race_policies,
    workload_work,
)
from app_pages.serving.run_latencies import ALL, metrics_table, run_name
from app_pages.serving.strings import t
from lab.busy import busiest
from lab.workload import RequestSpec
from ui.errors import error_message, show_message
from ui.models import get_registry
from ui.paired import retaken_text
from ui.progress import PacedBar
from ui.tables import show_table

# What a new run resets: the inspectors' choices, and the cached timelines (keyed by the id of a
# trace, which a new trace could reuse once the old one is gone)
INSPECTOR_KEYS = (keys.TL_STEP, keys.TL_RUN, keys.BK_RUN, keys.MX_GROUP, keys.FIG_CACHE)
REDRAW_S = 0.25  # progress redraws a second at most 4: each one takes CPU from the engine (see ui/live.py)
RETAKE_BUDGET_S = 60.0  # busy rounds are raced again while the run is inside this (per 5 rounds)


def mark_interrupted() -> None:
    """A comparison still 'running' when the script starts again was cut short by Stop (or a rerun)."""
    result: ServingResult | None = st.session_state.get(keys.RESULT)
    if result is not None and result.status == ServingStatus.RUNNING:
        result.status = ServingStatus.STOPPED


def _progress_text(p: Progress, lang: str) -> str:
    return t("sv_progress", lang, round=p.round, rounds=p.rounds, steps=p.steps)


def _new_result(bundle, specs: list[RequestSpec], settings: ServingSettings, preset: str) -> ServingResult:
    return ServingResult(
        model=bundle.name,
        preset=preset,
        settings=settings,
        num_requests=len(specs),
        kv_bytes_per_token=bundle.model.config.kv_bytes_per_token(bundle.model.dtype.itemsize),
        specs=specs,
    )


def run_comparison(bundle, specs: list[RequestSpec], settings: ServingSettings, preset: str, lang: str) -> None:
    result = _new_result(bundle, specs, settings, preset)
    st.session_state[keys.RESULT] = result
    st.session_state.pop(keys.POLICY_RUNS, None)  # judged on the previous workload
    for key in INSPECTOR_KEYS:
        st.session_state.pop(key, None)
    rounds = settings.rounds
    progress = Progress(rounds=rounds, total_work=2 * rounds * workload_work(specs))
    slot_box, last = st.empty(), [0.0]
    with slot_box.container(), st.status(t("sv_running", lang, n=len(specs), rounds=rounds), expanded=True) as box:
        st.button(t("stop", lang), key=keys.STOP, icon=":material/stop_circle:")
        bar = PacedBar(st.progress(0.0, text=_progress_text(progress, lang)), lang)
        so_far = st.empty()

        def on_step(_lane: str, event) -> None:
            progress.add(event)
            now = time.perf_counter()
            if now - last[0] >= REDRAW_S:
                bar.progress(progress.fraction, text=_progress_text(progress, lang))
                last[0] = now

        def on_round(kept, race) -> None:
            result.rounds, result.runs = kept, kept[0]
            result.retaken, result.loads, result.load = race.retaken, list(race.loads), busiest(race.loads)
            progress.round = min(len(kept) + 1, rounds)
            progress.work = progress.total_work * len(kept) / rounds  # a round raced again counts once
            table = metrics_table(kept, ALL, lang, result.retaken, result.load)  # each round's answer as it lands
            show_table(table, key=keys.so_far(keys.METRICS_TABLE, len(kept)), where=so_far)

        deadline = time.perf_counter() + RETAKE_BUDGET_S * max(1.0, rounds / 5)
        try:
            race_policies(
                bundle, specs, settings, settings.policies, rounds, get_registry().step_lock, on_step, on_round, deadline
            )  # fmt: skip
        except Exception as exc:  # noqa: BLE001 - keep what finished, say what failed
            result.status, result.error = ServingStatus.FAILED, error_message(exc, lang)
            box.update(label=t("sv_failed", lang), state="error")
            return
    result.status = ServingStatus.DONE
    slot_box.empty()


def banner(result: ServingResult, lang: str) -> None:
    names = ", ".join(run_name(r, lang) for r in result.runs.values())
    if result.status == ServingStatus.STOPPED:
        kept = t("sv_kept_rounds", lang, names=names, n=len(result.rounds)) if names else t("sv_nothing", lang)
        st.warning(t("sv_stopped", lang, kept=kept), icon=":material/stop_circle:")
    elif result.status == ServingStatus.FAILED:
        show_message(result.error or t("err_unexpected", lang, kind="?"))
    elif result.status == ServingStatus.DONE:
        secs = " · ".join(f"{r.slot.upper()} {r.seconds:.1f} s" for r in result.runs.values())
        st.success(
            t(
                "sv_done",
                lang,
                n=result.num_requests,
                preset=t(f"sv_preset_{result.preset}", lang),
                secs=secs,
                rounds=len(result.rounds),
            ),
            icon=":material/check_circle:",
        )
    load = result.load
    if load is not None:
        known = load.other_cores is not None
        said = t("sv_load", lang, other=load.other_cores, cores=load.cores) if known else t("load_unknown", lang)
        st.caption(" ".join(x for x in (said, retaken_text(result.retaken, lang)) if x))
