"""The measured prefill-memory sweep of the memory lab (C20): which prompt lengths and variants
(eager / sdpa, whole prompt or chunked) to measure, running them one point at a time, and
comparing the eager-minus-sdpa peak with the score-matrix formula; then, at the lengths asked, what
the scores cost in time: the same prefill with eager and with sdpa, interleaved (lab/prefill_timing.py).

No Streamlit here: the panel drives `run_sweep` and redraws its progress after each point.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Iterator
from contextlib import nullcontext
from dataclasses import dataclass, field
from enum import Enum

import torch

from app_pages.memory.strings import t
from engine.errors import LabError
from engine.observe.memory import ATTENTION, MLP
from lab import eta
from lab.memory_lab import PrefillMemory, measure_prefill_memory
from lab.pairing import RatioInterval
from lab.prefill_timing import time_prefills

MAX_POINTS = 12  # prompt lengths per sweep: each point is a real prefill, seconds each on a CPU
AGREE_WITHIN = 0.10  # the tolerance: eager - sdpa within 10 % of the formula
DEFAULT_ROUNDS, MAX_ROUNDS = 5, 30  # timed rounds of eager and sdpa: five pairs are the fewest to judge by
RETAKE_BUDGET_S = 60.0  # a busy timed round is measured again while the sweep is inside this


class SweepStatus(str, Enum):
    RUNNING = "running"
    DONE = "done"
    STOPPED = "stopped"  # cut short by a rerun (any click) before every point was measured
    FAILED = "failed"


@dataclass(frozen=True)
class Variant:
    backend: str  # "eager" or "sdpa"
    chunk: int | None = None  # chunked prefill: this many prompt tokens per step

    def label(self, lang: str = "en") -> str:
        if self.chunk is None:
            return self.backend
        return t("mem_variant_chunk", lang, backend=self.backend, chunk=self.chunk)


def _parse_ints(text: str, what: str, lang: str) -> list[int]:
    parts = [p for p in text.replace("，", ",").replace(";", ",").replace(" ", ",").split(",") if p]
    try:
        values = [int(p.replace("_", "")) for p in parts]
    except ValueError:
        raise LabError(t("mem_err_not_ints", lang, what=what, text=text.strip())) from None
    if any(v <= 0 for v in values):
        raise LabError(t("mem_err_positive", lang, what=what))
    return sorted(set(values))


def parse_lengths(text: str, max_len: int, lang: str = "en") -> list[int]:
    """'64, 128, 2048' -> [64, 128, 2048]; ValueError (in the page's language) on anything else."""
    lengths = _parse_ints(text, t("mem_what_lengths", lang), lang)
    if not lengths:
        raise LabError(t("mem_err_no_lengths", lang))
    if len(lengths) > MAX_POINTS:
        raise LabError(t("mem_err_too_many", lang, n=len(lengths), max=MAX_POINTS))
    if lengths[-1] > max_len:
        raise LabError(t("mem_err_too_long", lang, L=lengths[-1], max=max_len))
    return lengths


def parse_timed(text: str, max_len: int, lang: str = "en") -> list[int]:
    """The lengths to time eager against sdpa at; an empty field times none."""
    lengths = _parse_ints(text, t("mem_what_timed", lang), lang)
    if len(lengths) > 4:
        raise LabError(t("mem_err_too_many_timed", lang, n=len(lengths)))
    if lengths and lengths[-1] > max_len:
        raise LabError(t("mem_err_too_long", lang, L=lengths[-1], max=max_len))
    return lengths


def parse_chunks(text: str, lang: str = "en") -> list[int]:
    """Chunk sizes for chunked prefill; an empty field means none."""
    chunks = _parse_ints(text, t("mem_what_chunks", lang), lang)
    if len(chunks) > 4:
        raise LabError(t("mem_err_too_many_chunks", lang, n=len(chunks)))
    return chunks


@dataclass(frozen=True)
class SweepPlan:
    lengths: list[int]
    backends: list[str]
    chunks: list[int]
    timed: list[int] = field(default_factory=list)  # lengths to time eager against sdpa at
    rounds: int = DEFAULT_ROUNDS  # timed rounds at each of them

    def __post_init__(self):
        if not self.backends:
            raise LabError(t("mem_err_no_backend"))

    @property
    def variants(self) -> list[Variant]:
        return [Variant(b, c) for c in [None, *self.chunks] for b in self.backends]

    def points(self) -> list[tuple[int, Variant]]:
        """Every (L, variant) to measure; a chunk as long as the prompt is the whole prompt: skipped."""
        return [(L, v) for L in self.lengths for v in self.variants if v.chunk is None or v.chunk < L]

    @property
    def num_items(self) -> int:
        """What the sweep measures in all: its memory points, then one timing per timed length."""
        return len(self.points()) + len(self.timed)


@dataclass(frozen=True)
class Timing:
    """One prompt length's prefill timed eager against sdpa, interleaved: each one's median (ms) and
    eager ÷ sdpa paired round by round (its interval, n, re-takes and the busiest load beside)."""

    L: int
    eager_ms: float
    sdpa_ms: float
    ratio: RatioInterval


@dataclass
class SweepResult:
    """What the page keeps in session state: plain numbers, no tensors."""

    plan: SweepPlan
    model_name: str
    dtype: str
    elem_bytes: int
    num_heads: int
    weight_bytes: int
    num_layers: int = 0
    labelled: bool = True  # the CPU tracker tags attention scores; CUDA's counters give totals only
    points: list[PrefillMemory] = field(default_factory=list)
    seconds: list[float] = field(default_factory=list)  # wall time of each point, then of each timing
    timings: list[Timing] = field(default_factory=list)
    status: SweepStatus = SweepStatus.RUNNING
    error: str | None = None

    def find(self, L: int, variant: Variant) -> PrefillMemory | None:
        return next(
            (p for p in self.points if p.prompt_len == L and p.backend == variant.backend and p.chunk == variant.chunk),
            None,
        )


def new_result(bundle, plan: SweepPlan) -> SweepResult:
    model, c = bundle.model, bundle.model.config
    return SweepResult(
        plan=plan,
        model_name=bundle.name,
        dtype=str(model.dtype).removeprefix("torch."),
        elem_bytes=torch.empty((), dtype=model.dtype).element_size(),
        num_heads=c.num_heads,
        weight_bytes=model.weight_bytes,
        num_layers=c.num_layers,
        labelled=str(model.device).startswith("cpu"),
    )


def run_sweep(bundle, result: SweepResult, lock: threading.Lock | None = None) -> Iterator[int]:
    """Measure each point in turn, appending to `result`, then time each timed length. Yields how many
    items are done: 0 before the first, then after each one (so the page can say what runs next, and
    what ran). The lock serialises with other sessions' engine steps (shared weights, two cores)."""
    yield 0
    for L, variant in result.plan.points():
        start = time.perf_counter()
        with lock or nullcontext():
            point = measure_prefill_memory(bundle.model, bundle.tokenizer, L, variant.backend, variant.chunk)
        result.points.append(point)
        result.seconds.append(time.perf_counter() - start)
        yield len(result.seconds)
    deadline = time.perf_counter() + RETAKE_BUDGET_S
    swept = set(result.plan.lengths) if {"eager", "sdpa"} <= set(result.plan.backends) else set()
    for L in result.plan.timed:
        start = time.perf_counter()
        rounds = time_prefills(
            bundle.model, bundle.tokenizer, L, result.plan.rounds, lock, deadline, warm=L not in swept
        )  # a length the sweep ran is warm already
        ratio = rounds.ratio("eager", "sdpa")
        result.timings.append(Timing(L, rounds.median("eager"), rounds.median("sdpa"), ratio))
        result.seconds.append(time.perf_counter() - start)
        yield len(result.seconds)
    result.status = SweepStatus.DONE


def point_work(L: int) -> float:
    """A point's cost in rough units for the time estimate: a fixed part, the prompt's rows, and the
    attention scores' L² (measured here: eager at L = 2048 took about 3× its time at 1024)."""
    return 128 + L + L * L / 1024


def timing_work(L: int, rounds: int) -> float:
    """A timed length's cost in point_work's units: `rounds` uninstrumented prefills each way (no probe's
    fixed part, and less of the L² for sdpa, which never writes the scores out)."""
    return rounds * 2 * (16 + L + L * L / 2048)


def seconds_left(result: SweepResult) -> float | None:
    """The rest of the sweep at the pace of the items measured after the first; None before that."""
    plan = result.plan
    work = [point_work(L) for L, _ in plan.points()] + [timing_work(L, plan.rounds) for L in plan.timed]
    return eta.seconds_left(work, len(result.seconds), sum(result.seconds[1:]))


# (eager's peak, sdpa's peak) -> why eager - sdpa is not the score matrix
WHERE_THE_PEAKS_ARE = {
    (MLP, MLP): "mem_why_mlp",  # the scores are smaller than the MLP's activations
    (ATTENTION, MLP): "mem_why_gap",  # the scores, less the MLP's extra activations
    (ATTENTION, ATTENTION): "mem_why_attention",
    (MLP, ATTENTION): "mem_why_swapped",
}


@dataclass(frozen=True)
class Comparison:
    """One prompt length measured both ways, whole prompt: the spike against its formula."""

    L: int
    eager_peak: int
    sdpa_peak: int
    formula: int  # heads x L x L x bytes: one layer's score matrix
    eager_scores: int  # bytes tagged as attention scores alive at eager's peak
    labelled: bool = True
    eager_site: str | None = None  # the forward block each peak happened in (lab/memory_lab.peak_site)
    sdpa_site: str | None = None

    @property
    def difference(self) -> int:
        return self.eager_peak - self.sdpa_peak

    @property
    def ratio(self) -> float:
        return self.difference / self.formula if self.formula else float("nan")

    @property
    def verdict(self) -> str:
        """An i18n key: why the two agree or differ at this L."""
        if not self.labelled:
            return "mem_why_agree" if abs(self.ratio - 1) <= AGREE_WITHIN else "mem_why_unlabelled"
        if self.eager_scores and abs(self.ratio - 1) <= AGREE_WITHIN:
            return "mem_why_agree"
        if self.eager_scores > self.formula:
            return "mem_why_half"
        return WHERE_THE_PEAKS_ARE.get((self.eager_site, self.sdpa_site), "mem_why_elsewhere")


def comparisons(result: SweepResult) -> list[Comparison]:
    rows = []
    for L in result.plan.lengths:
        eager, sdpa = result.find(L, Variant("eager")), result.find(L, Variant("sdpa"))
        if eager and sdpa:
            rows.append(
                Comparison(
                    L,
                    eager.peak_bytes,
                    sdpa.peak_bytes,
                    eager.formula_scores,
                    eager.scores_bytes,
                    result.labelled,
                    eager.site,
                    sdpa.site,
                )
            )
    return rows


@dataclass(frozen=True)
class Slope:
    """How one variant's prefill peak grew between the two longest prompts it measured: the exponent
    k of peak ∝ L^k (2 = quadratic, 1 = linear)."""

    variant: Variant
    L0: int
    L1: int
    exponent: float


def peak_slopes(result: SweepResult) -> list[Slope]:
    out = []
    for v in result.plan.variants:
        found = [result.find(L, v) for L in result.plan.lengths]
        pts = [(p.prompt_len, p.peak_bytes) for p in found if p and p.peak_bytes > 0]
        if len(pts) >= 2:
            (L0, b0), (L1, b1) = pts[-2], pts[-1]
            out.append(Slope(v, L0, L1, math.log(b1 / b0) / math.log(L1 / L0)))
    return out
