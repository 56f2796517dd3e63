"""Engines stepped one step each per round, as the arms of lab.pairing.interleave: what
lab/interleaved.py's race does (each engine on its own clock, the i-th steps of two lanes paired), plus
interleave's rule for a round during which other work kept the machine busy: it is stepped again,
within a budget of re-takes and a deadline, and the result says how many were.

A re-taken round's steps are dropped from the pairing and every lane takes one more step, so a lane
needs room for `rounds + max_retakes` steps (new tokens to generate). Prime each lane past its
prefill and its first steps first (`advance`): a fresh shape pays one-off costs.

    lanes = {"float32": Lane.of(...), "int8": Lane.of(...)}; each adds its request
    advance(lanes, 3)
    got = lane_rounds(lanes, rounds=16)
    got.ratio("int8", "float32")   # RatioInterval of int8 ÷ float32, step by step
    got.kept["int8"]               # the StepRecords behind it, in round order
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import dataclass

from engine.observe.trace import StepRecord
from lab.busy import LoadMeter
from lab.interleaved import Lane
from lab.pairing import RatioInterval, Rounds, interleave


@dataclass
class LaneRounds:
    """What lane_rounds measured: the kept rounds' step times (`rounds`) and their records (`kept`)."""

    rounds: Rounds
    kept: dict[str, list[StepRecord]]

    def ratio(self, lane: str, base: str) -> RatioInterval:
        return self.rounds.ratio(lane, base)

    def ms(self, lane: str) -> list[float]:
        return self.rounds.values[lane]


def step(lane: Lane, lock: threading.Lock | None = None) -> StepRecord:
    """One engine step of this lane, on its own clock, under `lock` (the registry's step lock)."""
    with lock if lock is not None else nullcontext(), lane.clock.running():
        record = lane.engine.step().step
    if record is None:
        raise RuntimeError("A lane's engine must keep its trace on: its steps are what is paired.")
    return record


def advance(lanes: dict[str, Lane], steps: int, lock: threading.Lock | None = None) -> dict[str, list[StepRecord]]:
    """Step every lane `steps` times in turn (its prefill included), untimed: what comes before the
    rounds. Returns each lane's records."""
    out: dict[str, list[StepRecord]] = {name: [] for name in lanes}
    for _ in range(steps):
        for name, lane in lanes.items():
            if lane.engine.has_unfinished:
                out[name].append(step(lane, lock))
    return out


def lane_rounds(
    lanes: dict[str, Lane],
    rounds: int,
    lock: threading.Lock | None = None,
    max_retakes: int | None = None,
    deadline: float | None = None,
    on_round: Callable[[int, int], None] | None = None,
    meter: Callable[[], LoadMeter] = LoadMeter,
    kept: dict | None = None,
) -> LaneRounds:
    """`rounds` kept rounds of one step per lane, in lab.pairing.round_order; a busy round stepped
    again (interleave's rule). on_round(done, total) after each kept round, off every lane's clock;
    kept: a dict the kept rounds' records go into as they land (for on_round to read), else a new one."""
    last: dict[str, StepRecord] = {}
    kept = {} if kept is None else kept
    kept.update({name: [] for name in lanes})

    def arm(name: str) -> Callable[[], float]:
        def one() -> float:
            last[name] = step(lanes[name], lock)
            return last[name].ms

        return one

    def kept_round(done: int, total: int) -> None:
        for name in lanes:
            kept[name].append(last[name])
        if on_round is not None:
            on_round(done, total)

    got = interleave({name: arm(name) for name in lanes}, rounds, max_retakes, deadline, kept_round, meter)
    return LaneRounds(got, kept)


def finish(lanes: dict[str, Lane]) -> None:
    """End every lane's unfinished requests (their rounds are over): their KV blocks go back."""
    for lane in lanes.values():
        for seq in list(lane.engine.scheduler.running) + list(lane.engine.scheduler.waiting):
            lane.engine.abort(seq)
