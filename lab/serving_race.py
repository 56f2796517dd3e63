"""One serving workload under several scheduling policies at once: each policy's engine a lane
(lab/interleaved.py) over the same requests, the lanes taking a step each in turn, so that every
policy's TTFT, TPOT, ITL and E2E come from the same seconds of the machine (lab/pairing.py says why).

A request arrives on each lane's own clock: it joins the lane's engine once that lane has run (or
waited) `arrival_s` since the workload began. A lane with nothing to do until its next arrival jumps
its clock there instead of sleeping (idle time costs no work; the metrics read the same as a run in
real time). Rounds repeat the race; each round gives every policy's statistics once, and the pairs
over rounds (policy B's P90 ITL ÷ policy A's, round by round) are what a page's ratios rest on. A
round raced while other work kept the machine busy is raced again, within a budget of re-takes.

    rounds = race_rounds(model, tokenizer, specs, {"a": config_a, "b": config_b}, rounds=5)
    rounds.runs["b"][i].trace   # round i of policy b
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import dataclass, field

from engine import Engine, EngineConfig, EngineEvent, SamplingParams
from engine.errors import LabError
from engine.observe.trace import Trace
from lab.busy import LoadMeter, MachineLoad, busiest
from lab.interleaved import OwnClock
from lab.pairing import round_order
from lab.workload import RequestSpec


class IdleClock(OwnClock):
    """An own clock that can also skip ahead over time its engine spends waiting for a request."""

    def skip_to(self, when: float) -> None:
        now = self()
        if when > now:
            self._offset -= when - now


@dataclass
class WorkloadLane:
    """One policy's engine over the workload: the requests not yet arrived, and their labels."""

    engine: Engine
    clock: IdleClock
    pending: list[RequestSpec]
    labels: dict[int, str] = field(default_factory=dict)
    start: float = 0.0

    @classmethod
    def of(cls, model, tokenizer, config: EngineConfig, specs: list[RequestSpec], name: str) -> WorkloadLane:
        clock = IdleClock()
        engine = Engine(model, tokenizer, config, name=name, clock=clock)
        return cls(engine, clock, sorted(specs, key=lambda s: s.arrival_s), start=clock())

    @property
    def done(self) -> bool:
        return not self.pending and not self.engine.has_unfinished

    @property
    def seconds(self) -> float:
        """How long the workload took on this lane's own clock."""
        return self.clock() - self.start

    def admit(self) -> None:
        """Add every request that has arrived by now; with nothing to run, skip to the next arrival."""
        now = self.clock() - self.start
        if not self.engine.has_unfinished and self.pending and self.pending[0].arrival_s > now:
            self.clock.skip_to(self.start + self.pending[0].arrival_s)
            now = self.pending[0].arrival_s  # exactly: the clock's own sum may round a hair below it
        while self.pending and self.pending[0].arrival_s <= now:
            spec = self.pending.pop(0)
            params = SamplingParams(max_new_tokens=spec.max_new_tokens, ignore_eos=True)
            seq = self.engine.add_request(spec.prompt_ids, params, arrival=self.start + spec.arrival_s)
            self.labels[seq.seq_id] = spec.label or f"req {seq.seq_id}"


@dataclass
class LaneRun:
    """What one policy ran in one round: the engine's trace, the requests' labels, its own seconds."""

    trace: Trace
    labels: dict[int, str]
    seconds: float


def race_workload(
    lanes: dict[str, WorkloadLane],
    on_step: Callable[[str, EngineEvent], None] | None = None,
    lock: threading.Lock | None = None,
) -> MachineLoad:
    """Step every lane with work left once per round, in lab.pairing.round_order, until every request
    of every lane has finished; on_step(name, event) after each step, off every lane's clock. Returns
    the load other processes put on the machine meanwhile."""
    names = list(lanes)
    meter = LoadMeter().start()
    r = 0
    while not all(lane.done for lane in lanes.values()):
        for name in round_order(names, r):
            lane = lanes[name]
            if lane.done:
                continue
            lane.admit()
            with lock if lock is not None else nullcontext(), lane.clock.running():
                event = lane.engine.step()
            if on_step is not None:
                on_step(name, event)
        r += 1
    return meter.stop()


@dataclass
class RaceRounds:
    """Every kept round of a race: runs[name][i] is round i of policy `name`."""

    runs: dict[str, list[LaneRun]]
    loads: list[MachineLoad] = field(default_factory=list)
    retaken: int = 0

    @property
    def load(self) -> MachineLoad | None:
        return busiest(self.loads)

    @property
    def num_rounds(self) -> int:
        return len(self.loads)


def race_rounds(
    model,
    tokenizer,
    specs: list[RequestSpec],
    configs: dict[str, EngineConfig],
    rounds: int,
    on_step: Callable[[str, EngineEvent], None] | None = None,
    on_round: Callable[[RaceRounds], None] | None = None,
    lock: threading.Lock | None = None,
    deadline: float | None = None,
    out: RaceRounds | None = None,
) -> RaceRounds:
    """`rounds` races of the workload under every config, fresh engines each round. A round raced while
    other work kept the machine busy is raced again, at most rounds // 2 times and not past `deadline`
    (a time.perf_counter() value); then it is kept, and its load stands beside the result.
    on_round(result) after each kept round (results land as they are measured); `out` collects them
    (a page keeps it in its state, so a stopped run keeps the rounds that finished)."""
    if not specs:
        raise LabError("The workload has no requests.")
    if rounds < 1:
        raise LabError(f"Race the policies at least once, not {rounds} times.")
    out = out if out is not None else RaceRounds({name: [] for name in configs})
    while out.num_rounds < rounds:
        lanes = {name: WorkloadLane.of(model, tokenizer, c, specs, name) for name, c in configs.items()}
        load = race_workload(lanes, on_step, lock)
        in_time = deadline is None or time.perf_counter() < deadline
        if load.busy and out.retaken < rounds // 2 and in_time:
            out.retaken += 1
            continue
        for name, lane in lanes.items():
            out.runs[name].append(LaneRun(lane.engine.trace, lane.labels, lane.seconds))
        out.loads.append(load)
        if on_round is not None:
            on_round(out)
    return out
