"""The timed part of Run all: every ready column's run at once, a step each in turn (lab/interleaved.py),
`repeats` times, so that whatever else the machine does lands on all columns alike.

Each column's engine has a clock of its own that runs only during its own steps, so its TTFT, TPOT,
ITL and E2E are what it would measure alone, and its decode steps pair with column 1's step for step
(the ratio's interval and n: lab/pairing.py). A repeat during which other processes kept the machine
busy is run again, while the time budget allows, and the page says how many were.
"""

from __future__ import annotations

import dataclasses
import time

from app_pages.compare.state import ColumnOutcome, TimedRun
from engine import Engine
from engine.core.memory_pass import timed_config
from lab.busy import MachineLoad
from lab.interleaved import Lane, OwnClock, race
from lab.pairing import RatioInterval, ratio_interval
from ui.live import redraw_interval
from ui.live_html import live_html
from ui.public import check_run_work
from ui.run_driver import record_event
from ui.run_state import ModelInfo, RunResult, RunStatus
from ui.tokens import pieces_for

BUDGET_S = 45.0  # a repeat is run again for a busy machine only while the timed part stays inside this


@dataclasses.dataclass
class Ready:
    """A column that loaded and warmed up: what its runs need."""

    outcome: ColumnOutcome
    bundle: object
    view: object  # the column's live placeholder


def start_column(bundle, outcome: ColumnOutcome, clock=time.perf_counter) -> tuple[Engine, RunResult]:
    """A fresh engine with the column's prompt added; ValueError (readable) on bad input. The timed run
    has no instrument (memory comes from a second pass) and never captures attention: the columns
    compare timings and memory, not heatmaps."""
    s = outcome.settings
    outcome.chat_applied = s.run.chat and bool(getattr(bundle.tokenizer, "chat_template", None))
    settings = dataclasses.replace(s.run, chat=outcome.chat_applied)
    engine = Engine(bundle.model, bundle.tokenizer, timed_config(settings.engine_config()), bundle.name, clock)
    seq = engine.add_request(settings.prompt, settings.sampling(), chat=settings.chat)  # bad input fails here
    check_run_work(len(seq.prompt_token_ids), settings.max_new_tokens, settings.kv_cache)  # public caps; off: nothing
    return engine, RunResult(
        settings=settings,
        model=ModelInfo.from_bundle(bundle),
        block_size=engine.config.block_size,
        prompt=pieces_for(bundle.tokenizer, seq.prompt_token_ids),
        arrival=seq.arrival_time,
    )


def start_lane(ready: Ready) -> tuple[Lane, RunResult]:
    """The column on a fresh engine with a clock of its own."""
    clock = OwnClock()
    engine, result = start_column(ready.bundle, ready.outcome, clock)
    return Lane(engine, clock), result


def one_repeat(columns: list[Ready], lock, progress, lang: str) -> tuple[list[tuple[Lane, RunResult]], MachineLoad]:
    """Every column's run, interleaved a step at a time, drawn live; progress(tokens done) after steps."""
    runs = [start_lane(c) for c in columns]
    for c, (_, result) in zip(columns, runs):
        c.view.html(live_html(result, lang))
        if c.outcome.result is None:
            c.outcome.result = result  # the first run is what a Stop leaves behind
    interval, drawn = redraw_interval(), [0.0] * len(columns)

    def on_step(k: int, event) -> None:
        lane, result = runs[k]
        record_event(result, event, lane.engine.tokenizer)
        now = time.perf_counter()
        if (event.step is not None and event.step.phase == "prefill") or now - drawn[k] >= interval:
            columns[k].view.html(live_html(result, lang))
            progress(sum(len(r.tokens) for _, r in runs))
            drawn[k] = now

    load = race({k: lane for k, (lane, _) in enumerate(runs)}, on_step, lock)
    for c, (_, result) in zip(columns, runs):
        result.status, result.load = RunStatus.DONE, load
        c.view.html(live_html(result, lang))
    return runs, load


def time_columns(columns: list[Ready], repeats: int, lock, progress, lang: str) -> tuple[dict[int, list], int]:
    """`repeats` interleaved repeats of every column (a busy one run again within BUDGET_S); each
    column's finished runs by its index, and how many repeats were run again."""
    kept: dict[int, list[tuple[Lane, RunResult]]] = {c.outcome.settings.index: [] for c in columns}
    retaken, done, start = 0, 0, time.perf_counter()
    while done < repeats:
        runs, load = one_repeat(columns, lock, lambda tokens, done=done: progress(done, tokens), lang)
        elapsed = time.perf_counter() - start
        per_repeat = elapsed / (done + retaken + 1)
        if load.busy and retaken < max(1, repeats // 2) and elapsed + per_repeat * (repeats - done) <= BUDGET_S:
            retaken += 1
            continue
        for c, (lane, result) in zip(columns, runs):
            if result.tokens:
                kept[c.outcome.settings.index].append((lane, result))
                c.outcome.runs.append(TimedRun(result.metrics, load))
        done += 1
    return kept, retaken


def vs_base(runs: list[tuple[Lane, RunResult]], base: list[tuple[Lane, RunResult]]) -> dict[str, RatioInterval]:
    """A column's times over column 1's, paired within each repeat: TTFT and E2E a pair per repeat, TPOT
    a pair per decode step (the i-th of each, at the same position where the prompts are the same)."""
    pairs = list(zip(runs, base))
    load = max((r.load for (_, r), _ in pairs if r.load), key=lambda x: x.other_cores or 0.0, default=None)
    mine, theirs = [], []
    for (lane, _), (base_lane, _) in pairs:
        a, b = lane.phase_ms("decode"), base_lane.phase_ms("decode")
        n = min(len(a), len(b))
        mine += a[:n]
        theirs += b[:n]
    out = {
        "ttft": ratio_interval([r.metrics.ttft_ms for (_, r), _ in pairs], [b.metrics.ttft_ms for _, (_, b) in pairs]),
        "e2e": ratio_interval([r.metrics.e2e_ms for (_, r), _ in pairs], [b.metrics.e2e_ms for _, (_, b) in pairs]),
    }
    if mine:
        out["tpot"] = ratio_interval(mine, theirs)
    return {k: dataclasses.replace(v, load=load) for k, v in out.items()}
