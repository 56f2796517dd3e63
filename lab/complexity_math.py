"""Pure arithmetic behind the complexity lab page: prompts of a given length, the points an exponent
is fitted on, the document's curves scaled onto a measurement, closed-form totals and their
apparent exponents, and the crossover table. No Streamlit, no plotting.

Totals over n decode steps with contexts C = L+1 .. L+n (lab/complexity.py's formulas):
  with the cache     Σ (lin + head + a C)                                = n (lin + head) + a S1
  without the cache  Σ (C lin - (C - 1) tail + head + a C (C + 1) / 2)   = (lin - tail) S1 + n (tail + head)
                                                                            + a (S2 + S1) / 2
where S1 = Σ C and S2 = Σ C².
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine.config import ModelConfig
from engine.errors import LabError
from engine.observe.costmodel import last_layer_tail_flops, linear_flops_per_token, lm_head_flops
from lab.complexity import (
    CacheRun,
    attention_flops_per_key,
    crossover_context,
    fit_exponent,
    step_flops_split,
    theory_sums,
)

FILLER = (
    "The history of computing is a story of ideas meeting machines. Early calculators were mechanical, "
    "then electrical relays and vacuum tubes made programmable computers possible. "
)
MIN_FIT_STEPS = 4  # fewer decode steps than this give no slope worth showing


def prompt_of_length(tokenizer, length: int) -> list[int]:
    """Exactly `length` token ids of ordinary English text (the filler repeated as needed)."""
    if length < 1:
        raise LabError("The prompt length L must be at least 1 token.")
    ids: list[int] = []
    repeats = 1
    while len(ids) < length:
        ids = list(tokenizer(FILLER * repeats).input_ids)
        if not ids:
            raise LabError("This tokenizer turns the filler text into no tokens.")
        repeats *= 2
    return ids[:length]


def fit_steps(num_steps: int) -> list[int]:
    """Decode-step counts n to fit on: log-spaced from 4 to num_steps, so every octave weighs the
    same (plain 1..n would let the long tail decide the slope)."""
    if num_steps < MIN_FIT_STEPS:
        return []
    grid = np.geomspace(MIN_FIT_STEPS, num_steps, num=min(12, num_steps - MIN_FIT_STEPS + 1))
    return sorted({int(round(x)) for x in grid})


def exponent(values: list[float], steps: list[int]) -> float | None:
    """Slope of log(values[n-1]) against log n over the fit points; None if there are too few."""
    if len(steps) < 2:
        return None
    ys = [values[n - 1] for n in steps]
    if min(ys) <= 0:
        return None
    return fit_exponent(steps, ys)


@dataclass
class Theory:
    """The document's curve for one measurement: Σ(L+t) or Σ(L+t)², scaled to meet it at the end."""

    label: str  # "sum1" or "sum2"
    values: list[float]
    slope: float | None  # its own log-log slope over the same fit points


def scaled_theory(prompt_len: int, measured: list[float], power: int) -> Theory:
    """Σ(L+t)^power for t = 1..n, scaled so that its last value equals the measurement's last."""
    sum1, sum2 = theory_sums(prompt_len, len(measured))
    curve = np.asarray(sum1 if power == 1 else sum2, dtype=float)
    scale = measured[-1] / curve[-1] if len(curve) and curve[-1] else 1.0
    values = list(curve * scale)
    return Theory(f"sum{power}", values, exponent(values, fit_steps(len(values))))


@dataclass(frozen=True)
class Exponent:
    """A fitted exponent with a 95 % interval, from n measured steps."""

    value: float
    low: float
    high: float
    n: int


BOOTSTRAP_DRAWS = 200


MAX_PAIRS = 4000  # Theil–Sen over at most this many pairs of steps (a seeded sample of them past it)


