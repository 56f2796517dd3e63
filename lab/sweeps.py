"""Sweeps (C4, C8, C9, C18): the same request at several prompt lengths and several output lengths,
in rounds, timed by the engine itself (its token timestamps and step records).

  prompt sweep   L in prompt_lens, N = prompt_new_tokens new tokens: TTFT, TPOT, prefill step time
  output sweep   L = output_prompt_len, N in output_lens: TPOT, decode share = (E2E - TTFT) / E2E,
                 and each decode step's time against the context it attends to
Metrics as engine/observe/request_metrics.py defines them (vLLM's): TTFT = first token - arrival,
TPOT = (E2E - TTFT) / (N - 1), ITL = gaps between tokens.

Each round runs every point once, in lab.pairing.round_order (the order rotates and reverses from one
round to the next), so a slow spell of the machine falls on every point of a round alike: a comparison
of two points (TTFT at the longest prompt over TTFT at the shortest) pairs them round by round and is
the median of those paired ratios with its interval (lab/sweep_verdicts.py). A round measured while
other processes kept the machine busy is measured again, within a budget and a deadline, and the
result says how many were.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from engine.core.llm_engine import Engine, EngineConfig
from engine.errors import LabError
from engine.sampling_params import SamplingParams
from lab import eta
from lab.busy import LoadMeter, MachineLoad, busiest
from lab.pairing import interleave, round_order
from lab.verdicts import Spread
from lab.workload import text_tokens

MAX_REPEATS = 15
MIN_JUDGED_ROUNDS = 5  # fewer paired rounds leave every interval too wide to judge by (lab/pairing.py)


@dataclass(frozen=True)
class SweepSettings:
    prompt_lens: tuple[int, ...] = (16, 32, 64, 128, 256, 512, 1024)
    prompt_new_tokens: int = 16
    output_prompt_len: int = 64
    output_lens: tuple[int, ...] = (4, 16, 64, 256)
    repeats: int = MIN_JUDGED_ROUNDS  # rounds: every point once per round

    def validate(self, max_position: int) -> None:
        """ValueError with a readable message for settings the model cannot run."""
        if not 1 <= self.repeats <= MAX_REPEATS:
            raise LabError(f"Repeats must be between 1 and {MAX_REPEATS}, got {self.repeats}.")
        if len(set(self.prompt_lens)) < 2 or len(set(self.output_lens)) < 2:
            raise LabError("Each sweep needs at least two different lengths to draw a trend.")
        if min(self.prompt_lens) < 1 or self.output_prompt_len < 1:
            raise LabError("Prompt lengths must be at least 1 token.")
        if self.prompt_new_tokens < 2 or min(self.output_lens) < 2:
            raise LabError("Output lengths must be at least 2 tokens: TPOT needs a second token.")
        longest = max(max(self.prompt_lens) + self.prompt_new_tokens, self.output_prompt_len + max(self.output_lens))
        if longest > max_position:
            raise LabError(
                f"The longest request needs {longest} tokens of context; this model holds "
                f"{max_position}. Use shorter lengths."
            )

    @property
    def points(self) -> list[tuple[str, int, int]]:
        """Every point of one round, before round_order: ("prompt" or "output", prompt length, new tokens)."""
        return [("prompt", L, self.prompt_new_tokens) for L in self.prompt_lens] + [
            ("output", self.output_prompt_len, N) for N in self.output_lens
        ]

    @property
    def num_runs(self) -> int:
        return self.repeats * len(self.points)


@dataclass
class SweepPoint:
    """One measured request."""

    prompt_len: int
    max_new_tokens: int
    repeat: int  # the round it was measured in (rounds measured again keep their number)
    ttft_ms: float
    tpot_ms: float
    e2e_ms: float
    prefill_ms: float  # the prefill step's own wall time (schedule + forward + sample)
    itl_ms: list[float]
    decode_steps: list[tuple[int, float]]  # (context attended, ms) per decode step
    # the engine's counts of the same steps (engine/observe/costmodel.py): the work behind the times
    prefill_flops: float = 0.0
    prefill_bytes: float = 0.0
    decode_flops: list[float] = field(default_factory=list)
    decode_bytes: list[float] = field(default_factory=list)

    @property
    def decode_share(self) -> float:
        """Share of the request's time after the first token: the decode phase (C9)."""
        return (self.e2e_ms - self.ttft_ms) / self.e2e_ms if self.e2e_ms else 0.0


