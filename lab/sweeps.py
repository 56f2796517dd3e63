"""Sweeps (C4, C8, C9, C18): the same request at several prompt lengths and several output lengths,
repeated, timed by the engine itself (its token timestamps and step records).

  prompt sweep   L in prompt_lens, N = prompt_new_tokens new tokens: TTFT, TPOT, prefill step time
  output sweep   L = output_prompt_len, N in output_lens: TPOT, decode share = (E2E - TTFT) / E2E,
                 and each decode step's time against the context it attends to
Metrics as engine/observe/request_metrics.py defines them (vLLM's): TTFT = first token - arrival,
TPOT = (E2E - TTFT) / (N - 1), ITL = gaps between tokens.
Repeats go round the whole sweep (repeat 1 of every point, then repeat 2, ...) so a slow spell of
the machine spreads over all points instead of bending one end of a curve.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from engine.core.llm_engine import Engine, EngineConfig
from engine.errors import LabError
from engine.sampling_params import SamplingParams
from lab import eta
from lab.busy import MachineLoad
from lab.verdicts import Spread
from lab.workload import text_tokens

MAX_REPEATS = 10


@dataclass(frozen=True)
class SweepSettings:
    prompt_lens: tuple[int, ...] = (16, 32, 64, 128, 256, 512, 1024)
    prompt_new_tokens: int = 16
    output_prompt_len: int = 64
    output_lens: tuple[int, ...] = (4, 16, 64, 256)
    repeats: int = 3

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
    def num_runs(self) -> int:
        return self.repeats * (len(self.prompt_lens) + len(self.output_lens))


@dataclass
class SweepPoint:
    """One measured request."""

    prompt_len: int
    max_new_tokens: int
    repeat: int
    ttft_ms: float
    tpot_ms: float
    e2e_ms: float
    prefill_ms: float  # the prefill step's own wall time (schedule + forward + sample)
    itl_ms: list[float]
    decode_steps: list[tuple[int, float]]  # (context attended, ms) per decode step

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
    load: MachineLoad | None = None  # other processes' CPU use while the sweep was timed (lab/busy.py)

    def by_prompt(self, attr: str) -> dict[int, Spread]:
        return _group(self.prompt_points, "prompt_len", attr)

    def by_output(self, attr: str) -> dict[int, Spread]:
        return _group(self.output_points, "max_new_tokens", attr)

    def noisy_points(self, ratio: float = 2.0) -> int:
        """Points whose slowest repeat took more than `ratio` x the fastest (TTFT or TPOT): a busy
        machine, not the model; the page then says the timing verdicts may reflect load."""
        spreads = [
            s for a in ("ttft_ms", "tpot_ms") for s in (*self.by_prompt(a).values(), *self.by_output(a).values())
        ]
        return sum(s.hi > ratio * s.lo for s in spreads if s.lo > 0)

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


def measure_request(model, tokenizer, prompt_len: int, max_new_tokens: int, repeat: int = 0) -> SweepPoint:
    """One greedy request of exactly prompt_len real-text tokens and max_new_tokens outputs."""
    ids = text_tokens(tokenizer, prompt_len)
    if len(ids) < prompt_len:
        raise LabError(f"Could not build a prompt of {prompt_len} tokens from the sample text.")
    engine = Engine(model, tokenizer, EngineConfig(probe_memory=False))
    engine.add_request(ids, SamplingParams(max_new_tokens=max_new_tokens, ignore_eos=True))
    for _ in engine.stream():
        pass
    m = engine.trace.requests[0].metrics
    steps = engine.trace.steps
    prefill_ms = sum(s.ms for s in steps if s.phase == "prefill")
    decode = [(s.seqs[0].context_len, s.ms) for s in steps if s.phase == "decode"]
    return SweepPoint(
        prompt_len, max_new_tokens, repeat, m.ttft_ms, m.tpot_ms or 0.0, m.e2e_ms, prefill_ms, m.itl_ms, decode
    )


PREFILL_TOKENS_PER_DECODE_STEP = 20  # about what a prompt token costs beside a decode step, on CPU


def sweep_plan(settings: SweepSettings) -> list[tuple[int, str, int, int]]:
    """The requests in the order they run: (repeat, "prompt" or "output", prompt length, new tokens)."""
    return [
        item
        for r in range(settings.repeats)
        for item in [(r, "prompt", L, settings.prompt_new_tokens) for L in settings.prompt_lens]
        + [(r, "output", settings.output_prompt_len, N) for N in settings.output_lens]
    ]


def seconds_left(plan: list[tuple[int, str, int, int]], done: int, since_first_s: float) -> float | None:
    """The time the rest of the plan should take, at the pace of the requests measured after the first
    (`since_first_s` since the first finished); a request's work is its decode steps plus its prompt
    at PREFILL_TOKENS_PER_DECODE_STEP prompt tokens a step. None until a pace is known."""
    return eta.seconds_left([n + L / PREFILL_TOKENS_PER_DECODE_STEP for _, _, L, n in plan], done, since_first_s)


def run_sweep(
    model,
    tokenizer,
    settings: SweepSettings,
    name: str = "model",
    progress: Callable[[int, int, str], None] | None = None,
    should_stop: Callable[[], bool] | None = None,
    result: SweepResult | None = None,
) -> SweepResult:
    """Both sweeps, repeated; progress(done, total, what) after each request (done = 0: warming up).
    should_stop() ends the sweep early: the result keeps what was measured, complete=False. Points go
    into `result` as they are measured (the page keeps it, so an interrupted run leaves them behind)."""
    settings.validate(model.config.max_position)
    result = result or SweepResult(name, settings)
    start = time.perf_counter()
    if progress:
        progress(0, settings.num_runs, "warm-up")
    # Warm-up: the first forward of a new shape pays one-off costs (oneDNN primitives, allocator growth)
    for L in sorted(set(settings.prompt_lens) | {settings.output_prompt_len}):
        measure_request(model, tokenizer, L, 2)
    plan = sweep_plan(settings)
    for done, (r, kind, L, N) in enumerate(plan):
        if should_stop and should_stop():
            return result
        point = measure_request(model, tokenizer, L, N, r)
        (result.prompt_points if kind == "prompt" else result.output_points).append(point)
        if progress:
            progress(done + 1, len(plan), f"{kind} sweep: L = {L}, N = {N}, repeat {r + 1}")
    result.complete, result.seconds = True, time.perf_counter() - start
    return result
