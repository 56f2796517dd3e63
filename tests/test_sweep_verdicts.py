"""Sweeps (lab/sweeps.py) and the C4, C8, C9, C18 verdict rules, each tested both ways on hand-made
rounds: the claim's verdict where every interval lies past a bound, "does not hold" where one lies
wholly short of it, "not separable here" where one straddles a bound or too few rounds were kept; and
on a real sweep of the tiny model, run in rounds."""

from __future__ import annotations

import pytest

from lab.busy import MachineLoad
from lab.pairing import ratio_interval
from lab.sweep_verdicts import c4_verdict, c8_verdict, c9_verdict, c18_verdict, sweep_verdicts
from lab.sweeps import SweepPoint, SweepResult, SweepSettings, run_sweep, sweep_plan
from lab.verdicts import FAILS, HOLDS, NOT_SEPARABLE, ROUGHLY, explain, value_interval

# Medians measured on the bundled SmolLM2-135M (float32, 2 CPU cores) by bench/claims.py (docs/sweeps.md),
# a subset of its prompt lengths; rounds below jitter around them by a few per cent.
LS = [16, 64, 256, 1024]
TTFT = [22.9, 50.7, 172.3, 868.6]
TPOT_L = [17.44, 17.52, 18.59, 19.83]
NS = [4, 16, 64, 256]
TTFT_N = [51.4, 50.3, 50.4, 50.3]
TPOT_N = [17.48, 17.55, 17.80, 18.16]
JITTER = [1.0, 1.02, 0.98, 1.01, 0.99]


def rounds_of(value: float, jitter=JITTER) -> list[float]:
    return [value * j for j in jitter]


def paired(a: float, b: float, n: int = 5):
    """a ÷ b over n rounds, each side jittered on its own."""
    return ratio_interval(rounds_of(a, JITTER[:n]), rounds_of(b, JITTER[::-1][:n]))


def test_c4_both_ways():
    share = value_interval([0.999, 0.998, 0.999, 0.997, 0.999])
    v = c4_verdict(paired(868.6, 22.9), share, (16, 1024), (22.9, 868.6))
    assert v.verdict == HOLDS and v.numbers["growth"] == pytest.approx(868.6 / 22.9, rel=0.05)
    assert v.interval.n == 5 and "n = 5" in explain(v)
    queued = value_interval([0.05, 0.06, 0.05, 0.07, 0.05])  # TTFT includes a queue's wait: not prefill
    assert c4_verdict(paired(868.6, 22.9), queued, (16, 1024), (22.9, 868.6)).verdict == FAILS
    flat = c4_verdict(paired(100.0, 101.0), share, (16, 1024), (101.0, 100.0))  # TTFT does not grow
    assert flat.verdict == FAILS
    straddles = ratio_interval([1.2, 1.4, 1.6, 1.8, 2.0], [1.0] * 5)  # 1.2–2.0 around the 1.5 bound
    assert c4_verdict(straddles, share, (16, 1024), (22.9, 36.0)).verdict == ROUGHLY  # at least roughly
    wide = ratio_interval([0.8, 1.4, 1.6, 1.8, 3.0], [1.0] * 5)  # reaches below 1.1: not separable
    assert c4_verdict(wide, share, (16, 1024), (22.9, 36.0)).verdict == NOT_SEPARABLE
    two = paired(868.6, 22.9, n=2)  # two rounds: an interval that cannot judge
    assert c4_verdict(two, share, (16, 1024), (22.9, 868.6)).verdict == NOT_SEPARABLE


def test_c8_both_ways():
    even = [15.0 + 0.2 * (i % 3) for i in range(60)]
    v = c8_verdict([(15.2, even)] * 5)
    assert v.verdict == HOLDS and v.numbers["rate"] == pytest.approx(1000 / 15.2)
    stalls = [10.0] * 45 + [200.0] * 15  # same mean, a stall every fourth token, in every request
    assert c8_verdict([(sum(stalls) / len(stalls), stalls)] * 5).verdict == FAILS
    with pytest.raises(ValueError):
        c8_verdict([(15.0, [])])
    assert c8_verdict([(15.2, even)] * 3).verdict == NOT_SEPARABLE  # too few requests to judge


def test_beside_other_work_c8_states_only_that_it_holds():
    even = [15.0 + 0.1 * (i % 3) for i in range(30)]
    stalls = [10.0] * 24 + [60.0] * 6
    busy, quiet = MachineLoad(other_cores=1.0, cores=2, seconds=5.0), MachineLoad(0.0, 2, 5.0)
    assert c8_verdict([(sum(stalls) / len(stalls), stalls)] * 5, quiet).verdict == FAILS
    stalled = c8_verdict([(sum(stalls) / len(stalls), stalls)] * 5, busy)  # other work spreads gaps
    assert stalled.verdict == NOT_SEPARABLE and "1.0/2 cores busy" in explain(stalled)
    assert c8_verdict([(15.2, even)] * 5, busy).verdict == HOLDS  # an even stream beside it is even quiet


def test_c8_is_judged_per_request_and_a_burst_is_not_a_verdict():
    fast = [17.5] * 30
    slow = [64.0] * 30  # a whole request slowed by the machine: even, just slower
    assert c8_verdict([(sum(g) / 30, g) for g in [fast, fast, slow, fast, fast]]).verdict == HOLDS
    burst = [17.5] * 20 + [90.0] * 10  # other work took the machine for a third of a request's steps
    requests = [(sum(g) / 30, g) for g in [burst, fast, burst, fast, burst]]
    v = c8_verdict(requests)
    assert v.verdict == NOT_SEPARABLE  # the old rule, on the median request (a burst one): "does not hold"


