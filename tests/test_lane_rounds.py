"""Engines stepped one step each per round, as interleave's arms (lab/lane_rounds.py): the i-th steps
pair, a planted slow lane shows in the ratio, a busy round is stepped again and dropped from the
pairing, and the kept steps' records come back in round order."""

from __future__ import annotations

import time

from engine import EngineConfig, SamplingParams
from lab.interleaved import Lane
from lab.lane_rounds import advance, finish, lane_rounds
from lab.pairing import GREATER, compare
from tests.scripted_meter import ScriptedMeter


def lanes_of(tiny, slow_ms: float = 0.0) -> dict[str, Lane]:
    config = EngineConfig(probe_memory=False)
    lanes = {name: Lane.of(tiny.model, tiny.tokenizer, config, name) for name in ("a", "b")}
    if slow_ms:
        run = lanes["b"].engine.runner.run

        def slow_run(batch, capture=None):
            time.sleep(slow_ms / 1e3)
            return run(batch, capture)

        lanes["b"].engine.runner.run = slow_run
    ids = tiny.tokenizer("Hello there, how are you").input_ids
    for lane in lanes.values():
        lane.engine.add_request(ids, SamplingParams(max_new_tokens=16, ignore_eos=True))
    return lanes


def test_a_slow_lane_shows_in_its_paired_ratio(tiny):
    lanes = lanes_of(tiny, slow_ms=60)
    primed = advance(lanes, 2)
    assert [r.phase for r in primed["a"]] == ["prefill", "decode"]
    got = lane_rounds(lanes, 6)
    assert got.rounds.values["b"] == [r.ms for r in got.kept["b"]] and len(got.kept["a"]) == 6
    assert all(r.phase == "decode" for r in got.kept["b"]) and compare(got.ratio("b", "a")) == GREATER
    finish(lanes)
    assert not any(lane.engine.has_unfinished for lane in lanes.values())


def test_a_busy_round_is_stepped_again_and_left_out_of_the_pairing(tiny):
    lanes = lanes_of(tiny)
    advance(lanes, 1)
    got = lane_rounds(lanes, 5, max_retakes=2, meter=ScriptedMeter([True, False, True, False, False, False, False]))
    r = got.ratio("b", "a")
    assert r.n == 5 and r.retaken == 2
    steps = [s for s in lanes["a"].steps if s.phase == "decode"]
    assert len(steps) == 7  # every round stepped, the two busy ones dropped
    assert [s.step for s in got.kept["a"]] == [s.step for s in steps[1:2] + steps[3:]]
