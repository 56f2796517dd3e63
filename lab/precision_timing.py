"""A weight format or KV cache dtype timed against float32 on a machine that is never quiet: both
loaded, each measured beside the other in the same seconds, so both see the same load.

    decode   each in its own lane (lab/interleaved.Lane), decoding the same prompt, a step each in
             turn (lab/lane_rounds): the i-th decode steps pair, and the answer is the median of the
             paired ratios (format ÷ float32) with its interval and n (lab/pairing)
    prefill  runs of one prompt of PREFILL_LEN tokens, format and float32 interleaved (A B, B A, ...),
             each unit the faster of two back-to-back runs

Beside other work (LOOK_S idle or the warm-up steps metered busy) the rounds run on the cores it leaves free
(lab/busy.free_threads): threads that share a core with another process wait on it, and each format's
kernels lose a different share of their speed to that, which the ratio would measure instead.

A slow format gets fewer rounds (its decode within DECODE_BUDGET_S, never below MIN_ROUNDS): a
bfloat16 step on a CPU without a fast bfloat16 kernel costs ten float32 steps. The float32 row
itself is timed alone (`time_reference`): its ratio to itself is 1 by definition.
"""

from __future__ import annotations

import statistics
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

import torch

from engine import EngineConfig, SamplingParams
from lab.busy import LoadMeter, busiest, free_threads
from lab.interleaved import Lane
from lab.lane_rounds import advance, finish, lane_rounds, step
from lab.pairing import RatioInterval, Rounds, interleave
from lab.workload import text_tokens

PREFILL_LEN = 64
DECODE_ROUNDS = 16  # paired decode steps per configuration, at 1 repeat
PREFILL_ROUNDS = 6  # paired prefills per configuration, at 1 repeat
PREFILL_REPEATS = 2  # a prefill unit is the faster of this many back-to-back runs
MIN_ROUNDS = 5  # the fewest pairs an interval can judge by (lab/pairing.MIN_COVERAGE)
DECODE_BUDGET_S = 3.0  # per configuration and repeat: a slow format's decode rounds stop here
PREFILL_BUDGET_S = 3.0
WARM_STEPS = 3  # untimed: the prefill and the first decode steps (a new shape pays one-off costs)
REFERENCE_STEPS = 24  # float32's own row: decode steps timed alone
LOOK_S = 0.2  # the machine watched idle before a configuration's warm-up: is other work on it?
SAMPLE_TOKENS = 16  # each row's greedy continuation shown side by side (a slow format is taken on untimed)


@dataclass(frozen=True)
class TimingPlan:
    """How many pairs each configuration gets at most, and how long a slow one may take."""

    decode_rounds: int = DECODE_ROUNDS
    prefill_rounds: int = PREFILL_ROUNDS
    decode_budget_s: float = DECODE_BUDGET_S
    prefill_budget_s: float = PREFILL_BUDGET_S
    prefill_len: int = PREFILL_LEN

    @classmethod
    def repeated(cls, repeats: int, prefill_len: int = PREFILL_LEN) -> TimingPlan:
        """`repeats` times the pairs and the time: narrower intervals for the patient."""
        r = max(1, int(repeats))
        return cls(DECODE_ROUNDS * r, PREFILL_ROUNDS * r, DECODE_BUDGET_S * r, PREFILL_BUDGET_S * r, prefill_len)

    @property
    def room(self) -> int:
        """New tokens a lane needs: warm-up (and a step on the threads chosen), the rounds, their re-takes."""
        return WARM_STEPS + 1 + self.decode_rounds + self.decode_rounds // 4 + 2


@dataclass
class Timing:
    """One configuration's times: its own medians, and its ratios to float32 measured beside it."""

    tpot_ms: float  # median of its timed decode steps
    prefill_ms: float  # median of its timed prefills of PREFILL_LEN tokens
    context: float  # mean context of its timed decode steps
    tokens: list[int] = field(default_factory=list)  # its greedy continuation of the prompt
    decode: RatioInterval | None = None  # ÷ float32, decode step by decode step; None: float32 itself
    prefill: RatioInterval | None = None
    ref_tpot_ms: float | None = None  # float32's in the same rounds
    ref_prefill_ms: float | None = None
    threads: int = 1  # the threads its rounds ran on: fewer than of_threads beside other work
    of_threads: int = 1  # the threads a timing takes on this machine when it is quiet

    @property
    def retaken(self) -> int:
        return sum(r.retaken for r in (self.decode, self.prefill) if r is not None)


def _lane(bundle, kv_dtype: str, prompt: list[int], room: int, plan: TimingPlan, name: str) -> Lane:
    """A lane with just the KV room its rounds need (an engine's default pool is 1 GiB)."""
    longest = max(len(prompt) + room, plan.prefill_len + 1) + 1
    config = EngineConfig(probe_memory=False, kv_dtype=kv_dtype, kv_cache_bytes=0, max_model_len=longest)
    lane = Lane.of(bundle.model, bundle.tokenizer, config, name)
    lane.engine.add_request(prompt, SamplingParams(max_new_tokens=room, ignore_eos=True))
    return lane


def _warm_up(lanes: dict[str, Lane], lock) -> int:
    """The lanes' untimed first steps, and the threads their rounds may take: the machine watched idle
    for LOOK_S (what other work takes with none of ours running: the clearest reading), then through
    the warm-up (lab/busy.free_threads)."""
    with LoadMeter() as idle:
        time.sleep(LOOK_S)
    with LoadMeter() as warming:
        advance(lanes, WARM_STEPS, lock)
    return free_threads(busiest([idle.load, warming.load]), torch.get_num_threads())


