"""Checks of the claims about cost growth and serving (C13-C17, C21, C22, C24), as pure functions of
measured numbers: decode step times with and without the KV cache, the naive loop's leak, and a
head-of-line workload run without and with chunked prefill."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine.config import ModelConfig
from engine.observe.costmodel import attention_flops
from engine.observe.trace import Trace
from lab.verdicts import FAILS, HOLDS, ROUGHLY, Verdict, log_slope


def c13_check(
    contexts: list[int],
    ms_off: list[float],
    attn_flops_off: list[float],
    total_on_ms: float,
    total_off_ms: float,
    crossover: int,
) -> Verdict:
    """Without the cache a step recomputes the whole context: step cost O(C^2) by the document.
    Measured: the exponent of step time against context C, beside the counted attention exponent."""
    measured, counted = log_slope(contexts, ms_off), log_slope(contexts, attn_flops_off)
    ratio = total_off_ms / total_on_ms if total_on_ms else 0.0
    nums = dict(measured=measured, counted=counted, ratio=ratio, C0=min(contexts), C1=max(contexts), cross=crossover)
    if measured >= 1.7:
        return Verdict("C13", HOLDS, "why_c13_holds", nums)
    if counted >= 1.8 and measured >= 0.3 and ratio > 1.5:  # it grows with the context, if not as C^2
        return Verdict("C13", ROUGHLY, "why_c13_roughly", nums)
    return Verdict("C13", FAILS, "why_c13_fails", nums)


def c14_check(contexts: list[int], ms_on: list[float], attn_flops_on: list[float], crossover: int) -> Verdict:
    """With the cache a step is O(C): exponent 1 against the context, by the document."""
    measured, counted = log_slope(contexts, ms_on), log_slope(contexts, attn_flops_on)
    growth = float(np.median(ms_on[-max(1, len(ms_on) // 4) :]) / np.median(ms_on[: max(1, len(ms_on) // 4)]) - 1)
    nums = dict(
        measured=measured, counted=counted, growth=100 * growth, C0=min(contexts), C1=max(contexts), cross=crossover
    )
    if 0.7 <= measured <= 1.3:
        return Verdict("C14", HOLDS, "why_c14_holds", nums)
    if 0.8 <= counted <= 1.2 and -0.2 <= measured < 0.7:
        return Verdict("C14", ROUGHLY, "why_c14_roughly", nums)
    return Verdict("C14", FAILS, "why_c14_fails", nums)


def uncached_attention_exponent(c: ModelConfig, n: int) -> float:
    """Apparent exponent of the total attention FLOPs of N uncached decode steps after L = N, between
    N = n and 2n, counted by the engine's cost model (each step recomputes C = L + t tokens)."""

    def total(N: int) -> float:
        return float(sum(attention_flops(c, N + t, N + t) for t in range(1, N + 1)))

    return float(np.log(total(2 * n) / total(n)) / np.log(2))


def c15_check(counted_exponent: float, measured_total_exponent: float, crossover: int, max_context: int) -> Verdict:
    """The source concludes "without the cache, O(N^2)" after deriving Σ(L+t)^2 = O(N^3). The conclusion
    holds only if the attention count's exponent is about 2; the measured total-time exponent and the
    context where attention overtakes the linear layers (C*) show which term dominates here."""
    nums = dict(counted=counted_exponent, measured=measured_total_exponent, cross=crossover, C=max_context)
    if counted_exponent <= 2.3:
        return Verdict("C15", HOLDS, "why_c15_holds", nums)
    return Verdict("C15", FAILS, "why_c15_fails", nums)


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


def chat_gaps(trace: Trace, labels: dict[int, str], long_label: str = "long prompt") -> list[float]:
    """Every gap between tokens of the short requests (ms)."""
    return [g for r in trace.requests if labels.get(r.seq_id) != long_label for g in r.metrics.itl_ms]


def c21_check(gaps_ms: list[float], long_prefill_ms: float) -> Verdict:
    """One long prefill blocks everyone else's decode: the short requests' longest gap against their
    typical gap, and against the long prompt's prefill step."""
    median, longest = float(np.median(gaps_ms)), max(gaps_ms)
    nums = dict(median=median, longest=longest, ratio=longest / median, prefill=long_prefill_ms)
    if longest >= 3 * median and longest >= 0.8 * long_prefill_ms:
        return Verdict("C21", HOLDS, "why_c21_holds", nums)
    if longest >= 1.5 * median:
        return Verdict("C21", ROUGHLY, "why_c21_roughly", nums)
    return Verdict("C21", FAILS, "why_c21_fails", nums)


