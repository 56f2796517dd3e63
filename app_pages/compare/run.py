"""Run all: the columns one after another on the same engine code and the same shared weights,
each streaming its tokens into its own live view, under one progress bar.

One after the other, not at once: on a small CPU (2 cores here) two runs at once would take cores
from each other and each would measure the other's load. Every engine step also holds the
registry's step lock, as the playground does, so another browser session cannot interleave.

First every column is prepared (its model loaded, its input checked, an untimed warm-up), then
each is timed in turn, `repeats` times back to back: the column shows its median run (by E2E) and
the summary each time's median and spread over the runs. A column that cannot run (its model
fails to load, an empty prompt, a prompt past the context) gets its message and the others run.
"""

from __future__ import annotations

import dataclasses
import time

import streamlit as st

from app_pages.compare import keys
from app_pages.compare.state import ColumnOutcome, ColumnSettings, CompareResult, CompareStatus, TimedRun
from app_pages.compare.strings import t
from engine import Engine, SamplingParams
from engine.core.memory_pass import PROBE_STEP_COST, timed_config
from engine.errors import LabError
from ui.errors import error_message, show_message
from ui.live import redraw_interval, scroll_here
from ui.live_html import live_html
from ui.models import ModelRegistry
from ui.progress import PacedBar
from ui.public import check_run_work
from ui.run_driver import measure_pass, run_steps
from ui.run_state import ModelInfo, RunResult, RunStatus
from ui.text import md_escape
from ui.tokens import pieces_for


def start_column(bundle, outcome: ColumnOutcome) -> tuple[Engine, RunResult]:
    """A fresh engine with the column's prompt added; ValueError (readable) on bad input.

    The timed run has no instrument; memory comes from a second pass (`measure_column`). Unlike the
    playground, attention is never captured: the columns compare timings and memory, not heatmaps."""
    s = outcome.settings
    outcome.chat_applied = s.run.chat and bool(getattr(bundle.tokenizer, "chat_template", None))
    settings = dataclasses.replace(s.run, chat=outcome.chat_applied)
    engine = Engine(bundle.model, bundle.tokenizer, timed_config(settings.engine_config()), name=bundle.name)
    seq = engine.add_request(settings.prompt, settings.sampling(), chat=settings.chat)  # bad input fails here
    check_run_work(len(seq.prompt_token_ids), settings.max_new_tokens, settings.kv_cache)  # public caps; off: nothing
    return engine, RunResult(
        settings=settings,
        model=ModelInfo.from_bundle(bundle),
        block_size=engine.config.block_size,
        prompt=pieces_for(bundle.tokenizer, seq.prompt_token_ids),
        arrival=seq.arrival_time,
    )


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


def median_run(runs: list[tuple[Engine, RunResult]]) -> tuple[Engine, RunResult]:
    """The run whose E2E is the median (the lower middle of an even count): the one the column shows."""
    return sorted(runs, key=lambda run: run[1].metrics.e2e_ms)[(len(runs) - 1) // 2]


def time_column(
    outcome: ColumnOutcome, bundle, view, progress, registry: ModelRegistry, lang: str
) -> tuple[Engine, RunResult]:
    """One timed run of a prepared column, drawn live into its view; progress(tokens done) moves the bar."""
    engine, result = start_column(bundle, outcome)  # checked in prepare_column: arrival is now
    if outcome.result is None:
        outcome.result = result  # the first run is what a Stop leaves behind
    view.html(live_html(result, lang))
    interval, last_drawn = redraw_interval(), 0.0
    for event in run_steps(engine, result, registry.step_lock):
        now = time.perf_counter()
        if (event.step is not None and event.step.phase == "prefill") or now - last_drawn >= interval:
            view.html(live_html(result, lang))
            progress(len(result.tokens))
            last_drawn = now
    view.html(live_html(result, lang))
    return engine, result


def run_column(
    outcome: ColumnOutcome, bundle, view, k: int, n: int, repeats: int, registry: ModelRegistry, bar, lang: str
) -> None:
    """A prepared column's timed runs, one after another, then its memory pass on the median run."""
    s = outcome.settings
    name = t("cmp_column", lang, n=s.index + 1)
    most = max(s.run.max_new_tokens, 1)
    timed_share = repeats / (repeats + PROBE_STEP_COST)  # of the column's work, for the bar's pace
    finished = []
    try:
        for r in range(repeats):

            def progress(done: int, r: int = r) -> None:
                bar.progress(
                    (k + timed_share * (r + done / most) / repeats) / n,
                    text=t("cmp_progress", lang, name=name, k=k + 1, n=n, done=done, N=most, r=r + 1, R=repeats),
                )

            engine, result = time_column(outcome, bundle, view, progress, registry, lang)
            if result.status == RunStatus.DONE and result.tokens:
                finished.append((engine, result))
                outcome.runs.append(TimedRun(result.metrics, result.load))
        if finished:
            engine, outcome.result = median_run(finished)
            view.html(live_html(outcome.result, lang))
            measure_column(engine, outcome.result, registry, bar, name, k, n, timed_share, lang)
    except Exception as exc:  # noqa: BLE001 - keep what ran, say what failed
        outcome.error = error_message(exc, lang)
        if outcome.result is not None and outcome.result.status == RunStatus.RUNNING:
            outcome.result.status = RunStatus.FAILED
    if outcome.result is not None:
        view.html(live_html(outcome.result, lang))


def measure_column(
    engine, result: RunResult, registry: ModelRegistry, bar, name: str, k: int, n: int, timed_share: float, lang: str
) -> None:
    """The column's memory, from an untimed replay of its tokens with the probe on (no capture)."""
    config = dataclasses.replace(result.settings.engine_config(), capture_attention=False)
    for done, total in measure_pass(engine, result, registry.step_lock, config):
        bar.progress(
            min(1.0, (k + 1) / n), text=t("cmp_progress_memory", lang, name=name, k=k + 1, n=n, done=done, total=total)
        )


def run_all(
    columns: list[ColumnSettings], repeats: int, registry: ModelRegistry, status_slot, slots: list, lang: str
) -> None:
    """Every column in turn, each timed `repeats` times back to back; the comparison lands in session
    state before the first step, so Stop (which interrupts this script) leaves the finished columns behind."""
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
        for k, (outcome, ready) in enumerate(zip(result.columns, prepared)):
            if ready is not None:
                run_column(outcome, *ready, k, n, repeats, registry, bar, lang)
        bar.progress(1.0, text=t("cmp_progress_done", lang, n=n))
        box.update(label=t("cmp_done", lang, ok=len(result.finished), n=n), state="complete", expanded=False)
    result.status = CompareStatus.DONE
