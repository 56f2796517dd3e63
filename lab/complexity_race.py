"""Generation with and without the KV cache raced step by step: two lanes (lab/interleaved.Lane) decode
the same prompt a step each in turn, the order alternating (lab/lane_rounds.py), so that the i-th
decode step with the cache and the i-th without it (the same position, the same token) run through the
same seconds of the machine. The per-step ratio (without ÷ with) is the median of those pairs with its
interval and n (lab/pairing.py); the work, FLOPs and tokens fed, is the engine's own count.

No round is re-taken here: the next step without the cache is at a longer context, so a busy round
cannot be measured again at the same one. The machine's load stands beside the ratio instead.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from engine import EngineConfig, SamplingParams
from engine.observe.trace import StepRecord
from lab.complexity import CacheRun
from lab.interleaved import Lane
from lab.lane_rounds import advance, finish, lane_rounds
from lab.pairing import RatioInterval, ratio_interval

BIN_STEPS = 12  # the per-step ratio chart's points: the median of this many paired steps, with its interval


@dataclass
class CacheRace:
    """Both lanes' decode steps (times measured, FLOPs counted), their contexts, and their pairing."""

    runs: dict[bool, CacheRun]
    contexts: list[int]  # the context after each decode step (the same in both lanes)
    tokens_fed: dict[bool, list[int]]  # tokens each decode step fed through the model, per lane
    ratio: RatioInterval  # without ÷ with, the median of the per-step ratios
    prefill_ms: float

    @property
    def tokens_recomputed(self) -> int:
        """Tokens the run without the cache fed again: every step's context but its one new token."""
        return sum(n - 1 for n in self.tokens_fed[False])

    def flops_ratio(self) -> float:
        """Without ÷ with, the median of the per-step ratios of counted FLOPs (exact)."""
        on, off = (list(np.add(self.runs[kv].flops_linear, self.runs[kv].flops_attention)) for kv in (True, False))
        return ratio_interval(off, on).median

    def binned(self, size: int = BIN_STEPS) -> list[tuple[int, int, RatioInterval]]:
        """(first context, last context, the ratio of their paired steps) for consecutive bins."""
        on, off = self.runs[True].step_ms, self.runs[False].step_ms
        out = []
        for a in range(0, len(on), size):
            b = min(len(on), a + size)
            if b - a >= 2:
                pairs = ratio_interval(off[a:b], on[a:b], 0, self.ratio.load)
                out.append((self.contexts[a], self.contexts[b - 1], pairs))
        return out


def _lane(model, tokenizer, kv_cache: bool, prompt_ids: list[int], max_new_tokens: int) -> Lane:
    longest = len(prompt_ids) + max_new_tokens + 1
    config = EngineConfig(kv_cache=kv_cache, probe_memory=False, kv_cache_bytes=0, max_model_len=longest)
    lane = Lane.of(model, tokenizer, config, "on" if kv_cache else "off")
    lane.engine.add_request(prompt_ids, SamplingParams(max_new_tokens=max_new_tokens, ignore_eos=True))
    return lane


def _run(kv: bool, kept: list[StepRecord], tokens: list[int]) -> CacheRun:
    return CacheRun(kv, tokens, [s.ms for s in kept], [s.flops_linear for s in kept], [s.flops_attention for s in kept])


def race_cache(
    model,
    tokenizer,
    prompt_ids: list[int],
    max_new_tokens: int,
    lock: threading.Lock | None = None,
    on_round: Callable[[int, int, dict[bool, list[float]]], None] | None = None,
) -> CacheRace:
    """Greedy generation of max_new_tokens with and without the cache, raced: the prefill, then
    max_new_tokens - 1 rounds of one decode step each. on_round(done, total, step ms so far by lane)
    after each round, off both lanes' clocks (a page redraws there)."""
    lanes = {kv: _lane(model, tokenizer, kv, prompt_ids, max_new_tokens) for kv in (True, False)}
    prefill = advance(lanes, 1, lock)
    so_far: dict[bool, list[float]] = {True: [], False: []}

    def kept(done: int, total: int) -> None:
        for kv, lane in lanes.items():
            so_far[kv].append(lane.steps[-1].ms)
        if on_round is not None:
            on_round(done, total, so_far)

    got = lane_rounds(lanes, max_new_tokens - 1, lock, max_retakes=0, on_round=kept)
    outputs = {kv: list(lane.engine.trace.requests[0].output_token_ids) for kv, lane in lanes.items()}
    finish(lanes)
    kept = got.kept
    return CacheRace(
        {kv: _run(kv, kept[kv], outputs.get(kv, [])) for kv in (True, False)},
        [s.seqs[0].context_len for s in kept[True]],
        {kv: [s.num_tokens for s in kept[kv]] for kv in (True, False)},
        got.ratio(False, True),
        prefill[True][0].ms,
    )