@dataclass
class SweepResult:
    model: str
    settings: SweepSettings
    prompt_points: list[SweepPoint] = field(default_factory=list)
    output_points: list[SweepPoint] = field(default_factory=list)
    complete: bool = False  # False while running, and after Stop: the points are what was measured
    seconds: float = 0.0
    load: MachineLoad | None = None  # the busiest round's reading of other work (lab/busy.py)
    retaken: int = 0  # rounds measured again because other work took the machine meanwhile

    @property
    def rounds(self) -> int:
        """Rounds whose every point is measured."""
        per = len(self.settings.points)
        return (len(self.prompt_points) + len(self.output_points)) // per if per else 0

    def by_prompt(self, attr: str) -> dict[int, Spread]:
        return _group(self.prompt_points, "prompt_len", attr)

    def by_output(self, attr: str) -> dict[int, Spread]:
        return _group(self.output_points, "max_new_tokens", attr)

    def per_round(self, kind: str, length: int, attr: str) -> dict[int, float]:
        """One point's value round by round: {round: value} of the prompt sweep's point at prompt length
        `length` (kind "prompt") or the output sweep's at output length `length` (kind "output")."""
        points, key = (self.prompt_points, "prompt_len") if kind == "prompt" else (self.output_points, "max_new_tokens")
        return {p.repeat: getattr(p, attr) for p in points if getattr(p, key) == length}

    def decode_step_spread(self, bins: int = 12) -> dict[int, Spread]:
        """Decode step time against context, from every output-sweep request, in `bins` context bins
        (keyed by the bin's middle context)."""
        pairs = [p for pt in self.output_points for p in pt.decode_steps]
        if not pairs:
            return {}
        lo, hi = min(c for c, _ in pairs), max(c for c, _ in pairs)
        width = max(1, -(-(hi - lo + 1) // bins))
        groups: dict[int, list[float]] = {}
        for c, ms in pairs:
            k = (c - lo) // width
            groups.setdefault(lo + k * width + width // 2, []).append(ms)
        return {k: Spread.of(v) for k, v in sorted(groups.items())}


def _group(points: list[SweepPoint], key: str, attr: str) -> dict[int, Spread]:
    groups: dict[int, list[float]] = {}
    for p in points:
        groups.setdefault(getattr(p, key), []).append(getattr(p, attr))
    return {k: Spread.of(v) for k, v in sorted(groups.items())}


def measure_request(
    model,
    tokenizer,
    prompt_len: int,
    max_new_tokens: int,
    repeat: int = 0,
    on_step: Callable[[float], None] | None = None,
) -> SweepPoint:
    """One greedy request of exactly prompt_len real-text tokens and max_new_tokens outputs; on_step(how
    far the request is) after each of its steps (a long request on a slow machine takes a while)."""
    ids = text_tokens(tokenizer, prompt_len)
    if len(ids) < prompt_len:
        raise LabError(f"Could not build a prompt of {prompt_len} tokens from the sample text.")
    engine = Engine(model, tokenizer, EngineConfig(probe_memory=False))
    engine.add_request(ids, SamplingParams(max_new_tokens=max_new_tokens, ignore_eos=True))
    for i, _ in enumerate(engine.stream()):
        if on_step:
            on_step(min(1.0, (i + 1) / max_new_tokens))
    m = engine.trace.requests[0].metrics
    prefill = [s for s in engine.trace.steps if s.phase == "prefill"]
    decode = [s for s in engine.trace.steps if s.phase == "decode"]
    return SweepPoint(
        prompt_len,
        max_new_tokens,
        repeat,
        m.ttft_ms,
        m.tpot_ms or 0.0,
        m.e2e_ms,
        sum(s.ms for s in prefill),
        m.itl_ms,
        [(s.seqs[0].context_len, s.ms) for s in decode],
        sum(s.flops for s in prefill),
        sum(s.bytes_moved for s in prefill),
        [s.flops for s in decode],
        [s.bytes_moved for s in decode],
    )


PREFILL_TOKENS_PER_DECODE_STEP = 20  # about what a prompt token costs beside a decode step, on CPU


def request_work(prompt_len: int, new_tokens: int) -> float:
    """A request's work in decode steps: its decode steps plus its prompt at PREFILL_TOKENS_PER_DECODE_STEP
    prompt tokens a step."""
    return new_tokens + prompt_len / PREFILL_TOKENS_PER_DECODE_STEP


def sweep_plan(settings: SweepSettings) -> list[tuple[int, str, int, int]]:
    """The requests in the order they run: (round, "prompt" or "output", prompt length, new tokens)."""
    points = settings.points
    return [(r, *points[i]) for r in range(settings.repeats) for i in round_order(range(len(points)), r)]


def sweep_work(settings: SweepSettings) -> float:
    """The whole sweep's work in decode steps, its warm-up included."""
    warm = sum(request_work(L, 2) for L in set(settings.prompt_lens) | {settings.output_prompt_len})
    return warm + sum(request_work(L, n) for _, _, L, n in sweep_plan(settings))


def seconds_left(plan: list[tuple[int, str, int, int]], done: int, since_first_s: float) -> float | None:
    """The time the rest of the plan should take, at the pace of the requests measured after the first
    (`since_first_s` since the first finished). None until a pace is known."""
    return eta.seconds_left([request_work(L, n) for _, _, L, n in plan], done, since_first_s)


Progress = Callable[[int, int, str, SweepPoint | None], None]


class _Rounds:
    """run_sweep's bookkeeping: each point's run as an arm of lab.pairing.interleave, the points of a
    round kept only once the round is (a round measured again replaces them), and the count of
    requests done and planned for the progress line."""

    def __init__(self, model, tokenizer, result: SweepResult, progress, on_round, should_stop, on_step) -> None:
        self.model, self.tokenizer, self.result = model, tokenizer, result
        self.progress, self.on_round, self.should_stop, self.on_step = progress, on_round, should_stop, on_step
        self.pending: dict[tuple[str, int, int], SweepPoint] = {}
        self.meters: list[LoadMeter] = []  # one per round measured, those measured again included
        self.done, self.total = 0, result.settings.num_runs

    def arm(self, kind: str, L: int, N: int) -> Callable[[], float]:
        def run() -> float:
            if self.should_stop and self.should_stop():
                raise _Stopped
            step = (lambda f: self.on_step(L, N, f)) if self.on_step else None
            point = measure_request(self.model, self.tokenizer, L, N, self.result.rounds, step)
            self.pending[(kind, L, N)] = point
            self.done += 1
            if self.progress:
                what = f"{kind} sweep: L = {L}, N = {N}, round {self.result.rounds + 1}"
                self.progress(self.done, self.total, what, point)
            return point.ttft_ms

        return run

    def meter(self) -> LoadMeter:
        """A round begins: what is left to measure, a round measured again included."""
        s = self.result.settings
        self.total = self.done + (s.repeats - self.result.rounds) * len(s.points)
        self.meters.append(LoadMeter())
        return self.meters[-1]

    def kept(self, _done: int, _total: int) -> None:
        r = self.result
        for kind, L, N in r.settings.points:
            (r.prompt_points if kind == "prompt" else r.output_points).append(self.pending[(kind, L, N)])
        r.load = busiest([r.load, self.meters[-1].load])
        r.retaken = len(self.meters) - r.rounds
        if self.on_round:
            self.on_round(r)


def run_sweep(
    model,
    tokenizer,
    settings: SweepSettings,
    name: str = "model",
    progress: Progress | None = None,
    result: SweepResult | None = None,
    deadline: float | None = None,
    on_round: Callable[[SweepResult], None] | None = None,
    should_stop: Callable[[], bool] | None = None,
    on_step: Callable[[int, int, float], None] | None = None,
) -> SweepResult:
    """Both sweeps in rounds; progress(done, total, what, point) after each request (done = 0: warming
    up; a round measured again adds its requests to the total). Points go into `result` a round at a
    time, as each round is kept (the page keeps it, so a run stopped between rounds leaves them
    behind), then on_round(result). `deadline` (a time.perf_counter() value): no busy round is measured
    again past it. should_stop() before each request ends the sweep there, complete=False. on_step(L, N,
    how far) within each request, after each of its steps."""
    settings.validate(model.config.max_position)
    result = result or SweepResult(name, settings)
    start = time.perf_counter()
    if progress:
        progress(0, settings.num_runs, "warm-up", None)
    # Warm-up: the first forward of a new shape pays one-off costs (oneDNN primitives, allocator growth)
    for L in sorted(set(settings.prompt_lens) | {settings.output_prompt_len}):
        measure_request(model, tokenizer, L, 2)
    rounds = _Rounds(model, tokenizer, result, progress, on_round, should_stop, on_step)
    arms = {point: rounds.arm(*point) for point in settings.points}
    try:
        interleave(arms, settings.repeats, deadline=deadline, on_round=rounds.kept, meter=rounds.meter)
    except _Stopped:
        return result
    result.complete, result.seconds = True, time.perf_counter() - start
    return result


class _Stopped(Exception):
    """should_stop() said so: the sweep ends between two requests."""
