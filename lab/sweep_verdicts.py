"""Verdicts on C4, C8, C9 and C18 from a sweep's rounds (lab/sweeps.py): pure functions of intervals,
so each rule can be tested on real sweeps and on hand-made numbers where the claim fails.

A comparison of two points is the median of their ratios paired round by round, with its interval and n
(lab/pairing.py); a share is the median over the requests with its interval. A verdict is given where
the whole interval lies past a bound, "not separable here" where it straddles one (too few rounds
included: 5 are needed), and the load other processes put on the machine stands beside it.

Rules (shown on the page next to the verdicts):
  C4   TTFT is almost all prefill, and grows with the prompt:
       growth = TTFT(longest L) / TTFT(shortest L), paired by round;
       share = prefill step time / TTFT, per request at the prompt length where it is smallest.
       holds: growth ≥ 1.5 and share ≥ 0.9; roughly: growth ≥ 1.1 and share ≥ 0.7; does not hold where
       an interval lies wholly below the roughly bound.
  C8   TPOT describes the stream a user sees: per request of the longest output, off = |median ITL /
       TPOT − 1| and tail = P90 ITL / TPOT. holds: off ≤ 15 % and tail ≤ 1.5; roughly: ≤ 30 % and ≤ 3;
       does not hold where an interval lies wholly above the roughly bound. Beside other work (the
       busy rule, lab/busy.py) only "holds" is stated: other processes can only spread the gaps.
  C9   decode share of the request's time at the longest output, per request:
       holds ≥ 0.8; roughly ≥ 0.6; does not hold below 0.6.
  C18  longer prompt: TTFT grows (≥ 1.5x) while TPOT(longest L) / TPOT(shortest L) stays within
       0.9–1.1 (holds) / 0.5–1.5 (roughly); longer output: TTFT(longest N) / TTFT(shortest N) within
       0.8–1.2 and TPOT(longest N) / TPOT(shortest N) within 0.9–1.25 (holds) / 0.5–1.5 (roughly).
"""

from __future__ import annotations

import statistics

from engine.errors import LabError
from lab.pairing import LESS, RatioInterval, ratio_interval
from lab.verdicts import (
    NOT_SEPARABLE,
    Verdict,
    banded,
    combined,
    loads_of,
    named,
    reason,
    slope,
    spread_beside_other_work,
    tiered,
    value_interval,
)


def c4_verdict(
    growth: RatioInterval, share: RatioInterval, prompt_lens: tuple[int, int], ttft_ms: tuple[float, float]
) -> Verdict:
    """growth: TTFT at the longest prompt over the shortest, paired by round; share: prefill step / TTFT
    per request where it is smallest; prompt_lens and ttft_ms: the two lengths and their median TTFT."""
    word = combined(tiered(growth, 1.5, 1.1), tiered(share, 0.9, 0.7))
    (L0, L1), (t0, t1) = prompt_lens, ttft_ms
    nums = named(growth, "growth") | named(share, "share") | dict(L0=L0, L1=L1, ttft0=t0, ttft1=t1)
    nums["slope"] = slope([L0, L1], [t0, t1])
    return Verdict("C4", word, reason("C4", word), nums, growth, loads_of(growth, share))


