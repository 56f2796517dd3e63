"""Sweeps (lab/sweeps.py) and the C4, C8, C9, C18 verdict rules, each tested both ways: on numbers
measured on the bundled model where the claim holds, and on hand-made numbers where it does not."""

from __future__ import annotations

import pytest

from lab.sweep_verdicts import c4_verdict, c8_verdict, c9_verdict, c18_verdict, sweep_verdicts
from lab.sweeps import SweepSettings, run_sweep
from lab.verdicts import FAILS, HOLDS, ROUGHLY, Spread, explain

# Medians measured on the bundled SmolLM2-135M (float32, 2 CPU cores, 3 repeats) by bench/claims.py,
# the sweeps page's default sweep (docs/sweeps.md); a subset of its prompt lengths.
LS = [16, 64, 256, 1024]
TTFT = [22.9, 50.7, 172.3, 868.6]
PREFILL = [22.9, 50.7, 172.3, 868.6]  # the prefill step is all of TTFT to 0.1 ms
TPOT_L = [17.44, 17.52, 18.59, 19.83]
NS = [4, 16, 64, 256]
TTFT_N = [51.4, 50.3, 50.4, 50.3]
TPOT_N = [17.48, 17.55, 17.80, 18.16]
SHARE_N = [0.505, 0.840, 0.957, 0.989]


def test_c4_both_ways():
    v = c4_verdict(LS, TTFT, PREFILL)
    assert v.verdict == HOLDS and v.numbers["growth"] == pytest.approx(868.6 / 22.9)
    queued = [t + 400 for t in TTFT]  # TTFT includes 400 ms of waiting in a queue: not prefill
    assert c4_verdict(LS, queued, PREFILL).verdict != HOLDS
    flat = [100.0, 101.0, 99.0, 102.0]  # TTFT that does not grow with the prompt
    assert c4_verdict(LS, flat, flat).verdict == FAILS


def test_c8_both_ways():
    even = [15.0 + 0.2 * (i % 3) for i in range(60)]
    v = c8_verdict(15.2, even)
    assert v.verdict == HOLDS and v.numbers["rate"] == pytest.approx(1000 / 15.2)
    stalls = [10.0] * 45 + [200.0] * 15  # same mean, a stall every fourth token
    assert c8_verdict(sum(stalls) / len(stalls), stalls).verdict == FAILS
    with pytest.raises(ValueError):
        c8_verdict(15.0, [])


def test_c9_both_ways():
    v = c9_verdict(NS, SHARE_N)
    assert v.verdict == HOLDS and v.numbers["crossing"] == 64 and v.numbers["share"] == 0.989
    assert c9_verdict(NS, [0.05, 0.1, 0.3, 0.5]).verdict == FAILS  # long prompts, short answers
    assert c9_verdict(NS, [0.1, 0.3, 0.5, 0.7]).verdict == ROUGHLY


def test_c18_both_ways():
    v = c18_verdict(LS, TTFT, TPOT_L, NS, TTFT_N, TPOT_N)
    assert v.verdict == ROUGHLY  # TPOT grows ~14 % with context: only roughly unchanged
    assert v.numbers["tpot_L"] == pytest.approx(100 * (19.83 / 17.44 - 1))
    assert "TPOT does grow with context: +14 %" in explain(v, "en")
    flat = c18_verdict(LS, TTFT, [15.0, 15.1, 15.2, 15.3], NS, TTFT_N, TPOT_N)
    assert flat.verdict == HOLDS
    doubling = c18_verdict(LS, TTFT, [15.0, 18.0, 24.0, 36.0], NS, TTFT_N, TPOT_N)  # TPOT x2.4 with context
    assert doubling.verdict == FAILS
    ttft_moves = c18_verdict(LS, TTFT, TPOT_L, NS, [90.0, 150.0, 300.0, 600.0], TPOT_N)  # TTFT grows with N
    assert ttft_moves.verdict == FAILS


def test_c8_is_judged_per_request():
    from lab.sweep_verdicts import c8_median_request
    from lab.sweeps import SweepPoint

    fast = [17.5] * 30
    slow = [64.0] * 30  # a whole repeat slowed by the machine: even, just slower
    points = [SweepPoint(64, 31, r, 50.0, sum(g) / len(g), 0.0, 50.0, g, []) for r, g in enumerate([fast, fast, slow])]
    assert c8_median_request(points).verdict == HOLDS  # pooled gaps would read the slow repeat as stalls
    stalls = [10.0] * 24 + [200.0] * 6
    points = [SweepPoint(64, 31, r, 50.0, sum(stalls) / 30, 0.0, 50.0, stalls, []) for r in range(3)]
    assert c8_median_request(points).verdict == FAILS


def test_noisy_points():
    from lab.sweeps import SweepPoint, SweepResult

    def point(L, r, ttft, tpot):
        return SweepPoint(L, 16, r, ttft, tpot, 0.0, ttft, [], [])

    quiet = [point(16, r, 23.0 + r, 17.4) for r in range(3)] + [point(1024, r, 864.0, 21.0 - r / 10) for r in range(3)]
    assert SweepResult("m", SweepSettings(), quiet).noisy_points() == 0
    busy = quiet[:5] + [point(1024, 2, 2900.0, 96.0)]  # one repeat while the machine was busy
    assert SweepResult("m", SweepSettings(), busy).noisy_points() == 2  # its TTFT and its TPOT


def test_spread():
    s = Spread.of([3.0, 1.0, 2.0, 10.0])
    assert (s.median, s.lo, s.hi, s.n) == (2.5, 1.0, 10.0, 4)
    with pytest.raises(ValueError):
        Spread.of([])


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(repeats=0), "Repeats must be between"),
        (dict(prompt_lens=(16,)), "at least two different lengths"),
        (dict(output_lens=(1, 8)), "at least 2 tokens"),
        (dict(prompt_lens=(16, 600)), "this model holds 512"),
    ],
)
def test_settings_are_checked(kwargs, message):
    with pytest.raises(ValueError, match=message):
        SweepSettings(**kwargs).validate(512)


def test_run_sweep_on_tiny_model(tiny):
    s = SweepSettings(prompt_lens=(8, 32), prompt_new_tokens=3, output_prompt_len=8, output_lens=(2, 6), repeats=2)
    seen = []
    r = run_sweep(tiny.model, tiny.tokenizer, s, "tiny", progress=lambda d, n, w: seen.append((d, n)))
    assert r.complete and seen[0] == (0, 8) and seen[-1] == (8, 8)
    assert [p.prompt_len for p in r.prompt_points] == [8, 32, 8, 32]
    assert [p.max_new_tokens for p in r.output_points] == [2, 6, 2, 6]
    p = r.output_points[-1]
    assert len(p.itl_ms) == 5 and [c for c, _ in p.decode_steps] == [9, 10, 11, 12, 13]
    assert p.tpot_ms == pytest.approx(sum(p.itl_ms) / 5) and 0 < p.decode_share < 1
    assert r.by_prompt("ttft_ms")[32].n == 2
    assert [v.claim for v in sweep_verdicts(r)] == ["C4", "C8", "C9", "C18"]
    stopped = run_sweep(tiny.model, tiny.tokenizer, s, "tiny", should_stop=lambda: True)
    assert not stopped.complete and not stopped.prompt_points
    with pytest.raises(ValueError, match="stopped before"):
        sweep_verdicts(stopped)