def _pairs(size: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    i, j = np.triu_indices(size, k=1)
    if i.size > MAX_PAIRS:
        keep = np.random.default_rng(seed).choice(i.size, MAX_PAIRS, replace=False)
        i, j = i[keep], j[keep]
    return i, j


def _theil_sen(n: np.ndarray, y: np.ndarray, pairs: tuple[np.ndarray, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """(intercept, slope) of the Theil–Sen line of each row of y against n: the median of the
    pairwise slopes, so one slow step (a first touch, a burst of other work) cannot bend it."""
    i, j = pairs
    slope = np.median((y[..., j] - y[..., i]) / (n[j] - n[i]), axis=-1)
    return np.median(y - slope[..., None] * n, axis=-1), slope


def _cumulative_exponent(intercept: np.ndarray, slope: np.ndarray, n: np.ndarray, steps: list[int]) -> np.ndarray:
    """The exponent `exponent` fits, of the cumulative time of straight-line steps."""
    per_step = np.maximum(intercept[..., None] + slope[..., None] * n, 1e-6)
    lx = np.log(np.asarray(steps, dtype=float))
    ly = np.log(np.cumsum(per_step, axis=-1)[..., np.asarray(steps) - 1])
    dx = lx - lx.mean()
    return (dx * (ly - ly.mean(axis=-1, keepdims=True))).sum(axis=-1) / (dx**2).sum()


def time_exponent(step_ms: list[float], draws: int = BOOTSTRAP_DRAWS, seed: int = 0) -> Exponent | None:
    """The exponent of the cumulative decode time against n, fitted as `exponent` fits the counted
    FLOPs', on a robust straight line through the step times (Theil–Sen: flat with the cache, growing
    with the context without it), so that a few slow steps do not bend it; with a 95 % interval from a
    residual bootstrap: the steps' own residuals redrawn, the line and the exponent refitted, `draws`
    times (seeded: the same run gives the same interval)."""
    steps = fit_steps(len(step_ms))
    if len(steps) < 2:
        return None
    n = np.arange(1, len(step_ms) + 1, dtype=float)
    y = np.asarray(step_ms, dtype=float)
    pairs = _pairs(y.size, seed)
    intercept, slope = _theil_sen(n, y, pairs)
    value = float(_cumulative_exponent(intercept, slope, n, steps))
    fitted = intercept + slope * n
    rng = np.random.default_rng(seed)
    samples = fitted + rng.choice(y - fitted, size=(draws, y.size))
    low, high = np.percentile(_cumulative_exponent(*_theil_sen(n, samples, pairs), n, steps), [2.5, 97.5])
    return Exponent(value, float(min(low, value)), float(max(high, value)), len(step_ms))


def measured_exponents(run: CacheRun) -> tuple[float | None, float | None]:
    """(time, FLOPs) exponents of the cumulative cost against the number of decode steps."""
    steps = fit_steps(len(run.step_ms))
    return exponent(run.cumulative_ms, steps), exponent(run.cumulative_flops, steps)


def _power_sums(lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """S1 = Σ C and S2 = Σ C² for C = lo..hi, in closed form (float64: no overflow at 1e6 tokens)."""
    lo, hi = np.asarray(lo, dtype=float) - 1, np.asarray(hi, dtype=float)
    s1 = (hi * (hi + 1) - lo * (lo + 1)) / 2
    s2 = (hi * (hi + 1) * (2 * hi + 1) - lo * (lo + 1) * (2 * lo + 1)) / 6
    return s1, s2


def total_flops(c: ModelConfig, prompt_len: np.ndarray, num_steps: np.ndarray, kv_cache: bool) -> np.ndarray:
    """Counted FLOPs of num_steps decode steps after a prompt of prompt_len tokens (module docstring)."""
    lin, head, a = linear_flops_per_token(c), lm_head_flops(c), attention_flops_per_key(c)
    tail = last_layer_tail_flops(c)
    n, L = np.asarray(num_steps, dtype=float), np.asarray(prompt_len, dtype=float)
    s1, s2 = _power_sums(L + 1, L + n)
    if kv_cache:
        return n * (lin + head) + a * s1
    return (lin - tail) * s1 + n * (tail + head) + a * (s2 + s1) / 2


def apparent_exponent(c: ModelConfig, ns: np.ndarray, kv_cache: bool) -> np.ndarray:
    """Local slope d log(total) / d log N with L = N (the document's "N ≈ L" case), by a central
    difference in log N (the closed forms are polynomials, so N need not be an integer)."""
    h = 1e-3
    up, down = np.asarray(ns, dtype=float) * np.exp(h), np.asarray(ns, dtype=float) * np.exp(-h)
    return (np.log(total_flops(c, up, up, kv_cache)) - np.log(total_flops(c, down, down, kv_cache))) / (2 * h)


def exponent_grid(max_n: int = 1 << 20) -> np.ndarray:
    return np.unique(np.geomspace(1, max_n, 160).round().astype(np.int64))


@dataclass
class CrossoverRow:
    name: str
    linear_per_token: int  # lin, FLOPs
    tail_per_token: int  # tail: the last layer's output product and MLP, FLOPs
    attention_per_key: int  # a, FLOPs
    with_cache: int  # C* = lin / a
    without_cache: int  # 2 (lin - tail) / a
    max_position: int


def crossover_rows(configs: dict[str, ModelConfig]) -> list[CrossoverRow]:
    return [
        CrossoverRow(
            name,
            linear_flops_per_token(c),
            last_layer_tail_flops(c),
            attention_flops_per_key(c),
            crossover_context(c, True),
            crossover_context(c, False),
            c.max_position,
        )
        for name, c in configs.items()
    ]


def per_step_split(c: ModelConfig, contexts: np.ndarray) -> dict[bool, tuple[np.ndarray, np.ndarray]]:
    """{kv_cache: (linear, attention)} FLOPs of one decode step at each context, from the engine's
    own step_flops_split so the chart and the measured runs count alike."""
    out = {}
    for kv in (True, False):
        pairs = np.array([step_flops_split(c, int(n), kv) for n in contexts], dtype=float)
        out[kv] = (pairs[:, 0], pairs[:, 1])
    return out


def first_n_above(c: ModelConfig, level: float, kv_cache: bool = False) -> int | None:
    """Smallest N (L = N) whose apparent exponent reaches `level`; None within a million tokens."""
    ns = exponent_grid()
    slopes = apparent_exponent(c, ns, kv_cache)
    hit = np.nonzero(slopes >= level)[0]
    return int(ns[hit[0]]) if len(hit) else None
