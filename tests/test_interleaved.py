"""Engines stepped in turn, each on its own clock (lab/interleaved.py): one engine's times do not hold
the others' steps, its steps pair with theirs position by position, and a paused clock stands still."""

from __future__ import annotations

import time

from engine import EngineConfig, SamplingParams
from lab.interleaved import Lane, OwnClock, race, step_ratio


def test_a_paused_clock_stands_still_and_a_running_one_runs():
    clock = OwnClock()
    t0 = clock()
    time.sleep(0.02)
    assert clock() == t0  # starts paused
    with clock.running():
        time.sleep(0.02)
    t1 = clock()
    time.sleep(0.02)
    assert clock() == t1 and 0.015 < t1 - t0 < 0.2


def test_each_lane_times_only_its_own_steps(tiny):
    """Lane b's steps are slowed by 80 ms each; lane a's TPOT and TTFT stay its own."""
    config = EngineConfig(probe_memory=False)
    lanes = {name: Lane.of(tiny.model, tiny.tokenizer, config) for name in ("a", "b")}
    run = lanes["b"].engine.runner.run

    def slow_run(batch, capture=None):
        time.sleep(0.08)
        return run(batch, capture)

    lanes["b"].engine.runner.run = slow_run
    ids = tiny.tokenizer("Hello there, how are you").input_ids
    for lane in lanes.values():
        lane.engine.add_request(ids, SamplingParams(max_new_tokens=6, ignore_eos=True))
    order = []
    race(lanes, on_step=lambda name, event: order.append(name))
    assert order[:4] == ["a", "b", "b", "a"]  # the rounds alternate who goes first
    a, b = (lanes[n].engine.trace.requests[0].metrics for n in ("a", "b"))
    assert b.tpot_ms >= 80 and b.ttft_ms >= 80
    assert a.tpot_ms < 40 and a.ttft_ms < 40, (a.tpot_ms, a.ttft_ms)
    r = step_ratio(lanes["b"], lanes["a"])
    assert r.n == 5 and r.low > 1  # five decode steps each, paired; b the slower every time
