"""Run all: every column prepared (its model loaded, its input checked, an untimed warm-up), then all
of them timed at once, a step each in turn (race.py), `repeats` times, each streaming its tokens into
its own live view under one progress bar; then each column shows its median run, its times over
column 1's as ratios with their intervals, and its memory from an untimed replay.

At once, a step each in turn, not one after the other: whatever else the machine does then lands on
every column alike, and each column's own clock leaves the others' steps out of its times. Every
engine step holds the registry's step lock, as the playground does, so another browser session cannot
interleave. A column that cannot run (its model fails to load, an empty prompt, a prompt past the
context) gets its message and the others run.
"""

from __future__ import annotations

import dataclasses

import streamlit as st

from app_pages.compare import keys
from app_pages.compare.race import Ready, start_column, time_columns, vs_base
from app_pages.compare.state import ColumnOutcome, ColumnSettings, CompareResult, CompareStatus
from app_pages.compare.strings import t
from engine import Engine, SamplingParams
from engine.core.memory_pass import timed_config
from engine.errors import LabError
from ui.errors import error_message, show_message
from ui.live import scroll_here
from ui.live_html import live_html
from ui.models import ModelRegistry
from ui.progress import PacedBar
from ui.run_driver import measure_pass
from ui.run_state import RunResult, RunStatus
from ui.text import md_escape

TIMED_SHARE = 0.75  # of the bar: the timed part; the memory replays take the rest


def warm_up_column(bundle, result: RunResult, lock) -> None:
    """An untimed two-token run of the column's own prompt and settings first. The first forward
    of new shapes in a process pays one-off costs (oneDNN primitives, allocator growth): without
    this, whichever column ran first would show a TTFT several times the others'."""
    config = timed_config(result.settings.engine_config())
    ids = [p.token_id for p in result.prompt]
    params = SamplingParams(max_new_tokens=min(2, result.settings.max_new_tokens), ignore_eos=True)
    with lock:
        Engine(bundle.model, bundle.tokenizer, config).generate(ids, params)


def _load(settings: ColumnSettings, registry: ModelRegistry, box, lang: str):
    """The column's model, loaded with a progress bar in the column if it is not loaded yet
    (another model can take a while: it is read from disk and warmed up)."""
    bundle = registry.loaded(settings.choice)
    if bundle is not None:
        return bundle
    label = t("cmp_loading", lang, spec=md_escape(settings.model), dtype=settings.dtype)
    load_bar = box.progress(0.0, text=label)

    def progress(stage: str, fraction: float) -> None:
        load_bar.progress(min(max(float(fraction), 0.0), 1.0), text=f"{label} {md_escape(stage)}")

    bundle = registry.get(settings.choice, progress)
    box.empty()
    return bundle


def prepare_column(outcome: ColumnOutcome, k: int, n: int, registry: ModelRegistry, slot, bar, lang: str):
    """Draw the column's box, load its model, check its input and warm it up; the (bundle, live
    view) to run it with, or None after showing why it cannot run."""
    s = outcome.settings
    name = t("cmp_column", lang, n=s.index + 1)
    with slot.container(border=True):
        st.markdown(f"**{name}**")
        load_box, view = st.empty(), st.empty()
    bar.progress(0.0, text=t("cmp_progress_warm", lang, name=name, k=k + 1, n=n))
    try:
        bundle = _load(s, registry, load_box, lang)
    except Exception as exc:  # noqa: BLE001 - a model that cannot load: this column says so, the rest run
        load_box.empty()
        why = str(exc) if isinstance(exc, LabError) else error_message(exc, lang)  # the loader's own words
        outcome.error = t("cmp_load_failed", lang, spec=s.model, msg=why)
        with view.container():
            show_message(outcome.error)
        return None
    try:
        _, result = start_column(bundle, outcome)
        warm_up_column(bundle, result, registry.step_lock)
    except Exception as exc:  # noqa: BLE001 - bad input: a clear message in this column only
        outcome.error = error_message(exc, lang)
        with view.container():
            show_message(outcome.error)
        return None
    view.html(live_html(result, lang))  # the prompt's chips, grey until its timed prefill
    return bundle, view


