"""lab/remote_load.py against our own server on loopback (a tiny model, so the load is quick): each
mode sends what it says, a stop cancels every request in flight and the server frees them, and the
summary's percentiles come from the finished requests. Bounded in count and time."""

from __future__ import annotations

import asyncio
import time
import urllib.request

import pytest
from prometheus_client.parser import text_string_to_metric_families

from lab.remote_client import Endpoint, RemoteRequest
from lab.remote_load import LoadPlan, run_load, sweep, workload_plan
from lab.workload import preset

REQS = [RemoteRequest(p, max_tokens=6, chat=False, ignore_eos=True) for p in ("Hello", "The sky", "One two")]


@pytest.fixture(scope="module")
def served(tiny_server):
    return tiny_server


def load(served, plan, stop=None):
    base, model = served
    return asyncio.run(run_load(Endpoint(base, timeout_s=30), model, plan, stop))


def running(base: str) -> float:
    with urllib.request.urlopen(f"{base}/metrics") as r:
        fams = {f.name: f for f in text_string_to_metric_families(r.read().decode())}
    return fams["vllm:num_requests_running"].samples[0].value


@pytest.mark.parametrize("mode", ["synchronous", "concurrent", "constant", "poisson"])
def test_each_mode_runs_its_requests(served, mode):
    run = load(served, LoadPlan(mode, REQS, max_requests=6, concurrency=3, rate=20.0, seed=1))
    s = run.summary()
    assert (s["requests"], s["finished"], s["failed"]) == (6, 6, 0) and not run.stopped
    assert all(r.num_output_tokens == 6 for r in run.results)
    assert s["ttft_ms"]["p50"] > 0 and s["e2e_ms"]["p99"] >= s["e2e_ms"]["p50"] and s["output_tokens_per_s"] > 0
    if mode == "synchronous":  # one at a time: each is sent after the previous one ended
        assert all(b.send >= a.done for a, b in zip(run.results, run.results[1:]))


def test_concurrency_holds_that_many_in_flight(served):
    run = load(served, LoadPlan("concurrent", REQS, max_requests=8, concurrency=4))
    events = sorted([(r.send, 1) for r in run.results] + [(r.done, -1) for r in run.results])
    level, peak = 0, 0
    for _, step in events:
        level += step
        peak = max(peak, level)
    assert peak == 4


def test_rate_schedules_are_what_they_say():
    constant = LoadPlan("constant", REQS, max_requests=5, rate=2.0).send_times()
    assert constant == [0.0, 0.5, 1.0, 1.5, 2.0]
    a = LoadPlan("poisson", REQS, max_requests=200, rate=10.0, seed=7).send_times()
    assert a == LoadPlan("poisson", REQS, max_requests=200, rate=10.0, seed=7).send_times()  # seeded
    assert 0.07 < (a[-1] / 199) < 0.13  # mean gap 1/rate


def test_a_stop_cancels_every_request_in_flight(served):
    long = [RemoteRequest("Hello", max_tokens=500, chat=False, ignore_eos=True)]  # the tiny model's context: 512
    started = time.perf_counter()
    run = load(
        served,
        LoadPlan("concurrent", long, max_requests=4, concurrency=4),
        stop=lambda: time.perf_counter() - started > 0.3,
    )
    assert run.stopped and time.perf_counter() - started < 10
    assert all(r.error == "cancelled" for r in run.results)
    deadline = time.monotonic() + 20
    while running(served[0]) > 0:
        assert time.monotonic() < deadline, "the server kept the cancelled requests"
        time.sleep(0.2)


def test_the_time_limit_stops_a_run(served):
    run = load(served, LoadPlan("constant", REQS, max_requests=1000, rate=2.0, max_duration_s=1.5))
    assert run.stopped and len(run.results) < 10


def test_a_serving_workload_replays_at_its_arrival_times(served, tiny):
    specs = preset("shared-prefix", tiny.tokenizer, num_requests=4, system_tokens=16, output=4)
    plan = workload_plan(tiny.tokenizer, specs)
    run = load(served, plan)
    assert run.summary()["finished"] == 4
    offsets = [r.send - run.start for r in run.results]
    assert all(o >= s.arrival_s - 0.01 for o, s in zip(offsets, specs))


def test_a_sweep_reports_throughput_per_offered_rate(served):
    base, model = served
    runs = asyncio.run(sweep(Endpoint(base), model, REQS, rates=[5.0, 10.0], per_rate=4))
    assert [r.summary()["offered_rate"] for r in runs] == [5.0, 10.0]
    assert all(r.summary()["finished"] == 4 for r in runs)


@pytest.mark.parametrize(
    "kwargs, expected",
    [
        (dict(mode="bursty"), "Unknown load mode"),
        (dict(concurrency=0), "Concurrency"),
        (dict(rate=0), "rate"),
        (dict(max_requests=0), "Requests"),
        (dict(mode="workload"), "arrival time"),
    ],
)
def test_bad_plans_say_why(kwargs, expected):
    with pytest.raises(ValueError, match=expected):
        LoadPlan(**({"mode": "concurrent", "requests": REQS} | kwargs))
