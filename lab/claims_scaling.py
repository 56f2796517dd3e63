"""Checks of the claims about cost growth (C13-C16), as pure functions of measured numbers: the
engine's count of each decode step with and without the KV cache, with their raced step times beside
it, and the naive loop's leak (its bytes counted, its slowdown paired step by step). The serving
claims are lab/claims_serving.py."""

from __future__ import annotations

import numpy as np

from engine.config import ModelConfig
from engine.observe.costmodel import attention_flops
from lab.pairing import GREATER, LESS, RatioInterval, compare
from lab.verdicts import (
    FAILS,
    HOLDS,
    NOT_SEPARABLE,
    REASON_WORDS,
    ROUGHLY,
    Verdict,
    loads_of,
    log_slope,
    named,
    reason,
)


def c13_check(
    contexts: list[int],
    fed: list[int],
    attn_flops: list[float],
    total_flops: list[float],
    slower: RatioInterval,
    growth: RatioInterval,
    crossover: int,
) -> Verdict:
    """Without the cache a step recomputes the whole context: step cost O(C^2) by the document. Judged
    on the engine's count of each uncached decode step: the tokens it fed (all C of its context?), the
    exponent of its attention FLOPs against C (2 for C x C scores) and of its whole FLOPs (the linear
    layers' C x d^2 dominate until C*). Beside it, timed: the uncached step over the cached one at the
    same context, raced step by step (`slower`), and that ratio's exponent against C (`growth`)."""
    attn, total = log_slope(contexts, attn_flops), log_slope(contexts, total_flops)
    recomputes = all(f == c for f, c in zip(fed, contexts))
    nums = dict(attn=attn, total=total, C0=min(contexts), C1=max(contexts), cross=crossover)
    nums |= named(slower, "slower") | named(growth, "growth")
    word = FAILS if not recomputes or attn < 1.8 else HOLDS if total >= 1.7 else ROUGHLY
    return Verdict("C13", word, reason("C13", word), nums, slower, loads_of(slower, growth))


def c14_check(
    contexts: list[int],
    fed: list[int],
    attn_flops: list[float],
    total_flops: list[float],
    growth: RatioInterval,
    crossover: int,
) -> Verdict:
    """With the cache a step is O(C): one token fed, attending 1 x C. Judged on the engine's count of each
    cached decode step: one token each, attention FLOPs growing as C^1, and its whole FLOPs' exponent
    (reading the weights dominates until C*). Beside it, timed: the cached step time's exponent."""
    attn, total = log_slope(contexts, attn_flops), log_slope(contexts, total_flops)
    nums = dict(attn=attn, total=total, C0=min(contexts), C1=max(contexts), cross=crossover) | named(growth, "growth")
    ok = all(f == 1 for f in fed) and 0.8 <= attn <= 1.2
    word = FAILS if not ok else HOLDS if 0.7 <= total <= 1.3 else ROUGHLY
    return Verdict("C14", word, reason("C14", word), nums, growth, growth.load)


def uncached_attention_exponent(c: ModelConfig, n: int) -> float:
    """Apparent exponent of the total attention FLOPs of N uncached decode steps after L = N, between
    N = n and 2n, counted by the engine's cost model (each step recomputes C = L + t tokens)."""

    def total(N: int) -> float:
        return float(sum(attention_flops(c, N + t, N + t) for t in range(1, N + 1)))

    return float(np.log(total(2 * n) / total(n)) / np.log(2))


def c15_check(counted_exponent: float, measured: RatioInterval, crossover: int, max_context: int) -> Verdict:
    """The source concludes "without the cache, O(N^2)" after deriving Σ(L+t)^2 = O(N^3). The conclusion
    holds only if the attention count's exponent is about 2 (counted: the verdict); beside it, the
    measured exponent of the uncached run's total time and the context where attention overtakes the
    linear layers (C*) show which term dominates here."""
    nums = dict(counted=counted_exponent, cross=crossover, C=max_context) | named(measured, "measured")
    word = HOLDS if counted_exponent <= 2.3 else FAILS
    return Verdict("C15", word, reason("C15", word), nums, measured, measured.load)


def c16_check(naive_bytes: list[int], naive_ms: list[float], engine_bytes: list[int]) -> Verdict:
    """Per request of the same loop: bytes its cache holds afterwards and ms per token. A leak: the
    naive loop's bytes grow every request while the engine's return to 0; slowing down: the last
    request's ms per token against the first's."""
    grows = len(naive_bytes) >= 2 and all(b > a for a, b in zip(naive_bytes, naive_bytes[1:]))
    freed = all(b == 0 for b in engine_bytes)
    slowdown = naive_ms[-1] / naive_ms[0] if naive_ms and naive_ms[0] > 0 else 0.0
    per_request = (naive_bytes[-1] - naive_bytes[0]) / max(1, len(naive_bytes) - 1) if naive_bytes else 0
    nums = dict(
        n=len(naive_bytes),
        per=per_request / 1024,
        last=naive_bytes[-1] / 1024 if naive_bytes else 0,
        slow=slowdown,
        engine=max(engine_bytes, default=0) / 1024,
    )
    if not grows or not freed:
        return Verdict("C16", FAILS, "why_c16_fails", nums)
    if slowdown >= 1.5:
        return Verdict("C16", HOLDS, "why_c16_holds", nums)
    return Verdict("C16", ROUGHLY, "why_c16_roughly", nums)


def c16_paired_check(naive_bytes: list[int], engine_bytes: list[int], slowdown: RatioInterval) -> Verdict:
    """The leak by the count: the naive loop's cache grows every request while the engine's KV returns
    to 0. Whether it slows each token, timed: the naive loop's last request over the same request on a
    fresh cache, decode step by step (lab/claims_leak.py): holds where that interval lies above 1."""
    grows = len(naive_bytes) >= 2 and all(b > a for a, b in zip(naive_bytes, naive_bytes[1:]))
    freed = all(b == 0 for b in engine_bytes)
    per_request = (naive_bytes[-1] - naive_bytes[0]) / max(1, len(naive_bytes) - 1) if naive_bytes else 0
    nums = dict(
        n=len(naive_bytes),
        per=per_request / 1024,
        last=naive_bytes[-1] / 1024 if naive_bytes else 0,
        engine=max(engine_bytes, default=0) / 1024,
    ) | named(slowdown, "slow")
    side = compare(slowdown)
    word = FAILS if not (grows and freed) else HOLDS if side == GREATER else ROUGHLY if side == LESS else NOT_SEPARABLE
    key = "why_c16_fails" if word == FAILS else f"why_c16_paired_{REASON_WORDS[word]}"  # c16_check keeps the others
    return Verdict("C16", word, key, nums, slowdown, slowdown.load)
