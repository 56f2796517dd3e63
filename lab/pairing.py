"""Timed comparisons that survive a machine that is never quiet.

Two timings taken one after the other compare the machine's load as much as the code: a burst of other
work during the first arm and not the second can invert the answer. So the arms run interleaved, in
rounds (A B, then B A, ...: the order alternates so neither arm always goes first), each round's units
close together in time so both see the same load, and the answer is the median of the paired ratios
(arm ÷ base, round by round) with a distribution-free interval from order statistics, and its n. A
verdict is stated only where that interval lies wholly on one side of what it is judged against;
otherwise the comparison is "not separable here", and says so with the interval and n.

Beside other work the bar is higher. Interleaving gives both arms the same load, but the load does not
cost every arm the same: their threads share a core with the other work, and an arm whose kernels wait
on each other more often loses more. So a ratio timed beside other work is the ratio under that load,
and it can sit on the other side of 1 from the quiet one (int8 + bfloat16's decode step against
float32's, bundled model, 2 cores: 1.1x quiet, 0.80 [0.79-0.81] beside one spinning core). A verdict
from such a ratio needs its interval to clear what it is judged against by BUSY_MARGIN.

A unit is what each arm can do in turn: an engine step where both arms step through the same kind of
work (a decode step at the same position), or a whole run otherwise. A round measured while other
processes took a real share of the cores (lab/busy.py) is re-taken where the caller can re-take it
(`interleave`), within a budget of re-takes, and the result says how many were. More pairs beside a
steady load are no cure: they narrow the interval onto the ratio under that load, which can differ
from the quiet one (bench/contention.py; docs/benchmarks.md).

    rounds = interleave({"on": run_on, "off": run_off}, rounds=5)
    r = rounds.ratio("off", "on")        # off ÷ on, paired round by round
    r.median, r.low, r.high, r.n, compare(r) -> GREATER / LESS / NOT_SEPARABLE
"""

from __future__ import annotations

import math
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from engine.errors import LabError
from lab.busy import LoadMeter, MachineLoad, busiest

CONFIDENCE = 0.95  # the interval's target level
MIN_COVERAGE = 0.90  # below it (fewer than 5 pairs) the interval is too wide to judge by: no verdict
GREATER, LESS, NOT_SEPARABLE = "greater", "less", "not separable"
BUSY_MARGIN = 1.3  # beside other work a verdict's interval must clear its mark by this factor (above)


@dataclass(frozen=True)
class RatioInterval:
    """The median of n paired ratios and an interval for it: [low, high] covers the true median with
    probability `coverage` (order statistics of the sorted ratios: exact, whatever their distribution).
    `load`: the busiest reading over the rounds behind it, as context beside the number."""

    median: float
    low: float
    high: float
    n: int
    coverage: float
    retaken: int = 0  # rounds measured again because other work took the machine meanwhile
    load: MachineLoad | None = None

    @property
    def judgeable(self) -> bool:
        return self.coverage >= MIN_COVERAGE

    def to_dict(self) -> dict:
        return {
            "median": self.median,
            "low": self.low,
            "high": self.high,
            "n": self.n,
            "coverage": self.coverage,
            "retaken": self.retaken,
            "load": self.load.to_dict() if self.load else None,
        }

    @classmethod
    def from_dict(cls, d: dict) -> RatioInterval:
        load = d.get("load")
        return cls(
            d["median"], d["low"], d["high"], d["n"], d["coverage"], d.get("retaken", 0),
            MachineLoad(**load) if load else None,
        )  # fmt: skip


def _binomial_cdf(k: int, n: int) -> float:
    """P(X ≤ k) for X ~ Binomial(n, 1/2)."""
    return sum(math.comb(n, i) for i in range(k + 1)) / 2**n if k >= 0 else 0.0


