"""Verdicts on C4, C8, C9 and C18 from sweep measurements: pure functions of medians, so each rule
can be tested on real sweeps and on hand-made numbers where the claim fails.

Rules (shown on the page next to the verdicts):
  C4   TTFT is almost all prefill, and grows with the prompt:
       prefill share = prefill step time / TTFT, its smallest value over the prompt lengths;
       growth = TTFT(longest) / TTFT(shortest).
       holds: share >= 0.9 and growth >= 1.5; roughly: share >= 0.7 and growth > 1.1; else does not hold.
  C8   TPOT describes the stream a user sees: the typical gap between tokens (median ITL) is TPOT,
       and few gaps are much longer. holds: median ITL within 15 % of TPOT and P90 ITL <= 1.5 TPOT;
       roughly: within 30 % and P90 <= 3 TPOT; else does not hold. Judged per request of the longest
       output, and the request with the median P90 / TPOT reported.
  C9   decode share of the request's time at the longest output:
       holds >= 0.8; roughly >= 0.6; else does not hold.
  C18  longer prompt: TTFT grows (>= 1.5x) while TPOT stays within 10 % (holds) / 50 % (roughly);
       longer output: TTFT stays within 20 % of its median and TPOT grows by at most 25 % (holds) /
       50 % (roughly).
"""

from __future__ import annotations

from engine.errors import LabError
from lab.verdicts import FAILS, HOLDS, ROUGHLY, Verdict, slope, worst


def c4_verdict(prompt_lens: list[int], ttft_ms: list[float], prefill_ms: list[float]) -> Verdict:
    """Medians per prompt length, in the order of prompt_lens."""
    shares = [p / t if t > 0 else 0.0 for p, t in zip(prefill_ms, ttft_ms)]
    share = min(shares)
    i0, i1 = prompt_lens.index(min(prompt_lens)), prompt_lens.index(max(prompt_lens))
    growth = ttft_ms[i1] / ttft_ms[i0] if ttft_ms[i0] > 0 else 0.0
    nums = dict(
        share=share,
        growth=growth,
        L0=prompt_lens[i0],
        L1=prompt_lens[i1],
        ttft0=ttft_ms[i0],
        ttft1=ttft_ms[i1],
        slope=slope(prompt_lens, ttft_ms),
    )
    if share >= 0.9 and growth >= 1.5:
        return Verdict("C4", HOLDS, "why_c4_holds", nums)
    if share >= 0.7 and growth > 1.1:
        return Verdict("C4", ROUGHLY, "why_c4_roughly", nums)
    return Verdict("C4", FAILS, "why_c4_fails", nums)


