"""SLOs and goodput (lab/slo.py) against hand-worked examples: the per-request rule, vLLM's own
goodput arithmetic, ITL as every gap, failures in the attainment, the SLO's spelling and its errors."""

from __future__ import annotations

import math

import pytest

from engine.errors import LabError
from engine.observe.request_metrics import RequestMetrics
from lab.slo import SLO, judge


def request(ttft: float, tpot: float | None, gaps: list[float] | None = None, e2e: float | None = None):
    gaps = gaps if gaps is not None else ([] if tpot is None else [tpot] * 4)
    n = len(gaps) + 1
    return RequestMetrics(ttft, tpot, gaps, e2e if e2e is not None else ttft + sum(gaps), n)


def test_a_request_must_meet_every_objective_to_count():
    slo = SLO(ttft_ms=500, tpot_ms=100)
    runs = [request(400, 80), request(400, 120), request(600, 80), request(500, 100)]  # the last: exactly on
    verdict = judge(slo, runs, seconds=4.0)
    assert verdict.met == 2 and verdict.requests == 4  # passing TTFT does not rescue a missed TPOT
    assert verdict.attainment == 0.5 and verdict.goodput == 0.5 and not verdict.holds
    assert verdict.missed == {"ttft": 1, "tpot": 1}


def test_vllms_goodput_arithmetic():
    """vllm bench serve --goodput ttft:250 tpot:50 counts a request good when every value is at most
    its threshold; a one-token reply has TPOT 0 there (None here) and passes; goodput is the good
    requests over the benchmark's duration."""
    slo = SLO.parse("ttft:250 tpot:50")
    runs = [request(100, 40), request(300, 40), request(200, None)]
    verdict = judge(slo, runs, seconds=4.0)
    assert verdict.met == 2 and verdict.goodput == pytest.approx(0.5)


def test_itl_means_every_gap_and_e2e_the_whole_request():
    slo = SLO(itl_ms=50)
    smooth, stalled = request(100, 20, [20, 20, 20]), request(100, 36.7, [10, 90, 10])  # same TPOT-ish, one stall
    assert slo.misses(smooth) == [] and slo.misses(stalled) == ["itl"]
    assert SLO(e2e_ms=1000).misses(request(900, 50, [50, 60])) == ["e2e"]  # 900 + 110 ms


def test_failures_count_against_attainment_not_goodput():
    verdict = judge(SLO(ttft_ms=500, target=0.75), [request(100, 10)] * 3, seconds=2.0, failed=1)
    assert verdict.requests == 4 and verdict.attainment == 0.75 and verdict.holds
    assert verdict.goodput == 1.5 and verdict.throughput == 1.5 and verdict.finished == 3
    assert math.isnan(judge(SLO(ttft_ms=1), [], 1.0).attainment) and not judge(SLO(ttft_ms=1), [], 1.0).holds


def test_the_limiting_objective_is_the_one_missed_most():
    slo = SLO(ttft_ms=500, tpot_ms=100)
    verdict = judge(slo, [request(900, 120), request(900, 80), request(100, 80)], 1.0)
    assert verdict.limiting == "ttft" and verdict.missed == {"ttft": 2, "tpot": 1}
    assert judge(slo, [request(100, 80)], 1.0).limiting is None


def test_spellings_and_errors():
    assert SLO.parse("ttft=500,tpot=100") == SLO(ttft_ms=500, tpot_ms=100)
    assert SLO.parse("TTFT:500  e2el:2000", target=0.99) == SLO(ttft_ms=500, e2e_ms=2000, target=0.99)
    assert SLO(ttft_ms=500).thresholds == {"ttft": 500}
    for text, message in [
        ("", "at least one threshold"),
        ("latency=5", "name among ttft, tpot, itl, e2e"),
        ("ttft=fast", "not a number"),
        ("ttft=-5", "positive number of ms"),
        ("ttft=nan", "positive number of ms"),
        ("ttft", "name among"),
    ]:
        with pytest.raises(LabError, match=message):
            SLO.parse(text)
    with pytest.raises(LabError, match="target share"):
        SLO(ttft_ms=5, target=1.5)
