"""Paired, interleaved timings (lab/pairing.py): the interval of a median by order statistics, the
verdict rule, the round order, re-takes of busy rounds within their budget, and the point of it all:
a burst of other work over the first half of a run inverts a sequential comparison and leaves the
interleaved one right."""

from __future__ import annotations

import random

import pytest

from lab.busy import MachineLoad
from lab.pairing import (
    BUSY_MARGIN,
    GREATER,
    LESS,
    NOT_SEPARABLE,
    RatioInterval,
    compare,
    interleave,
    margin,
    median_interval,
    ratio_interval,
    round_order,
)
from tests.scripted_meter import ScriptedMeter


def test_the_interval_is_the_order_statistics_one():
    xs = list(range(1, 21))  # n = 20: the 95 % interval of the median is [x_(6), x_(15)]
    median, low, high, coverage = median_interval(xs)
    assert (median, low, high) == (10.5, 6, 15) and 0.95 <= coverage < 0.99
    median, low, high, coverage = median_interval([3.0, 1.0, 2.0])  # too few for 95 %: the range, 75 %
    assert (median, low, high, coverage) == (2.0, 1.0, 3.0, 0.75)


def test_the_interval_covers_the_median_as_often_as_it_says():
    rng = random.Random(0)
    hits = 0
    for _ in range(2000):
        _, low, high, _ = median_interval([rng.gauss(0, 1) for _ in range(15)])
        hits += low <= 0 <= high
    assert hits / 2000 >= 0.94  # n = 15: the interval's own coverage is 96.5 %


def test_a_verdict_only_where_the_interval_excludes_the_alternative():
    assert compare(ratio_interval([3.0, 3.1, 2.9, 3.2, 3.0, 2.8], [1.0] * 6)) == GREATER
    assert compare(ratio_interval([0.5, 0.52, 0.49, 0.51, 0.5, 0.48], [1.0] * 6)) == LESS
    assert compare(ratio_interval([0.9, 1.1, 0.95, 1.05, 1.2, 0.8], [1.0] * 6)) == NOT_SEPARABLE
    few = ratio_interval([3.0, 3.1, 2.9], [1.0] * 3)  # every ratio above 1, but n = 3: 75 % coverage
    assert compare(few) == NOT_SEPARABLE and not few.judgeable


def test_beside_other_work_a_verdict_must_clear_its_mark_by_the_margin():
    """The case that needed it: a ratio 1.1x quiet read 0.80 [0.79-0.81] beside one spinning core. Beside
    other work (a busy reading) that says nothing; 0.5 still says less, and a mark other than 1 moves too."""
    busy, quiet = MachineLoad(0.85, 2, 1.0), MachineLoad(0.05, 2, 1.0)
    near = [0.80, 0.79, 0.81, 0.80, 0.81, 0.79, 0.80, 0.80]
    assert compare(ratio_interval(near, [1.0] * 8, load=quiet)) == LESS
    assert compare(ratio_interval(near, [1.0] * 8, load=busy)) == NOT_SEPARABLE
    assert compare(ratio_interval([0.5] * 8, [1.0] * 8, load=busy)) == LESS
    assert compare(ratio_interval([1.25] * 8, [1.0] * 8, load=busy)) == NOT_SEPARABLE
    assert compare(ratio_interval([1.35] * 8, [1.0] * 8, load=busy)) == GREATER
    assert compare(ratio_interval([3.5] * 8, [1.0] * 8, load=busy), 3.0) == NOT_SEPARABLE
    assert compare(ratio_interval([3.5] * 8, [1.0] * 8, load=quiet), 3.0) == GREATER
    assert margin(ratio_interval(near, [1.0] * 8)) == 1.0 == margin(ratio_interval(near, [1.0] * 8, load=quiet))
    assert margin(ratio_interval(near, [1.0] * 8, load=busy)) == BUSY_MARGIN


def test_round_order_alternates_and_balances():
    orders = [round_order(["a", "b"], r) for r in range(4)]
    assert orders == [["a", "b"], ["b", "a"], ["b", "a"], ["a", "b"]]
    three = [round_order(["a", "b", "c"], r) for r in range(6)]
    assert all(sorted(o) == ["a", "b", "c"] for o in three)
    assert {o[0] for o in three} == {"a", "b", "c"}


class SimulatedMachine:
    """A clock that only the arms advance: arm a takes 10 ms, arm b 12 ms (b ÷ a = 1.2), and every unit
    run before `burst_until` ms (other work on the machine) takes three times as long."""

    def __init__(self, burst_until: float):
        self.now, self.burst_until = 0.0, burst_until

    def unit(self, ms: float):
        def run() -> float:
            took = ms * (3 if self.now < self.burst_until else 1)
            self.now += took
            return took

        return run


def test_a_burst_over_the_first_half_flips_a_sequential_comparison_not_the_interleaved_one():
    n = 10
    seq = SimulatedMachine(burst_until=n * 30)  # the first half of the sequential run: every unit of a
    a = [seq.unit(10)() for _ in range(n)]
    b = [seq.unit(12)() for _ in range(n)]
    assert compare(ratio_interval(b, a)) == LESS  # sequential: b "faster", the opposite of the truth

    inter = SimulatedMachine(burst_until=n * 22 * 3 / 2)  # the first half of the same work interleaved
    rounds = interleave({"a": inter.unit(10), "b": inter.unit(12)}, n, meter=ScriptedMeter([]))
    r = rounds.ratio("b", "a")
    assert compare(r) == GREATER and r.median == pytest.approx(1.2) and r.n == n


def test_busy_rounds_are_retaken_within_their_budget():
    calls = []
    arms = {"a": lambda: calls.append("a") or 1.0, "b": lambda: calls.append("b") or 2.0}
    rounds = interleave(arms, 4, meter=ScriptedMeter([True, False, True, False, False, False]))
    assert rounds.retaken == 2 and len(rounds.values["a"]) == 4 and len(calls) == 12
    capped = interleave(arms, 4, max_retakes=1, meter=ScriptedMeter([True, True, True, True, True, True]))
    assert capped.retaken == 1 and len(capped.values["a"]) == 4
    r = capped.ratio("b", "a")
    assert r.retaken == 1 and r.load is not None and r.load.busy and r.median == 2.0


def test_a_ratio_and_its_record_round_trip():
    r = ratio_interval([30.0] * 6, [10.0] * 6, 1, MachineLoad(0.8, 2, 1.0))
    assert (r.n, r.median, r.retaken) == (6, 3.0, 1)
    assert RatioInterval.from_dict(r.to_dict()) == r
