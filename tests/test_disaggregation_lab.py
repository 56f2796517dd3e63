"""lab/disaggregation.py's reading of a run, on a run made by hand: results matched to their
requests whatever order they came back in, each hand-off phase on the run's clock, the summary."""

from __future__ import annotations

import pytest

from lab.disaggregation import SetupRun, chat_gaps, long_windows, pairs, phases, summarize
from lab.remote_client import RemoteRequest, RemoteResult
from lab.remote_load import LoadPlan, LoadRun
from lab.slo import SLO
from lab.workload import RequestSpec


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
