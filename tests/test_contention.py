"""bench/contention.py's pure part: how a busy run's verdict stands to the quiet one's (the same,
retreated to "not separable here", advanced, turned over, or moved without contradiction), and the
shares a part is judged by; and its racing adapter on a tiny model (its plumbing, not its timings)."""

from __future__ import annotations

import pytest

from bench.contention import (
    ADVANCED,
    GOAL_SHARE,
    OPPOSITE,
    RETREATED,
    SAME,
    SHIFTED,
    agreement,
    not_separable_share,
    raced_decode,
    summarise,
)
from lab.pairing import GREATER, LESS
from lab.pairing import NOT_SEPARABLE as PAIR_NOT_SEPARABLE
from lab.verdicts import FAILS, HOLDS, NOT_SEPARABLE, ROUGHLY, SHOWN, UNMEASURABLE, UNRELIABLE


@pytest.mark.parametrize(
    "quiet, busy, expected",
    [
        (HOLDS, HOLDS, SAME),
        (GREATER, GREATER, SAME),
        (HOLDS, NOT_SEPARABLE, RETREATED),
        (FAILS, UNRELIABLE, RETREATED),  # the old rule's retreat counts as one
        (GREATER, PAIR_NOT_SEPARABLE, RETREATED),
        (NOT_SEPARABLE, HOLDS, ADVANCED),
        (PAIR_NOT_SEPARABLE, LESS, ADVANCED),
        (HOLDS, FAILS, OPPOSITE),
        (FAILS, ROUGHLY, OPPOSITE),
        (GREATER, LESS, OPPOSITE),
        (HOLDS, ROUGHLY, SHIFTED),
        (HOLDS, UNMEASURABLE, SHIFTED),
        (SHOWN, SHOWN, SAME),
    ],
)
def test_agreement_of_a_busy_verdict_with_the_quiet_one(quiet, busy, expected):
    assert agreement(quiet, busy) == expected


def test_a_retreat_to_no_verdict_from_no_verdict_is_no_change():
    assert agreement(NOT_SEPARABLE, UNRELIABLE) == RETREATED  # still none: counted with the retreats
    assert agreement(UNRELIABLE, UNRELIABLE) == SAME


def test_not_separable_share_counts_every_kind_of_no_verdict():
    assert not_separable_share({}) == 0.0
    verdicts = {"C1": HOLDS, "C2": NOT_SEPARABLE, "C3": UNRELIABLE, "cmp": PAIR_NOT_SEPARABLE, "C5": SHOWN, "C6": FAILS}
    assert not_separable_share(verdicts) == pytest.approx(3 / 6)


def test_summary_of_a_part():
    quiet = {"C1": HOLDS, "C4": HOLDS, "C8": FAILS, "C13": NOT_SEPARABLE, "C21": HOLDS, "C22": ROUGHLY}
    busy = {"C1": HOLDS, "C4": NOT_SEPARABLE, "C8": FAILS, "C13": HOLDS, "C21": FAILS, "C22": HOLDS}
    s = summarise(quiet, busy)
    assert (s.items, s.same, s.retreated, s.advanced, s.opposite, s.shifted) == (6, 2, 1, 1, 1, 1)
    assert s.agreement == pytest.approx(2 / 6)
    assert s.not_separable_quiet == s.not_separable_busy == pytest.approx(1 / 6)
    assert not s.within_goal  # C21 turned over: whatever the share, that fails the part


def test_the_goal_is_a_third_at_most_and_nothing_turned_over():
    quiet = {f"x{i}": GREATER for i in range(6)}
    two = summarise(quiet, {**quiet, "x0": PAIR_NOT_SEPARABLE, "x1": PAIR_NOT_SEPARABLE})
    three = summarise(quiet, {**quiet, "x0": PAIR_NOT_SEPARABLE, "x1": PAIR_NOT_SEPARABLE, "x2": PAIR_NOT_SEPARABLE})
    assert two.not_separable_busy == pytest.approx(GOAL_SHARE) and two.within_goal
    assert three.not_separable_busy == 0.5 and not three.within_goal


def test_an_item_only_one_run_judged_counts_as_no_verdict_there():
    s = summarise({"a": HOLDS}, {"a": HOLDS, "b": HOLDS})
    assert (s.items, s.same, s.advanced) == (2, 1, 1)


def test_raced_decode_pairs_each_lane_with_the_base_step_by_step(tiny):
    """The adapter Compare's and Precision's parts share: fresh lanes each race, decode steps pooled
    over the races; a verdict word per lane (which one is the machine's business, not the test's)."""
    from engine import EngineConfig, SamplingParams
    from lab.interleaved import Lane

    made = []

    def make() -> dict:
        lanes = {}
        for name, kv in (("on", True), ("off", False)):
            lane = Lane.of(tiny.model, tiny.tokenizer, EngineConfig(kv_cache=kv, probe_memory=False), name)
            lane.engine.add_request("The capital of France is", SamplingParams(max_new_tokens=6, ignore_eos=True))
            lanes[name] = lane
        made.append(lanes)
        return lanes

    verdicts = raced_decode(make, "on", repeats=2)
    assert list(verdicts) == ["off ÷ on"] and verdicts["off ÷ on"] in (GREATER, LESS, PAIR_NOT_SEPARABLE)
    assert len(made) == 2 and all(len(lanes["off"].phase_ms("decode")) == 5 for lanes in made)
