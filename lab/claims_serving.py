"""Checks of the serving claims (C17, C21, C22, C24) on the head-of-line workload: a few chats decoding
when one long prompt arrives, its prefill whole in one lane and in chunks in the other, raced step by
step (lab/claims_lanes.py). The verdicts rest on the engine's counts: the tokens a step processed, the
steps the long prompt took, the bytes read. The times stand beside them, each lane's on its own clock:
the blocking step against the chats' typical steps as an interval over those steps; the long prompt's
TTFT and the chats' worst gap, one event in each lane, as the single measurements they are (the chats
share their steps, so their gaps are one measurement, not one per chat)."""

from __future__ import annotations

import statistics

import numpy as np

from engine.observe.trace import StepRecord, Trace
from lab.pairing import RatioInterval
from lab.verdicts import FAILS, HOLDS, ROUGHLY, Verdict, named, reason, value_interval

LONG = "long prompt"


def c17_check(trace: Trace, max_model_len: int) -> Verdict:
    """Concurrent requests each own a KV cache of a different, changing length: the most distinct
    lengths in one step, and what paged blocks waste against reserving max_model_len per request."""
    distinct, changed, paged, contiguous = 0, 0, [], []
    prev: dict[int, int] = {}
    for s in trace.steps:
        lens = {q.seq_id: q.context_len for q in s.seqs}
        distinct = max(distinct, len(set(lens.values())))
        changed += sum(prev.get(k, v) != v for k, v in lens.items())
        prev |= lens
        if len(s.block_tables) >= 2:
            reserved = len(s.block_tables) * max_model_len
            paged.append(s.kv_wasted_slots / max(1, s.kv_tokens + s.kv_wasted_slots))
            contiguous.append(1 - s.kv_tokens / reserved)
    nums = dict(
        distinct=distinct,
        changed=changed,
        paged=100 * float(np.mean(paged)) if paged else 0.0,
        contiguous=100 * float(np.mean(contiguous)) if contiguous else 0.0,
    )
    if distinct >= 2 and changed and nums["contiguous"] > nums["paged"]:
        return Verdict("C17", HOLDS, "why_c17_holds", nums)
    if distinct >= 2:
        return Verdict("C17", ROUGHLY, "why_c17_roughly", nums)
    return Verdict("C17", FAILS, "why_c17_fails", nums)


def _chat_ids(labels: dict[int, str]) -> set[int]:
    return {k for k, v in labels.items() if v != LONG}


def chat_steps(trace: Trace, labels: dict[int, str]) -> list[StepRecord]:
    """The steps in which a chat decoded: the steps whose length its gaps between tokens were."""
    chats = _chat_ids(labels)
    return [s for s in trace.steps if any(q.seq_id in chats and q.phase == "decode" for q in s.seqs)]


def blocking_tokens(trace: Trace, labels: dict[int, str]) -> tuple[int, int]:
    """(the most tokens one step processed while the chats decoded, the median of those steps' tokens)."""
    tokens = [s.num_tokens for s in chat_steps(trace, labels)]
    return max(tokens, default=0), int(statistics.median(tokens)) if tokens else 0


def chat_gaps(trace: Trace, labels: dict[int, str]) -> dict[int, list[float]]:
    """Each chat's gaps between tokens (ms, on its lane's own clock)."""
    return {r.seq_id: r.metrics.itl_ms for r in trace.requests if labels.get(r.seq_id, LONG) != LONG}


def long_prompt_steps(trace: Trace, labels: dict[int, str]) -> int:
    """The steps that ran the long prompt's prefill: how many steps it waited for its first token."""
    long = next(k for k, v in labels.items() if v == LONG)
    return sum(any(q.seq_id == long and q.phase == "prefill" for q in s.seqs) for s in trace.steps)


def long_ttft_ms(trace: Trace, labels: dict[int, str]) -> float:
    long = next(k for k, v in labels.items() if v == LONG)
    return next(r.metrics.ttft_ms for r in trace.requests if r.seq_id == long)


