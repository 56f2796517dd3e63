"""Several engines taking a step each in turn, so that what one comparison sets side by side ran
through the same seconds of the machine (lab/pairing.py says why).

Each engine keeps a clock of its own (`OwnClock`) that runs only while that engine steps: its arrival,
its token times and so its TTFT, TPOT, ITL and E2E are what it would have measured alone, without the
others' steps in its gaps. Its steps' times pair with the other engines' step for step: the i-th decode
step of two runs of the same prompt does the same kind of work at the same position.

    lanes = {name: Lane.of(model, tokenizer, config) for ...}; each adds its request
    race(lanes, on_step=redraw)
    decode_ratio(lanes["off"], lanes["on"]) -> RatioInterval of off ÷ on, step by step
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass

from engine import Engine, EngineConfig, EngineEvent
from engine.observe.trace import StepRecord
from lab.busy import LoadMeter, MachineLoad
from lab.pairing import RatioInterval, ratio_interval, round_order


class OwnClock:
    """time.perf_counter() that stands still while paused: it starts paused, and `running()` lets it
    run for the length of one step."""

    def __init__(self) -> None:
        self._offset = 0.0
        self._paused_at: float | None = time.perf_counter()

    def __call__(self) -> float:
        now = self._paused_at if self._paused_at is not None else time.perf_counter()
        return now - self._offset

    def resume(self) -> None:
        if self._paused_at is not None:
            self._offset += time.perf_counter() - self._paused_at
            self._paused_at = None

    def pause(self) -> None:
        if self._paused_at is None:
            self._paused_at = time.perf_counter()

    @contextmanager
    def running(self):
        self.resume()
        try:
            yield
        finally:
            self.pause()


@dataclass
class Lane:
    """One engine in a race, with its own clock."""

    engine: Engine
    clock: OwnClock

    @classmethod
    def of(cls, model, tokenizer, config: EngineConfig | None = None, name: str = "model") -> Lane:
        clock = OwnClock()
        return cls(Engine(model, tokenizer, config, name=name, clock=clock), clock)

    @property
    def steps(self) -> list[StepRecord]:
        return self.engine.trace.steps

    def phase_ms(self, phase: str) -> list[float]:
        """The step times of one phase ("prefill", "decode"), in order."""
        return [s.ms for s in self.steps if s.phase == phase]


def race(
    lanes: dict[str, Lane],
    on_step: Callable[[str, EngineEvent], None] | None = None,
    lock: threading.Lock | None = None,
) -> MachineLoad:
    """Step every lane with work left once per round, in lab.pairing.round_order, until none has any;
    on_step(name, event) after each step, off every lane's clock (a page redraws there). Returns
    the load other processes put on the machine meanwhile."""
    names = list(lanes)
    meter = LoadMeter().start()
    r = 0
    while any(lane.engine.has_unfinished for lane in lanes.values()):
        for name in round_order(names, r):
            lane = lanes[name]
            if not lane.engine.has_unfinished:
                continue
            with lock if lock is not None else nullcontext(), lane.clock.running():
                event = lane.engine.step()
            if on_step is not None:
                on_step(name, event)
        r += 1
    return meter.stop()


def step_ratio(lane: Lane, base: Lane, phase: str = "decode", load: MachineLoad | None = None) -> RatioInterval:
    """lane ÷ base, the i-th step of `phase` of one over the i-th of the other, as far as both went."""
    mine, theirs = lane.phase_ms(phase), base.phase_ms(phase)
    n = min(len(mine), len(theirs))
    return ratio_interval(mine[:n], theirs[:n], 0, load)