def test_c9_both_ways():
    v = c9_verdict(256, [0.989, 0.990, 0.988, 0.991, 0.989], 64)
    assert v.verdict == HOLDS and v.numbers["crossing"] == 64 and v.numbers["share"] == pytest.approx(0.989)
    assert c9_verdict(256, [0.5, 0.48, 0.51, 0.5, 0.49], None).verdict == FAILS  # long prompts, short answers
    assert c9_verdict(256, [0.7, 0.72, 0.69, 0.71, 0.7], None).verdict == ROUGHLY
    assert c9_verdict(256, [0.5, 0.9, 0.7, 0.95, 0.6], None).verdict == NOT_SEPARABLE  # straddles 0.6


def c18(tpot_L=(19.83, 17.44), ttft_N=(50.3, 51.4), tpot_N=(18.16, 17.48)):
    return c18_verdict(
        paired(868.6, 22.9), paired(*tpot_L), paired(*ttft_N), paired(*tpot_N), (16, 1024, 4, 256), (17.44, 19.83)
    )


def test_c18_both_ways():
    v = c18()
    assert v.verdict == ROUGHLY  # TPOT grows ~14 % with context: only roughly unchanged
    assert v.numbers["tpot_L"] == pytest.approx(19.83 / 17.44, rel=0.05)
    assert "but TPOT does change with context: 1.1" in explain(v, "en")
    assert c18(tpot_L=(15.3, 15.0)).verdict == HOLDS
    assert c18(tpot_L=(36.0, 15.0)).verdict == FAILS  # TPOT x2.4 with context
    assert c18(ttft_N=(600.0, 90.0)).verdict == FAILS  # TTFT grows with N


def point(L: int, N: int, r: int, ttft: float, tpot: float, gaps=None) -> SweepPoint:
    gaps = gaps or [tpot] * (N - 1)
    return SweepPoint(L, N, r, ttft, tpot, ttft + tpot * (N - 1), ttft * 0.999, gaps, [(L + i, tpot) for i in range(N)])


def test_sweep_verdicts_pair_the_points_round_by_round():
    s = SweepSettings(prompt_lens=(16, 1024), prompt_new_tokens=16, output_prompt_len=64, output_lens=(4, 256))
    r = SweepResult("m", s, complete=True)
    for k, j in enumerate(JITTER):
        r.prompt_points += [point(16, 16, k, 22.9 * j, 17.4 * j), point(1024, 16, k, 868.6 * j, 19.8 * j)]
        r.output_points += [point(64, 4, k, 51.0 * j, 17.5 * j), point(64, 256, k, 50.5 * j, 18.1 * j)]
    assert r.rounds == 5
    v = {x.claim: x for x in sweep_verdicts(r)}
    assert v["C4"].verdict == HOLDS and v["C4"].interval.low == pytest.approx(868.6 / 22.9)
    assert v["C9"].verdict == HOLDS and v["C18"].verdict == ROUGHLY and v["C8"].verdict == HOLDS


def test_spread():
    from lab.verdicts import Spread

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


def test_the_rounds_alternate_their_order():
    s = SweepSettings(prompt_lens=(8, 32), prompt_new_tokens=3, output_prompt_len=8, output_lens=(2, 6), repeats=2)
    plan = sweep_plan(s)
    first, second = [p[1:] for p in plan[:4]], [p[1:] for p in plan[4:]]
    assert first == [("prompt", 8, 3), ("prompt", 32, 3), ("output", 8, 2), ("output", 8, 6)]
    assert second == first[::-1]  # each point first in one round, last in the next


def test_run_sweep_on_tiny_model(tiny):
    s = SweepSettings(prompt_lens=(8, 32), prompt_new_tokens=3, output_prompt_len=8, output_lens=(2, 6), repeats=2)
    seen, kept = [], []
    r = run_sweep(
        tiny.model,
        tiny.tokenizer,
        s,
        "tiny",
        progress=lambda d, n, w, p: seen.append((d, n)),
        on_round=lambda res: kept.append(res.rounds),
    )
    assert r.complete and seen[0] == (0, 8) and seen[-1][0] == seen[-1][1] == 8 + 4 * r.retaken
    assert kept == [1, 2] and r.rounds == 2 and r.retaken <= 1  # a busy round measured again, at most half
    assert sorted(p.prompt_len for p in r.prompt_points) == [8, 8, 32, 32]
    assert [p.repeat for p in r.prompt_points] == [0, 0, 1, 1]
    p = r.output_points[-1]
    assert len(p.itl_ms) == 5 and [c for c, _ in p.decode_steps] == [9, 10, 11, 12, 13]
    assert p.tpot_ms == pytest.approx(sum(p.itl_ms) / 5) and 0 < p.decode_share < 1
    assert p.prefill_flops > 0 and len(p.decode_bytes) == 5  # the engine's counts beside the times
    assert r.by_prompt("ttft_ms")[32].n == 2
    verdicts = sweep_verdicts(r)
    assert [v.claim for v in verdicts] == ["C4", "C8", "C9", "C18"]
    assert all(v.verdict == NOT_SEPARABLE for v in verdicts)  # two rounds: too few to judge by
    stopped = run_sweep(tiny.model, tiny.tokenizer, s, "tiny", should_stop=lambda: True)
    assert not stopped.complete and not stopped.prompt_points
    with pytest.raises(ValueError, match="stopped before"):
        sweep_verdicts(stopped)
