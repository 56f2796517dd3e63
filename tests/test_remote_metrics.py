"""lab/remote_metrics.py: Prometheus text parsed into gauges and histograms, quantiles read as
Prometheus reads them, and a live watch of our own server during a load, whose histograms over the
run count exactly the requests the load finished. A server without /metrics is a note, not an error."""

from __future__ import annotations

import asyncio

import pytest

from lab.remote_client import Endpoint, RemoteRequest
from lab.remote_load import LoadPlan, run_load
from lab.remote_metrics import Histogram, metrics_url, parse, watch
from tests.fault_server import fault_server

TEXT = """# TYPE vllm:num_requests_running gauge
vllm:num_requests_running{model_name="a"} 3.0
vllm:num_requests_running{model_name="b"} 1.0
# TYPE vllm:time_to_first_token_seconds histogram
vllm:time_to_first_token_seconds_bucket{le="0.1",model_name="a"} 2.0
vllm:time_to_first_token_seconds_bucket{le="0.5",model_name="a"} 6.0
vllm:time_to_first_token_seconds_bucket{le="+Inf",model_name="a"} 10.0
vllm:time_to_first_token_seconds_count{model_name="a"} 10.0
vllm:time_to_first_token_seconds_sum{model_name="a"} 4.2
"""


def test_prometheus_text_becomes_gauges_and_histograms():
    snap = parse(TEXT, 0.0)
    assert snap.kind() == "vllm" and snap.gauges["vllm:num_requests_running"] == 4.0  # summed over labels
    h = snap.histograms["vllm:time_to_first_token_seconds"]
    assert (h.count, h.total) == (10.0, 4.2) and h.buckets[-1][0] == float("inf")
    assert h.quantile(0.2) == pytest.approx(0.1)  # the 2nd of 10 is the top of the first bucket
    assert h.quantile(0.4) == pytest.approx(0.1 + 0.4 * 0.5)  # halfway through (0.1, 0.5]
    assert h.quantile(0.9) == pytest.approx(0.5)  # in +Inf: the last finite bound


def test_a_histogram_over_a_run_is_the_difference():
    later = Histogram([(0.1, 5.0), (float("inf"), 9.0)], 9.0, 3.0)
    earlier = Histogram([(0.1, 2.0), (float("inf"), 4.0)], 4.0, 1.0)
    run = later.minus(earlier)
    assert run.buckets == [(0.1, 3.0), (float("inf"), 5.0)] and (run.count, run.total) == (5.0, 2.0)
    assert Histogram([], 0.0, 0.0).quantile(0.5) is None


def test_a_watch_of_our_server_during_a_load(tiny_server):
    base, model = tiny_server
    endpoint = Endpoint(base)

    async def scenario():
        done = asyncio.Event()
        watcher = asyncio.create_task(watch(endpoint, done, interval_s=0.1))
        plan = LoadPlan(
            "concurrent",
            [RemoteRequest("Hello there", 40, chat=False, ignore_eos=True)],
            max_requests=6,
            concurrency=3,
        )
        run = await run_load(endpoint, model, plan)
        done.set()
        return run, await watcher

    run, seen = asyncio.run(scenario())
    assert seen.note is None and seen.kind == "vllm" and len(seen.snapshots) >= 2
    ttft = seen.over_run("ttft")
    assert ttft.count == len(run.finished) == 6
    assert 0 < ttft.quantile(0.5) <= ttft.quantile(0.99)
    assert seen.over_run("itl").count == 6 * 39  # every gap between 40 tokens
    assert all(0 <= v <= 1 for _, v in seen.series("kv_usage"))
    assert max(v for _, v in seen.series("running")) >= 1


def test_a_server_without_metrics_is_a_note():
    with fault_server() as base:
        endpoint = Endpoint(f"{base}/quirks")
        event = asyncio.Event()
        event.set()
        seen = asyncio.run(watch(endpoint, event))
    assert seen.snapshots == [] and "publishes no Prometheus metrics" in seen.note
    assert metrics_url(endpoint).endswith("/quirks/metrics")
