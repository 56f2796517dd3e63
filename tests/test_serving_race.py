"""A serving workload raced under several policies (lab/serving_race.py): requests arrive on each
lane's own clock, a lane with nothing to do skips to its next arrival instead of sleeping, one lane's
steps are never on another's clock, and a round raced beside other work is raced again, within its
budget."""

from __future__ import annotations

import time

import pytest

from engine import EngineConfig
from engine.errors import LabError
from lab import serving_race
from lab.serving_race import IdleClock, WorkloadLane, race_rounds, race_workload
from lab.workload import RequestSpec
from tests.scripted_meter import busy_first

CONFIG = EngineConfig(probe_memory=False)


def specs(tokenizer, late_s: float = 0.0) -> list[RequestSpec]:
    ids = tokenizer("The river rose slowly through the spring").input_ids
    return [RequestSpec(0.0, ids, 5, "early"), RequestSpec(late_s, ids[:5], 4, "late")]


def test_an_idle_clock_skips_ahead_and_never_back():
    clock = IdleClock()
    t0 = clock()
    clock.skip_to(t0 + 2.0)
    assert clock() == pytest.approx(t0 + 2.0)
    clock.skip_to(t0 + 1.0)
    assert clock() == pytest.approx(t0 + 2.0)


def test_a_late_request_arrives_on_the_lanes_own_clock_without_sleeping(tiny):
    """The late request arrives 30 s into the workload: the lane finishes its early one, skips its
    idle clock to the arrival, and the wall clock never waits those 30 s."""
    lane = WorkloadLane.of(tiny.model, tiny.tokenizer, CONFIG, specs(tiny.tokenizer, late_s=30.0), "a")
    began = time.perf_counter()
    race_workload({"a": lane})
    assert time.perf_counter() - began < 20
    late = next(r for r in lane.engine.trace.requests if lane.labels[r.seq_id] == "late")
    early = next(r for r in lane.engine.trace.requests if lane.labels[r.seq_id] == "early")
    assert late.arrival - lane.start == pytest.approx(30.0)
    assert early.finish_time < late.arrival  # it had finished: the lane was idle until then
    assert 0 < late.metrics.ttft_ms < 5000 and lane.seconds >= 30.0  # its own wait only, not 30 s


def test_arrivals_after_idle_gaps_always_join_before_the_next_step(tiny):
    """Requests arriving at awkward times after the lane fell idle: each joins the moment the lane
    skips to it (a clock that rounds a hair short of the arrival would step an empty engine)."""
    ids = tiny.tokenizer("Markets opened at dawn").input_ids
    arrivals = [0.0, 0.2, 0.4, 0.7, 1.3, 2.9]
    work = [RequestSpec(a, ids, 2, f"r{i}") for i, a in enumerate(arrivals)]
    lanes = {n: WorkloadLane.of(tiny.model, tiny.tokenizer, CONFIG, work, n) for n in "ab"}
    race_workload(lanes)
    assert all(len(lane.engine.trace.requests) == len(arrivals) for lane in lanes.values())


def test_one_lanes_steps_are_off_the_others_clock(tiny):
    """Lane b's steps are slowed by 80 ms each; lane a's TTFT and TPOT stay its own."""
    lanes = {n: WorkloadLane.of(tiny.model, tiny.tokenizer, CONFIG, specs(tiny.tokenizer), n) for n in "ab"}
    run = lanes["b"].engine.runner.run

    def slow_run(batch, capture=None):
        time.sleep(0.08)
        return run(batch, capture)

    lanes["b"].engine.runner.run = slow_run
    race_workload(lanes)
    a = [r.metrics for r in lanes["a"].engine.trace.requests]
    b = [r.metrics for r in lanes["b"].engine.trace.requests]
    assert all(m.tpot_ms >= 80 for m in b)
    own = sum(step.ms for step in lanes["a"].engine.trace.steps)  # lane a's clock holds its own steps only
    assert max(m.e2e_ms for m in a) <= own + 40, (own, [m.e2e_ms for m in a])  # not one of b's 80 ms
    assert all(sorted(lanes[n].labels.values()) == ["early", "late"] for n in "ab")


def test_busy_rounds_are_raced_again_within_the_budget(tiny, monkeypatch):
    monkeypatch.setattr(serving_race, "LoadMeter", busy_first(1))
    seen = []
    out = race_rounds(
        tiny.model, tiny.tokenizer, specs(tiny.tokenizer), {"a": CONFIG, "b": CONFIG}, 2, on_round=seen.append
    )
    assert out.retaken == 1 and out.num_rounds == 2 and len(out.runs["a"]) == len(out.runs["b"]) == 2
    assert not out.load.busy and len(seen) == 2  # each kept round landed as it was measured
    monkeypatch.setattr(serving_race, "LoadMeter", busy_first(10))
    out = race_rounds(tiny.model, tiny.tokenizer, specs(tiny.tokenizer), {"a": CONFIG}, 2)
    assert out.retaken == 1 and out.num_rounds == 2 and out.load.busy  # budget spent: kept, and said beside
    monkeypatch.setattr(serving_race, "LoadMeter", busy_first(10))
    out = race_rounds(tiny.model, tiny.tokenizer, specs(tiny.tokenizer), {"a": CONFIG}, 2, deadline=0.0)
    assert out.retaken == 0 and out.load.busy  # past the deadline: nothing raced again


def test_bad_races_are_refused(tiny):
    with pytest.raises(LabError, match="no requests"):
        race_rounds(tiny.model, tiny.tokenizer, [], {"a": CONFIG}, 1)
    with pytest.raises(LabError, match="at least once"):
        race_rounds(tiny.model, tiny.tokenizer, specs(tiny.tokenizer), {"a": CONFIG}, 0)