def median_run(runs: list[tuple]) -> tuple:
    """The run whose E2E is the median (the lower middle of an even count): the one the column shows."""
    return sorted(runs, key=lambda run: run[1].metrics.e2e_ms)[(len(runs) - 1) // 2]


def finish_columns(ready: list[Ready], kept: dict[int, list], registry: ModelRegistry, bar, lang: str) -> None:
    """Each column's shown run (its median repeat), its ratios to the first column, then its memory from
    an untimed replay (the last part: the times are on screen before it starts)."""
    base = kept[ready[0].outcome.settings.index] if ready else []
    for c in ready:
        runs = kept[c.outcome.settings.index]
        if not runs:
            continue
        c.outcome.result = median_run(runs)[1]
        c.view.html(live_html(c.outcome.result, lang))
        if c is not ready[0] and base:
            c.outcome.vs_base = vs_base(runs, base)
    for k, c in enumerate(ready):
        runs = kept[c.outcome.settings.index]
        if runs:
            name = t("cmp_column", lang, n=c.outcome.settings.index + 1)
            try:
                measure_column(median_run(runs)[0].engine, c.outcome.result, registry, bar, name, k, len(ready), lang)
            except Exception as exc:  # noqa: BLE001 - keep the timings, say what failed
                c.outcome.error = error_message(exc, lang)


def measure_column(
    engine, result: RunResult, registry: ModelRegistry, bar, name: str, k: int, n: int, lang: str
) -> None:
    """The column's memory, from an untimed replay of its tokens with the probe on (no capture)."""
    config = dataclasses.replace(result.settings.engine_config(), capture_attention=False)
    for done, total in measure_pass(engine, result, registry.step_lock, config):
        bar.progress(
            min(1.0, TIMED_SHARE + (1 - TIMED_SHARE) * (k + done / max(total, 1)) / n),
            text=t("cmp_progress_memory", lang, name=name, k=k + 1, n=n, done=done, total=total),
        )


def run_all(
    columns: list[ColumnSettings], repeats: int, registry: ModelRegistry, status_slot, slots: list, lang: str
) -> None:
    """Every column prepared, then all of them timed at once, a step each in turn, `repeats` times;
    the comparison lands in session state before the first step, so Stop (which interrupts this
    script) leaves what ran behind."""
    result = CompareResult(columns=[ColumnOutcome(settings=c) for c in columns], repeats=repeats)
    st.session_state[keys.RESULT] = result
    for name in [k for k in st.session_state if str(k).startswith(keys.REPLAY_PREFIX)]:
        del st.session_state[name]
    n = len(columns)
    with status_slot.container(), st.status(t("cmp_running", lang, n=n), expanded=True) as box:
        scroll_here()
        st.button(t("stop", lang), key=keys.STOP, icon=":material/stop_circle:")
        bar = PacedBar(
            st.progress(0.0, text=t("cmp_progress_warm", lang, name=t("cmp_column", lang, n=1), k=1, n=n)), lang
        )
        # Every column is loaded, checked and warmed up before any is timed: a model loading, or
        # the page redrawing after the click, then disturbs no column's measurement.
        prepared = [prepare_column(c, k, n, registry, slots[k], bar, lang) for k, c in enumerate(result.columns)]
        ready = [Ready(c, *p) for c, p in zip(result.columns, prepared) if p is not None]
        most = sum(max(c.outcome.settings.run.max_new_tokens, 1) for c in ready) or 1

        def progress(repeat: int, tokens: int) -> None:
            bar.progress(
                TIMED_SHARE * (repeat + min(tokens / most, 1.0)) / repeats,
                text=t("cmp_progress_race", lang, n=len(ready), r=repeat + 1, R=repeats, done=tokens, N=most),
            )

        try:
            kept, result.retaken = time_columns(ready, repeats, registry.step_lock, progress, lang)
        except Exception as exc:  # noqa: BLE001 - a run that fails mid-way: each column says so, what ran stays
            for c in ready:
                c.outcome.error = error_message(exc, lang)
                if c.outcome.result is not None and c.outcome.result.status == RunStatus.RUNNING:
                    c.outcome.result.status = RunStatus.FAILED
            kept = {}
        if kept:
            finish_columns(ready, kept, registry, bar, lang)
        bar.progress(1.0, text=t("cmp_progress_done", lang, n=n))
        box.update(label=t("cmp_done", lang, ok=len(result.finished), n=n), state="complete", expanded=False)
    result.status = CompareStatus.DONE
