"""lab/disaggregation.py's reading of a run, on a run made by hand: results matched to their
requests whatever order they came back in, each hand-off phase on the run's clock, the summary; and
lab/disaggregation_rounds.py's rounds, pairs and calibrated SLO, on planted numbers."""

from __future__ import annotations

import pytest

from lab import disaggregation_rounds as rounds_lab
from lab.disaggregation import SetupRun, Summary, chat_gaps, long_windows, pairs, phases, summarize
from lab.disaggregation_rounds import paired
from lab.pairing import LESS, NOT_SEPARABLE, compare
from lab.remote_client import RemoteRequest, RemoteResult
from lab.remote_load import LoadPlan, LoadRun
from lab.slo import SLO, Goodput
from lab.workload import RequestSpec
from tests.scripted_meter import busy_first


def hand_made_run() -> SetupRun:
    specs = [RequestSpec(0.0, [1, 2], 3, "chat 1"), RequestSpec(0.5, [1] * 8, 2, "long prompt 1")]
    requests = [RemoteRequest("a", 3), RemoteRequest("b", 2)]
    run = LoadRun(LoadPlan("workload", requests, max_requests=2, arrivals=[0.0, 0.5]), start=100.0, end=103.0)
    long = RemoteResult(requests[1], send=100.5, chunk_times=[101.5, 101.6], response_id="L", done=101.6)
    chat = RemoteResult(requests[0], send=100.0, chunk_times=[100.1, 100.2, 101.2], response_id="C", done=101.2)
    run.results = [long, chat]  # not in the workload's order
    wall = 5000.0  # the workers' clock reads 5000 s more than this process's perf_counter
    records = {
        "L": {"p_arrival": wall + 100.6, "p_start": wall + 100.7, "p_end": wall + 101.2, "d_received": wall + 101.3,
              "d_admitted": wall + 101.4, "done": wall + 101.6, "handoff_bytes": 4096},
    }  # fmt: skip
    return SetupRun("pd", specs, run, wall, records)


def test_results_are_matched_to_their_requests_and_phases_read_on_the_runs_clock():
    sr = hand_made_run()
    assert [(s.label, r.response_id) for s, r in pairs(sr)] == [("chat 1", "C"), ("long prompt 1", "L")]
    chat, long = phases(sr)
    assert chat["first"] == pytest.approx(0.1) and "prefill" not in chat
    assert long["prefill"] == (pytest.approx(0.7), pytest.approx(1.2))
    assert long["transfer"] == (pytest.approx(1.2), pytest.approx(1.3))
    assert long["d_queue"] == (pytest.approx(1.3), pytest.approx(1.4)) and long["handoff_bytes"] == 4096
    assert [round(g, 1) for _, g, _ in chat_gaps(sr)] == [100.0, 1000.0]  # the second gap: a prefill's stall
    assert long_windows(sr) == [(pytest.approx(0.5), pytest.approx(1.5))]


def test_the_summary_names_the_worst_stall_and_the_hand_offs_transfer():
    s = summarize(hand_made_run(), SLO(ttft_ms=500, tpot_ms=None, itl_ms=None, target=0.5))
    assert s.chat_gap_ms == pytest.approx(1000.0) and s.chat_tpot_ms == pytest.approx(550.0)
    assert s.chat_ttft_ms == pytest.approx(100.0) and s.long_ttft_ms == pytest.approx(1000.0)
    assert s.transfer_ms == pytest.approx(100.0) and s.handoff_bytes == 4096
    assert s.goodput.met == 1 and s.goodput.requests == 2  # the long prompt missed TTFT ≤ 500 ms


# --- the set-ups compared by the lab's one rule (lab/disaggregation_rounds.py) ---------------------------


def planted(gap: float, goodput_met: int) -> Summary:
    slo = SLO(ttft_ms=500, target=0.5)
    return Summary(40.0, gap, 100.0, 800.0, None, None, Goodput(slo, 5, goodput_met, 2.0, {}, 5))


def test_a_set_up_is_paired_with_the_whole_prompt_server_round_by_round():
    """Chunked's stall is 0.4 × whole's in every round: 0.4 [0.4–0.4], n = 5, shorter; pd's goodput
    swings either way of whole's: not separable."""
    sums = [
        {
            "whole": planted(1000.0 + 50 * i, 3),
            "chunked": planted(400.0 + 20 * i, 3),
            "pd": planted(900.0, 2 + 2 * (i % 2)),
        }
        for i in range(5)
    ]
    gap = paired(sums, "chunked", "chat_gap_ms")
    assert (round(gap.median, 6), gap.n, compare(gap)) == (0.4, 5, LESS)
    good = paired(sums, "pd", "goodput")
    assert good.n == 5 and compare(good) == NOT_SEPARABLE
    assert paired(sums[:1], "chunked", "chat_gap_ms").judgeable is False  # one round: too few pairs
    none_met = [{"whole": planted(1.0, 0), "pd": planted(1.0, 3)}]
    assert paired(none_met, "pd", "goodput") is None  # the base met nothing: no ratio, never "None" shown


def test_rounds_alternate_their_order_and_a_busy_one_is_run_again(monkeypatch):
    order = []
    monkeypatch.setattr(rounds_lab, "run_setup", lambda name, url, specs, tok, model: order.append(name) or name)
    monkeypatch.setattr(rounds_lab, "LoadMeter", busy_first(1))
    landed = []
    urls = {"whole": "w", "chunked": "c", "pd": "p"}
    got = rounds_lab.run_rounds(urls, [], None, "m", 2, on_round=lambda r: landed.append(len(r.rounds)))
    assert got.retaken == 1 and len(got.rounds) == 2 and landed == [1, 2]
    assert order[:3] == ["whole", "chunked", "pd"] and order[3:6] == ["pd", "chunked", "whole"]  # the busy one
    assert got.rounds[0] == {"whole": "whole", "chunked": "chunked", "pd": "pd"} and not got.load.busy


def test_a_calibrated_slo_is_a_multiple_of_the_solo_latencies(monkeypatch):
    runs = iter([hand_made_run(), hand_made_run()])
    monkeypatch.setattr(rounds_lab, "run_setup", lambda *a: next(runs))
    specs = [RequestSpec(0.0, [1, 2], 3, "chat 1"), RequestSpec(0.5, [1] * 8, 2, "long prompt 1")]
    c = rounds_lab.calibrate("url", specs, None, "m")
    first = hand_made_run().run.timed[0].metrics  # the hand-made run's first timed request stands in for both
    assert c.solo_ttft_ms == pytest.approx(first.ttft_ms) and c.slo.ttft_ms == round(4 * first.ttft_ms)
    assert c.slo.tpot_ms == pytest.approx(round(2 * (first.tpot_ms or 0.0), 1))