def median_interval(values: Sequence[float], confidence: float = CONFIDENCE) -> tuple[float, float, float, float]:
    """(median, low, high, coverage): the order-statistics interval [x_(k), x_(n-k+1)] with the largest k
    whose coverage 1 - 2 P(X ≤ k-1) still reaches `confidence`; with too few values for that, the whole
    range, with the coverage it actually has (1 - 2 / 2^n)."""
    xs = sorted(values)
    n = len(xs)
    if n == 0:
        raise LabError("No paired measurements to take a median of.")
    k = 1
    while k + 1 <= (n + 1) // 2 and 1 - 2 * _binomial_cdf(k, n) >= confidence:
        k += 1
    coverage = 1 - 2 * _binomial_cdf(k - 1, n)
    return statistics.median(xs), xs[k - 1], xs[n - k], coverage


def ratio_interval(
    values: Sequence[float], bases: Sequence[float], retaken: int = 0, load: MachineLoad | None = None
) -> RatioInterval:
    """The paired ratios values[i] ÷ bases[i] summarised as a median with its interval."""
    if len(values) != len(bases):
        raise LabError(f"Paired ratios need as many values as bases ({len(values)} against {len(bases)}).")
    pairs = [v / b for v, b in zip(values, bases) if b > 0 and v >= 0]
    median, low, high, coverage = median_interval(pairs)
    return RatioInterval(median, low, high, len(pairs), coverage, retaken, load)


def margin(r: RatioInterval) -> float:
    """How far a verdict's interval must clear its mark: BUSY_MARGIN for a ratio timed beside other
    work, else 1 (the mark itself)."""
    return BUSY_MARGIN if r.load is not None and r.load.busy else 1.0


def compare(r: RatioInterval, against: float = 1.0) -> str:
    """GREATER when the whole interval lies above `against`, LESS when below (beside other work: above
    `against` x BUSY_MARGIN, below `against` / BUSY_MARGIN), else NOT_SEPARABLE (also when there are too
    few pairs for the interval to reach MIN_COVERAGE)."""
    if not r.judgeable:
        return NOT_SEPARABLE
    m = margin(r)
    if r.low > against * m:
        return GREATER
    if r.high < against / m:
        return LESS
    return NOT_SEPARABLE


def round_order(arms: Sequence[str], r: int) -> list[str]:
    """Round r's order: rotated by r, and reversed on odd rounds (A B, B A for two arms), so that over
    the rounds every arm runs in every place equally often."""
    k = r // 2 % len(arms)
    order = list(arms[k:]) + list(arms[:k])
    return order[::-1] if r % 2 else order


@dataclass
class Rounds:
    """What `interleave` measured: each arm's value per kept round, in round order."""

    values: dict[str, list[float]]
    loads: list[MachineLoad | None] = field(default_factory=list)
    retaken: int = 0

    def ratio(self, arm: str, base: str) -> RatioInterval:
        return ratio_interval(self.values[arm], self.values[base], self.retaken, busiest(self.loads))

    def median(self, arm: str) -> float:
        return statistics.median(self.values[arm])


def interleave(
    arms: dict[str, Callable[[], float]],
    rounds: int,
    max_retakes: int | None = None,
    deadline: float | None = None,
    on_round: Callable[[int, int], None] | None = None,
    meter: Callable[[], LoadMeter] = LoadMeter,
) -> Rounds:
    """Run every arm once per round, in `round_order`, `rounds` times. Each callable runs one unit and
    returns its measured value (ms). A round during which other processes kept the machine busy is
    measured again, at most `max_retakes` times (default: half the rounds) and not past `deadline`
    (a time.perf_counter() value); then it is kept, busy, and its load stands beside the result.
    on_round(done, total) after each kept round: results can land as they are measured."""
    names = list(arms)
    budget = rounds // 2 if max_retakes is None else max_retakes
    out = Rounds({name: [] for name in names})
    r = 0
    while r < rounds:
        watch = meter().start()
        measured = {name: arms[name]() for name in round_order(names, r)}
        load = watch.stop()
        in_time = deadline is None or time.perf_counter() < deadline
        if load.busy and out.retaken < budget and in_time:
            out.retaken += 1
            continue
        for name in names:
            out.values[name].append(measured[name])
        out.loads.append(load)
        r += 1
        if on_round:
            on_round(r, rounds)
    return out