def c8_request(tpot_ms: float, itl_ms: list[float]) -> tuple[float, float]:
    """One request's (off, tail): |median gap / TPOT − 1| and P90 gap / TPOT."""
    if not itl_ms or tpot_ms <= 0:
        raise LabError("C8 needs at least two output tokens.")
    gaps = sorted(itl_ms)
    median, p90 = gaps[len(gaps) // 2], gaps[min(len(gaps) - 1, int(0.9 * len(gaps)))]
    return abs(median / tpot_ms - 1), p90 / tpot_ms


def c8_verdict(requests: list[tuple[float, list[float]]], load=None) -> Verdict:
    """Each request's TPOT and gaps between tokens (its own: one slow request must not be read as
    stalls in the others), judged over the requests."""
    per = [c8_request(tpot, gaps) for tpot, gaps in requests]
    off, tail = value_interval([o for o, _ in per], load), value_interval([t for _, t in per], load)
    word = combined(tiered(off, 0.15, 0.3, LESS), tiered(tail, 1.5, 3.0, LESS))
    tpot = statistics.median(t for t, _ in requests)
    nums = named(off, "off") | named(tail, "tail") | dict(tpot=tpot, rate=1000 / tpot, N=len(requests[0][1]) + 1)
    if spread_beside_other_work(word, load):
        nums |= dict(other=load.other_cores, cores=load.cores)
        return Verdict("C8", NOT_SEPARABLE, "why_c8_not_separable_busy", nums, tail, load)
    return Verdict("C8", word, reason("C8", word), nums, tail, load)


def c9_verdict(output_len: int, shares: list[float], crossing: int | None, load=None) -> Verdict:
    """The decode share of each request at the longest output; crossing: the first output length whose
    median share reaches 90 % (None if none does)."""
    share = value_interval(shares, load)
    word = tiered(share, 0.8, 0.6)
    nums = named(share, "share") | dict(N=output_len, crossing=crossing if crossing is not None else "—")
    return Verdict("C9", word, reason("C9", word), nums, share, load)


def c18_verdict(
    ttft_L: RatioInterval,
    tpot_L: RatioInterval,
    ttft_N: RatioInterval,
    tpot_N: RatioInterval,
    lengths: tuple[int, int, int, int],
    tpot_ms: tuple[float, float],
) -> Verdict:
    """Paired ratios of the longest point over the shortest: TTFT and TPOT over prompt lengths, TTFT and
    TPOT over output lengths. lengths: (L0, L1, N0, N1); tpot_ms: the median TPOT at L0 and L1."""
    prompt_part = combined(tiered(ttft_L, 1.5, 1.5), banded(tpot_L, (0.9, 1.1), (0.5, 1.5)))
    output_part = combined(banded(ttft_N, (0.8, 1.2), (0.8, 1.2)), banded(tpot_N, (0.9, 1.25), (0.5, 1.5)))
    word = combined(prompt_part, output_part)
    L0, L1, N0, N1 = lengths
    nums = named(ttft_L, "ttft_L") | named(tpot_L, "tpot_L") | named(ttft_N, "ttft_N") | named(tpot_N, "tpot_N")
    nums |= dict(L0=L0, L1=L1, N0=N0, N1=N1, tpot0=tpot_ms[0], tpot1=tpot_ms[1])
    return Verdict("C18", word, reason("C18", word), nums, tpot_L, loads_of(ttft_L, tpot_L, ttft_N, tpot_N))


def paired(result, kind: str, length: int, base: int, attr: str) -> RatioInterval:
    """One point's `attr` over another's of the same sweep, paired round by round."""
    mine, theirs = result.per_round(kind, length, attr), result.per_round(kind, base, attr)
    rounds = sorted(set(mine) & set(theirs))
    return ratio_interval([mine[r] for r in rounds], [theirs[r] for r in rounds], result.retaken, result.load)


def _smallest_share(result) -> RatioInterval:
    """prefill step / TTFT of each request at the prompt length whose median share is smallest."""
    shares: dict[int, list[float]] = {}
    for p in result.prompt_points:
        shares.setdefault(p.prompt_len, []).append(p.prefill_ms / p.ttft_ms if p.ttft_ms > 0 else 0.0)
    worst = min(shares.values(), key=statistics.median)
    return value_interval(worst, result.load, result.retaken)


def sweep_verdicts(result) -> list[Verdict]:
    """The four verdicts of a SweepResult (lab/sweeps.py), from its kept rounds; ValueError if a sweep
    is missing (stopped before a round was measured)."""
    if result.rounds < 1:
        raise LabError("The sweep stopped before its first round was measured: run it again.")
    Ls, Ns = sorted(result.settings.prompt_lens), sorted(result.settings.output_lens)
    L0, L1, N0, N1 = Ls[0], Ls[-1], Ns[0], Ns[-1]
    ttft_L = paired(result, "prompt", L1, L0, "ttft_ms")
    ttft, tpot = result.by_prompt("ttft_ms"), result.by_prompt("tpot_ms")
    last = [p for p in result.output_points if p.max_new_tokens == N1]
    shares = result.by_output("decode_share")
    crossing = next((N for N in Ns if shares[N].median >= 0.9), None)
    return [
        c4_verdict(ttft_L, _smallest_share(result), (L0, L1), (ttft[L0].median, ttft[L1].median)),
        c8_verdict([(p.tpot_ms, p.itl_ms) for p in last], result.load),
        c9_verdict(N1, [p.decode_share for p in last], crossing, result.load),
        c18_verdict(
            ttft_L,
            paired(result, "prompt", L1, L0, "tpot_ms"),
            paired(result, "output", N1, N0, "ttft_ms"),
            paired(result, "output", N1, N0, "tpot_ms"),
            (L0, L1, N0, N1),
            (tpot[L0].median, tpot[L1].median),
        ),
    ]