def c22_check(
    p99_plain: float, p99_chunked: float, tput_plain: float, tput_chunked: float, mixed_steps: int, gaps: int = 0
) -> Verdict:
    """Chunked prefill interleaves (mixed steps), lowers the short requests' P99 gap, keeps throughput.
    `gaps`: the gaps behind each P99 (under 100 it is their maximum, and the text says so)."""
    gain, tput = 1 - p99_chunked / p99_plain, tput_chunked / tput_plain
    nums = dict(p99a=p99_plain, p99b=p99_chunked, gain=100 * gain, tput=100 * (tput - 1), mixed=mixed_steps, gaps=gaps)
    if mixed_steps and gain >= 0.3 and tput >= 0.9:
        return Verdict("C22", HOLDS, "why_c22_holds", nums)
    if mixed_steps and gain > 0.1:
        return Verdict("C22", ROUGHLY, "why_c22_roughly", nums)
    return Verdict("C22", FAILS, "why_c22_fails", nums)


@dataclass(frozen=True)
class ScheduleOutcome:
    """One schedule of the head-of-line workload, as C24 judges it."""

    chats_met: int  # chats whose every gap stayed within the decode objective
    chats: int
    worst_gap_ms: float  # the chats' longest gap between tokens
    long_ttft_ms: float  # the long prompt's time to first token
    seconds: float  # first arrival to last finish

    def goodput(self, ttft_slo_ms: float) -> float:
        """Requests served within their phase's objective per second."""
        return (self.chats_met + (self.long_ttft_ms <= ttft_slo_ms)) / self.seconds


def schedule_outcome(
    trace: Trace, labels: dict[int, str], itl_slo_ms: float, long_label: str = "long prompt"
) -> ScheduleOutcome:
    """A head-of-line run judged for C24: its chats against the decode objective (every gap within
    `itl_slo_ms`, lab/slo.py's ITL rule), its long prompt's TTFT, its length."""
    chats = [r for r in trace.requests if labels.get(r.seq_id) != long_label]
    long = next(r for r in trace.requests if labels.get(r.seq_id) == long_label)
    worst = [max(r.metrics.itl_ms, default=0.0) for r in chats]
    return ScheduleOutcome(
        chats_met=sum(w <= itl_slo_ms for w in worst),
        chats=len(chats),
        worst_gap_ms=max(worst),
        long_ttft_ms=long.metrics.ttft_ms,
        seconds=max(r.finish_time for r in trace.requests) - min(r.arrival for r in trace.requests),
    )


def c24_check(whole: ScheduleOutcome, chunked: ScheduleOutcome, decode_gap_ms: float, prefill_ms: float) -> Verdict:
    """The two phases' objectives conflict: judged at what each phase gets alone (decode: no gap over
    3 × the chats' median gap; prefill: the long prompt's first token within 1.5 × its prefill step
    alone), no schedule serves both, and moving from whole prompts to chunks trades one phase's
    objective for the other's (the long prompt's TTFT up, the chats' worst gap down)."""
    itl_slo, ttft_slo = 3 * decode_gap_ms, 1.5 * prefill_ms
    nums = dict(
        d=decode_gap_ms,
        itl=itl_slo,
        p=prefill_ms,
        ttft=ttft_slo,
        n=whole.chats,
        wa=whole.chats_met,
        wb=chunked.chats_met,
        gapa=whole.worst_gap_ms,
        gapb=chunked.worst_gap_ms,
        ta=whole.long_ttft_ms,
        tb=chunked.long_ttft_ms,
        ga=whole.goodput(ttft_slo),
        gb=chunked.goodput(ttft_slo),
    )
    if any(o.chats_met == o.chats and o.long_ttft_ms <= ttft_slo for o in (whole, chunked)):
        return Verdict("C24", FAILS, "why_c24_fails", nums)
    if chunked.long_ttft_ms > whole.long_ttft_ms and chunked.worst_gap_ms < whole.worst_gap_ms:
        return Verdict("C24", HOLDS, "why_c24_holds", nums)
    return Verdict("C24", ROUGHLY, "why_c24_roughly", nums)