def blocked_ratio(trace: Trace, labels: dict[int, str], load=None) -> RatioInterval:
    """The blocking step's time (the chat step that processed the most tokens) over each of the chats'
    other steps, as an interval over those steps."""
    steps = chat_steps(trace, labels)
    block = max(steps, key=lambda s: s.num_tokens)
    return value_interval([block.ms / s.ms for s in steps if s is not block and s.ms > 0], load)


def worst_gap_ms(trace: Trace, labels: dict[int, str]) -> tuple[float, int]:
    """The chats' longest gap between tokens (their P99 under 100 gaps), and how many gaps there were."""
    gaps = [g for gs in chat_gaps(trace, labels).values() for g in gs]
    return max(gaps, default=0.0), len(gaps)


def c21_check(tokens: int, typical: int, long_prompt: int, blocked: RatioInterval, prefill_ms: float) -> Verdict:
    """One long prefill blocks everyone else's decode, by the count: the most tokens a step processed
    while the chats decoded (the whole long prompt?) against their typical step's tokens. Beside it,
    timed: that step over the chats' other steps."""
    nums = dict(tokens=tokens, typical=typical, L=long_prompt, prefill=prefill_ms) | named(blocked, "ratio")
    word = HOLDS if tokens >= long_prompt and tokens >= 3 * typical else ROUGHLY if tokens >= 1.5 * typical else FAILS
    return Verdict("C21", word, reason("C21", word), nums, blocked, blocked.load)


def c22_check(
    most: tuple[int, int],
    mixed_steps: int,
    bytes_ratio: float,
    worst_ms: tuple[float, float],
    gaps: int,
    time_ratio: float,
    load=None,
) -> Verdict:
    """Chunked prefill interleaves (mixed steps) and no step the chats wait on holds the whole prompt
    (most: the most tokens in one chat step, whole and chunked: counted), at little cost in throughput
    (bytes_ratio: the bytes both lanes read, chunked ÷ whole: each chunk reads the weights again). Beside
    it, timed: the chats' worst gap whole and chunked (one event each: of `gaps` gaps) and the lanes'
    time ratio on their own clocks."""
    nums = dict(most_a=most[0], most_b=most[1], mixed=mixed_steps, bytes=100 * (bytes_ratio - 1), gaps=gaps)
    nums |= dict(p99a=worst_ms[0], p99b=worst_ms[1], time=100 * (time_ratio - 1))
    word = FAILS if not mixed_steps or most[1] >= most[0] else HOLDS if bytes_ratio <= 1.1 else ROUGHLY
    return Verdict("C22", word, reason("C22", word), nums, None, load)


def c24_check(
    prefill_steps: tuple[int, int],
    most: tuple[int, int],
    ttft_ms: tuple[float, float],
    worst_ms: tuple[float, float],
    load=None,
) -> Verdict:
    """The two phases' objectives conflict: no schedule gives both what each gets alone, and moving from
    whole prompts to chunks trades one phase's for the other's. Counted: the steps the long prompt waited
    for its first token (prefill_steps: alone it takes one), and the most tokens a chat step processed
    (most: alone a decode step holds one token per chat), whole and chunked. Holds where chunks delay
    the prefill and cut the chats' largest step; does not hold where one schedule serves both; roughly
    where chunks trade nothing. Beside it: the long prompt's TTFT and the chats' worst gap, each lane's
    own clock."""
    nums = dict(sa=prefill_steps[0], sb=prefill_steps[1], ma=most[0], mb=most[1])
    nums |= dict(ta=ttft_ms[0], tb=ttft_ms[1], gapa=worst_ms[0], gapb=worst_ms[1])
    delayed, relieved = prefill_steps[1] > prefill_steps[0], most[1] < most[0]
    word = HOLDS if delayed and relieved else FAILS if relieved else ROUGHLY
    return Verdict("C24", word, reason("C24", word), nums, None, load)