@contextmanager
def _on_threads(n: int) -> Iterator[None]:
    """torch's (and so the C kernels') thread count set to n for the block, then put back. It is the
    process's: a page's untimed work meanwhile shares the same threads (timed runs take turns)."""
    before = torch.get_num_threads()
    torch.set_num_threads(n)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def _rounds(budget_s: float, pair_ms: float, most: int) -> int:
    return max(MIN_ROUNDS, min(most, int(budget_s * 1e3 / max(pair_ms, 1e-3))))


def _prefill_arm(lane: Lane, ids: list[int], lock) -> Callable[[], float]:
    """One prefill unit: the faster of PREFILL_REPEATS back-to-back prefills. Other work can only add
    time to a run, so the faster of two is the closer to the code's own (a decode step cannot be run
    twice: it moves its sequence on)."""

    def once() -> float:
        lane.engine.add_request(ids, SamplingParams(max_new_tokens=1, ignore_eos=True))
        return step(lane, lock).ms  # one token: the request ends with its prefill

    return lambda: min(once() for _ in range(PREFILL_REPEATS))


def _prefills(lanes: dict[str, Lane], ids: list[int], plan: TimingPlan, lock) -> Rounds:
    """The prefill rounds, after one untimed pair (the new shape's one-off costs)."""
    arms = {name: _prefill_arm(lane, ids, lock) for name, lane in lanes.items()}
    started = time.perf_counter()
    for arm in arms.values():
        arm()
    pair_ms = (time.perf_counter() - started) * 1e3  # what a round costs, every repeat included
    rounds = _rounds(plan.prefill_budget_s, pair_ms, plan.prefill_rounds)
    return interleave(arms, rounds, rounds // 4, time.perf_counter() + 2 * plan.prefill_budget_s)


def time_reference(ref, prompt: list[int], plan: TimingPlan, lock: threading.Lock | None = None) -> Timing:
    """float32 alone: REFERENCE_STEPS decode steps and a few prefills (the first row, in a second)."""
    lane = _lane(ref, "auto", prompt, WARM_STEPS + REFERENCE_STEPS, plan, "float32")
    threads = _warm_up({"float32": lane}, lock)
    with _on_threads(threads):
        records = advance({"float32": lane}, REFERENCE_STEPS, lock)["float32"]
        timed = [r for r in records if r.phase == "decode"]
        tokens = _output(lane)
        arm = _prefill_arm(lane, text_tokens(ref.tokenizer, plan.prefill_len), lock)
        arm()  # untimed: the prefill shape's first call
        prefills = [arm() for _ in range(3)]
    return Timing(
        statistics.median(r.ms for r in timed),
        statistics.median(prefills),
        statistics.fmean(r.seqs[0].context_len for r in timed),
        tokens,
        threads=threads,
        of_threads=torch.get_num_threads(),
    )


def _output(lane: Lane) -> list[int]:
    """The lane's continuation so far (its request running or finished)."""
    running = lane.engine.scheduler.running
    if running:
        return list(running[0].output_token_ids)
    requests = lane.engine.trace.requests
    return list(requests[0].output_token_ids) if requests else []


def time_against(
    ref,
    bundle,
    kv_dtype: str,
    prompt: list[int],
    plan: TimingPlan,
    lock: threading.Lock | None = None,
    on_round: Callable[[float], None] | None = None,
    sample_tokens: int = 0,
) -> Timing:
    """This configuration (bundle, kv_dtype) beside float32 (ref): decode rounds, then prefill rounds.
    on_round(fraction of the decode rounds done) after each kept round; sample_tokens: the format's
    continuation is taken on (untimed) to at least this many tokens."""
    room = max(plan.room, sample_tokens)
    lanes = {
        "float32": _lane(ref, "auto", prompt, room, plan, "float32"),
        "format": _lane(bundle, kv_dtype, prompt, room, plan, "format"),
    }
    threads = _warm_up(lanes, lock)
    with _on_threads(threads):
        warm = advance(lanes, 1, lock)  # a step on these threads: what a round costs
        rounds = _rounds(plan.decode_budget_s, sum(w[-1].ms for w in warm.values()), plan.decode_rounds)
        deadline = time.perf_counter() + 2 * plan.decode_budget_s

        def kept(done: int, total: int) -> None:
            if on_round is not None:
                on_round(done / total)

        got = lane_rounds(lanes, rounds, lock, rounds // 4, deadline, kept)
        finish({"float32": lanes["float32"]})
        while len(_output(lanes["format"])) < sample_tokens and lanes["format"].engine.has_unfinished:
            step(lanes["format"], lock)
        tokens = _output(lanes["format"])
        finish(lanes)
        prefills = _prefills(lanes, text_tokens(ref.tokenizer, plan.prefill_len), plan, lock)
    return Timing(
        statistics.median(got.ms("format")),
        statistics.median(prefills.values["format"]),
        statistics.fmean(r.seqs[0].context_len for r in got.kept["format"]),
        tokens,
        got.ratio("format", "float32"),
        prefills.ratio("format", "float32"),
        statistics.median(got.ms("float32")),
        statistics.median(prefills.values["float32"]),
        threads,
        torch.get_num_threads(),
    )
