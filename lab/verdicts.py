"""Verdicts on the source document's claims (lab/claims.py), as the sweeps and claims
pages show them: a verdict word, the numbers behind it, and the key of the sentence that explains it.

The rules that produce verdicts are pure functions of measured numbers (lab/sweep_verdicts.py,
lab/claims.py), so each can be tested on real data and on a hand-made counter-example.
The explanation is a key of the catalogues' shared context (lab/catalogues.py), filled in with `numbers`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from engine.errors import LabError
from lab.busy import MachineLoad, busiest
from lab.catalogues import has, say
from lab.pairing import GREATER, RatioInterval, median_interval

HOLDS = "holds"
ROUGHLY = "roughly"
FAILS = "does not hold"
UNMEASURABLE = "not measurable here"  # e.g. GPU power on a CPU; the verdict says what was checked instead
SHOWN = "shown on page"  # a description rather than a measurable statement
UNRELIABLE = "unreliable"  # timed while other processes kept the machine busy (lab/busy.py): no verdict
# a timed comparison whose interval does not exclude the alternative (lab/pairing.py): no verdict, and
# the interval and n say how far it got
NOT_SEPARABLE = "not separable here"
VERDICTS = (HOLDS, ROUGHLY, FAILS, UNMEASURABLE, SHOWN, UNRELIABLE, NOT_SEPARABLE)


@dataclass
class Verdict:
    claim: str  # "C4"
    verdict: str  # one of VERDICTS
    reason: str  # key of the explanation in the catalogues, formatted with `numbers`
    numbers: dict[str, float | int | str] = field(default_factory=dict)
    # a timed verdict's main interval (the one a table shows beside it) and the busiest reading of other
    # work over every timing behind it: context beside the numbers, never a switch
    interval: RatioInterval | None = None
    load: MachineLoad | None = None

    def __post_init__(self):
        if self.verdict not in VERDICTS:
            raise LabError(f"Unknown verdict {self.verdict!r}; one of {', '.join(VERDICTS)}.")


def explain(v: Verdict, lang: str = "en") -> str:
    """The verdict's explanation with its measured numbers filled in, in `lang` (a catalogue's code)."""
    return say(v.reason, lang, **v.numbers)


def unreliable_when_busy(verdicts: dict[str, Verdict], load, timed: tuple[str, ...]) -> dict[str, Verdict]:
    """The timed claims' verdicts replaced by "unreliable" when `load` (a lab.busy.MachineLoad) was busy:
    a timing taken while other processes held the cores is not evidence for or against a claim. (A
    claim only shown on its page, with nothing timed, stays as it is.)"""
    if load is None or not load.busy:
        return verdicts
    numbers = dict(other=load.other_cores, cores=load.cores)

    def unreliable(c: str, v: Verdict) -> Verdict:
        own = f"why_{c.lower()}_busy"  # a claim whose untimed part still holds says that part too
        if has(own):
            return Verdict(c, UNRELIABLE, own, v.numbers | numbers)
        return Verdict(c, UNRELIABLE, "why_busy", numbers)

    return {c: unreliable(c, v) if c in timed and v.verdict != SHOWN else v for c, v in verdicts.items()}


def interval_numbers(r: RatioInterval) -> dict[str, float | int]:
    """A ratio's numbers as a verdict's explanation uses them: {ratio}, {low}, {high}, {n}."""
    return {"ratio": r.median, "low": r.low, "high": r.high, "n": r.n}


def worst(*verdicts: str) -> str:
    """The weakest of several partial verdicts: every part must hold for the whole to hold."""
    order = [HOLDS, ROUGHLY, FAILS]
    return max(verdicts, key=order.index)


@dataclass
class Spread:
    """Median and spread of repeated measurements."""

    median: float
    lo: float  # min
    hi: float  # max
    q1: float
    q3: float
    n: int

    @classmethod
    def of(cls, values: list[float]) -> Spread:
        if not values:
            raise LabError("No measurements to summarise.")
        a = np.asarray(values, dtype=float)
        return cls(
            float(np.median(a)),
            float(a.min()),
            float(a.max()),
            float(np.percentile(a, 25)),
            float(np.percentile(a, 75)),
            len(a),
        )


def slope(x: list[float], y: list[float]) -> float:
    """Least-squares slope of y against x (units of y per unit of x)."""
    if len(x) < 2:
        raise LabError("A slope needs at least two points.")
    return float(np.polyfit(np.asarray(x, dtype=float), np.asarray(y, dtype=float), 1)[0])


def log_slope(x: list[float], y: list[float]) -> float:
    """Exponent p of y ~ x^p (least squares on logs)."""
    if len(x) < 2:
        raise LabError("An exponent needs at least two points.")
    lx, ly = np.log(np.asarray(x, dtype=float)), np.log(np.maximum(np.asarray(y, dtype=float), 1e-12))
    return float(np.polyfit(lx, ly, 1)[0])


# --- the same rule for shares and exponents (lab/pairing.py's, for a ratio) ---------------------------
REASON_WORDS = {HOLDS: "holds", ROUGHLY: "roughly", FAILS: "fails", NOT_SEPARABLE: "not_separable"}


def value_interval(values: list[float], load: MachineLoad | None = None, retaken: int = 0) -> RatioInterval:
    """The median of independent measurements (a share, a per-request ratio) with its order-statistics
    interval and n, as a ratio's is (lab.pairing.median_interval)."""
    median, low, high, coverage = median_interval(values)
    return RatioInterval(median, low, high, len(values), coverage, retaken, load)