def c8_verdict(tpot_ms: float, itl_ms: list[float]) -> Verdict:
    """TPOT and every gap between tokens of the same requests."""
    if not itl_ms or tpot_ms <= 0:
        raise LabError("C8 needs at least two output tokens.")
    gaps = sorted(itl_ms)
    median = gaps[len(gaps) // 2]
    p90 = gaps[min(len(gaps) - 1, int(0.9 * len(gaps)))]
    off, tail = abs(median / tpot_ms - 1), p90 / tpot_ms
    nums = dict(tpot=tpot_ms, itl_median=median, itl_p90=p90, off=off, tail=tail, rate=1000 / tpot_ms)
    if off <= 0.15 and tail <= 1.5:
        return Verdict("C8", HOLDS, "why_c8_holds", nums)
    if off <= 0.3 and tail <= 3:
        return Verdict("C8", ROUGHLY, "why_c8_roughly", nums)
    return Verdict("C8", FAILS, "why_c8_fails", nums)


def c9_verdict(output_lens: list[int], decode_share: list[float]) -> Verdict:
    """Median decode share per output length."""
    i = output_lens.index(max(output_lens))
    crossing = next((n for n, s in sorted(zip(output_lens, decode_share)) if s >= 0.9), None)
    nums = dict(N=output_lens[i], share=decode_share[i], crossing=crossing if crossing is not None else "—")
    if decode_share[i] >= 0.8:
        return Verdict("C9", HOLDS, "why_c9_holds", nums)
    if decode_share[i] >= 0.6:
        return Verdict("C9", ROUGHLY, "why_c9_roughly", nums)
    return Verdict("C9", FAILS, "why_c9_fails", nums)


def c18_verdict(
    prompt_lens: list[int],
    ttft_by_L: list[float],
    tpot_by_L: list[float],
    output_lens: list[int],
    ttft_by_N: list[float],
    tpot_by_N: list[float],
) -> Verdict:
    """Medians per prompt length (prompt sweep) and per output length (output sweep)."""
    i0, i1 = prompt_lens.index(min(prompt_lens)), prompt_lens.index(max(prompt_lens))
    j0, j1 = output_lens.index(min(output_lens)), output_lens.index(max(output_lens))
    ttft_growth = ttft_by_L[i1] / ttft_by_L[i0]
    tpot_change_L = tpot_by_L[i1] / tpot_by_L[i0] - 1
    mid = sorted(ttft_by_N)[len(ttft_by_N) // 2]
    ttft_wobble = (max(ttft_by_N) - min(ttft_by_N)) / mid
    tpot_change_N = tpot_by_N[j1] / tpot_by_N[j0] - 1
    nums = dict(
        L0=prompt_lens[i0],
        L1=prompt_lens[i1],
        ttft_growth=ttft_growth,
        tpot_L=100 * tpot_change_L,
        N0=output_lens[j0],
        N1=output_lens[j1],
        ttft_N=100 * ttft_wobble,
        tpot_N=100 * tpot_change_N,
        tpot0=tpot_by_L[i0],
        tpot1=tpot_by_L[i1],
    )
    prompt_part = (
        FAILS
        if ttft_growth < 1.5
        else HOLDS
        if abs(tpot_change_L) <= 0.10
        else ROUGHLY
        if abs(tpot_change_L) <= 0.50
        else FAILS
    )
    output_part = (
        FAILS
        if ttft_wobble > 0.20
        else HOLDS
        if -0.10 <= tpot_change_N <= 0.25
        else ROUGHLY
        if abs(tpot_change_N) <= 0.50
        else FAILS
    )
    verdict = worst(prompt_part, output_part)
    if verdict == HOLDS:
        return Verdict("C18", HOLDS, "why_c18_holds", nums)
    if verdict == ROUGHLY:
        return Verdict("C18", ROUGHLY, "why_c18_roughly", nums)
    return Verdict("C18", FAILS, "why_c18_fails", nums)


def c8_median_request(points) -> Verdict:
    """C8 per request (its own TPOT against its own gaps: one slow repeat must not be read as stalls in
    the others), reported for the request with the median tail."""
    per_request = sorted((c8_verdict(p.tpot_ms, p.itl_ms) for p in points), key=lambda v: v.numbers["tail"])
    return per_request[len(per_request) // 2]


def sweep_verdicts(result) -> list[Verdict]:
    """The four verdicts of a finished SweepResult (lab/sweeps.py); ValueError if a sweep is missing
    (stopped before both had two lengths measured)."""
    by_L = {a: result.by_prompt(a) for a in ("ttft_ms", "tpot_ms", "prefill_ms")}
    by_N = {a: result.by_output(a) for a in ("ttft_ms", "tpot_ms", "decode_share")}
    Ls, Ns = list(by_L["ttft_ms"]), list(by_N["ttft_ms"])
    if len(Ls) < 2 or len(Ns) < 2:
        raise LabError("The sweep stopped before both sweeps had two lengths measured: run it again.")
    med = {k: [s.median for s in v.values()] for k, v in (by_L | {f"N_{a}": b for a, b in by_N.items()}).items()}
    longest = max(Ns)
    last = [p for p in result.output_points if p.max_new_tokens == longest]
    return [
        c4_verdict(Ls, med["ttft_ms"], med["prefill_ms"]),
        c8_median_request(last),
        c9_verdict(Ns, med["N_decode_share"]),
        c18_verdict(Ls, med["ttft_ms"], med["tpot_ms"], Ns, med["N_ttft_ms"], med["N_tpot_ms"]),
    ]