def exponent_interval(
    x: list[float], y: list[float], load: MachineLoad | None = None, resamples: int = 400, seed: int = 0
) -> RatioInterval:
    """The exponent p of y ~ x^p (least squares on logs) with a 95 % bootstrap interval: the points
    resampled with replacement, the 2.5th and 97.5th percentiles of the refitted exponents (a fixed
    seed: the same points give the same interval). Under 5 points the interval is not judged."""
    if len(x) < 2:
        raise LabError("An exponent needs at least two points.")
    lx, ly = np.log(np.asarray(x, dtype=float)), np.log(np.maximum(np.asarray(y, dtype=float), 1e-12))
    rng = np.random.default_rng(seed)
    fits = []
    for _ in range(resamples):
        i = rng.integers(0, len(lx), len(lx))
        if np.ptp(lx[i]) > 0:  # a resample of one context has no slope
            fits.append(np.polyfit(lx[i], ly[i], 1)[0])
    p = float(np.polyfit(lx, ly, 1)[0])
    low, high = (float(q) for q in np.percentile(fits, [2.5, 97.5])) if fits else (p, p)
    return RatioInterval(p, min(low, p), max(high, p), len(x), 0.95 if len(x) >= 5 else 0.0, 0, load)


def tiered(r: RatioInterval, holds_at: float, roughly_at: float, side: str = GREATER) -> str:
    """A verdict word from an interval against two bounds on one side (GREATER: at least, LESS: at
    most): HOLDS where the whole interval lies past `holds_at`, ROUGHLY where it lies past `roughly_at`,
    FAILS where it lies wholly short of `roughly_at`, NOT_SEPARABLE otherwise (too few values included)."""
    if not r.judgeable:
        return NOT_SEPARABLE
    sign = 1.0 if side == GREATER else -1.0
    low, high = sorted((sign * r.low, sign * r.high))
    if low >= sign * holds_at:
        return HOLDS
    if low >= sign * roughly_at:
        return ROUGHLY
    if high < sign * roughly_at:
        return FAILS
    return NOT_SEPARABLE


def banded(r: RatioInterval, holds: tuple[float, float], roughly: tuple[float, float]) -> str:
    """A verdict word from an interval against two bands around "unchanged": HOLDS where the whole
    interval lies inside `holds`, ROUGHLY inside `roughly`, FAILS wholly outside `roughly`, else
    NOT_SEPARABLE."""
    if not r.judgeable:
        return NOT_SEPARABLE
    if holds[0] <= r.low and r.high <= holds[1]:
        return HOLDS
    if roughly[0] <= r.low and r.high <= roughly[1]:
        return ROUGHLY
    if r.low > roughly[1] or r.high < roughly[0]:
        return FAILS
    return NOT_SEPARABLE


def combined(*words: str) -> str:
    """The verdict of a claim with several parts: it fails where a part fails (that part's interval
    excluded it), is not separable where a part is not, holds roughly where a part holds roughly."""
    for word in (FAILS, NOT_SEPARABLE, ROUGHLY):
        if word in words:
            return word
    return HOLDS


def spread_beside_other_work(word: str, load: MachineLoad | None) -> bool:
    """Whether a verdict on a spread of times (gaps between tokens) cannot be stated: other processes
    can only widen such a spread, never narrow it, so a spread within its bound beside them is within
    it quiet too; one past its bound beside them cannot be told from their noise."""
    return word != HOLDS and load is not None and load.busy


def named(r: RatioInterval, name: str) -> dict[str, float | int]:
    """An interval's numbers under one name, for an explanation that quotes several: {name}, {name_lo},
    {name_hi}, {name_n}."""
    return {name: r.median, f"{name}_lo": r.low, f"{name}_hi": r.high, f"{name}_n": r.n}


def loads_of(*intervals: RatioInterval | None) -> MachineLoad | None:
    """The busiest reading behind several intervals (None where none was metered)."""
    return busiest([r.load for r in intervals if r is not None])


def reason(claim: str, word: str) -> str:
    """The explanation key of a claim's verdict word: why_c4_holds, why_c4_not_separable, ..."""
    return f"why_{claim.lower()}_{REASON_WORDS[word]}"
