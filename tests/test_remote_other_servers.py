"""What servers we did not write do, played by a small local server (tests/fault_server.py): a reply
with no tokens (llama.cpp's server answers some prompts so), streams cut when a newer request arrives
(llama-cpp-python's --interrupt_requests), llama.cpp's metric names and metrics with names the lab
does not know; and the client's first-use costs kept out of the first request's TTFT."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import textwrap

import pytest

from app_pages.remote.figures import gantt_figure
from app_pages.remote.outcome import outcome_lines
from lab.load_capacity import judge_run
from lab.remote_client import Endpoint, RemoteRequest, stream_one
from lab.remote_load import LoadPlan, run_load
from lab.remote_metrics import probe, watch
from lab.slo import SLO
from tests.conftest import ROOT
from tests.fault_server import fault_server


@pytest.fixture(scope="module")
def faulty():
    with fault_server() as base:
        yield base


def load(base: str, mode: str, n: int, concurrency: int = 1) -> object:
    plan = LoadPlan(
        "concurrent" if concurrency > 1 else "synchronous",
        [RemoteRequest("x", 20)],
        max_requests=n,
        concurrency=concurrency,
    )
    return asyncio.run(run_load(Endpoint(f"{base}/{mode}", timeout_s=10), "m", plan))


def test_an_empty_reply_is_a_finished_request_with_nothing_to_time(faulty):
    r = asyncio.run(stream_one(Endpoint(f"{faulty}/empty"), "m", RemoteRequest("x")))
    assert r.error is None and r.finish_reason == "stop" and r.num_output_tokens == 0
    assert r.empty_reply and r.metrics is None


def test_a_load_of_empty_replies_finishes_them_and_says_so(faulty):
    run = load(faulty, "empty", 3)
    s = run.summary()
    assert (s["finished"], s["empty"], s["failed"]) == (3, 3, 0) and s["ttft_ms"]["n"] == 0
    verdict = judge_run(SLO(ttft_ms=1000), run)
    assert verdict.requests == 3 and verdict.met == 0  # no token served: none met the SLO
    lines = outcome_lines(run, "en")
    assert lines[0].tone == "ok" and "3 of 3 requests finished" in lines[0].text
    assert any(ln.tone == "info" and "answered with 0 tokens (finish reason: stop)" in ln.text for ln in lines)


def test_streams_cut_by_a_newer_request_are_failures_with_their_cause(faulty):
    run = load(faulty, "interrupt", 4, concurrency=4)
    s = run.summary()
    assert s["failed"] >= 3 and s["finished"] + s["failed"] == 4, [r.error for r in run.results]
    first, failures = outcome_lines(run, "en")[:2]
    assert first.tone == ("error" if not s["finished"] else "warn")
    assert failures.text == f"{s['failed']} of 4 requests failed:"
    assert sum(int(item.split(" × ")[0]) for item in failures.items) == s["failed"]  # each reason once, counted
    assert "--interrupt_requests false" in failures.note
    bars = {trace.name: trace for trace in gantt_figure(run, "en").data}
    failed = [i for i, r in enumerate(run.results) if r.error]
    assert all(bars["failed (sent → error)"].x[i] is not None for i in failed)
    assert all(bars["sent → first chunk (queue + prefill)"].x[i] is None for i in failed)


def test_one_request_at_a_time_gets_no_interruption_hint(faulty):
    run = load(faulty, "interrupt", 2)
    assert run.summary()["failed"] == 0 and outcome_lines(run, "en")[0].tone == "ok"


def test_llama_cpp_metric_names_are_read(faulty):
    endpoint = Endpoint(f"{faulty}/llamacpp")
    assert asyncio.run(probe(endpoint)) == ("llamacpp", "llamacpp")

    async def watched():
        done = asyncio.Event()
        done.set()
        return await watch(endpoint, done)

    seen = asyncio.run(watched())
    assert seen.kind == "llamacpp"
    assert [v for _, v in seen.series("running")] == [1.0] and [v for _, v in seen.series("waiting")] == [2.0]
    assert [v for _, v in seen.series("kv_usage")] == [0.25]


def test_metrics_with_no_names_we_know_are_listed(faulty):
    kind, note = asyncio.run(probe(Endpoint(f"{faulty}/strange")))
    assert kind is None
    assert "has 6 metrics, none of them with names the lab knows (shop_a, shop_b, shop_c, shop_d, …)" in note
    kind, note = asyncio.run(probe(Endpoint(f"{faulty}/quirks")))
    assert kind is None and note.endswith("/quirks/metrics answered 404: this server publishes no Prometheus metrics")


FIRST_TTFT = textwrap.dedent(
    """
    import asyncio, json, sys
    from lab.remote_client import Endpoint, RemoteRequest
    from lab.remote_load import LoadPlan, run_load
    plan = LoadPlan("synchronous", [RemoteRequest("x", 8)], max_requests=5)
    run = asyncio.run(run_load(Endpoint(sys.argv[1]), "m", plan))
    print(json.dumps([r.metrics.ttft_ms for r in run.results]))
    """
)


def test_the_first_request_of_a_fresh_process_is_timed_like_the_rest(faulty):
    """The openai client builds its resources and chunk types on first use, and opens its first
    connection: in a fresh process that cost 50-200 ms inside request #1's TTFT before the client
    was warmed ahead of the clock (the server here answers within a few ms)."""
    done = subprocess.run(
        [sys.executable, "-c", FIRST_TTFT, f"{faulty}/quirks"], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
    first, *rest = json.loads(done.stdout)
    later = sorted(rest)[len(rest) // 2]
    assert first <= 2 * later + 15, (first, rest)


def test_a_stream_without_a_finish_names_the_url_as_everywhere_else(faulty):
    r = asyncio.run(stream_one(Endpoint(f"{faulty}/silent"), "m", RemoteRequest("x")))  # headers, then the end
    assert r.error == (
        f"The stream from {faulty}/silent/v1 was cut after 0 chunks: it ended without a finish reason."
    ), r.error


def test_llama_cpp_pythons_own_server_as_the_page_reads_it(servers):
    """The real thing where it is installed: `python -m llama_cpp.server` on the bundled GGUF, one
    prompt timed by the page's client, and a concurrent load whose streams its default
    --interrupt_requests cuts, named with that cause (all finish once it is off)."""
    pytest.importorskip(
        "llama_cpp.server",
        reason="llama-cpp-python (the optional `peers` extra) is not installed; it builds from source, "
        "~25 min on 2 cores: .venv/bin/pip install -e '.[peers]'",
    )
    from engine.loader.model_loader import bundled_gguf_path

    for interrupt, expect_cut in (("true", True), ("false", False)):
        argv = [sys.executable, "-m", "llama_cpp.server", "--model", str(bundled_gguf_path()), "--host", "127.0.0.1"]
        argv += ["--port", "{port}", "--interrupt_requests", interrupt, "--n_ctx", "2048"]
        with servers.command(argv, "/v1/models", f"llama_cpp_{interrupt}.log") as port:
            base = f"http://127.0.0.1:{port}"
            one = asyncio.run(stream_one(Endpoint(base), "m", RemoteRequest("Name three rivers.", 8)))
            assert one.error is None and (one.metrics is not None or one.empty_reply), one.error
            plan = LoadPlan("concurrent", [RemoteRequest("Count to ten.", 16)], max_requests=4, concurrency=4)
            run = asyncio.run(run_load(Endpoint(base, timeout_s=60), "m", plan))
            failures = [ln for ln in outcome_lines(run, "en") if ln.items]
            if expect_cut and run.summary()["failed"]:
                assert "--interrupt_requests false" in failures[0].note
            if not expect_cut:
                assert run.summary()["failed"] == 0, [r.error for r in run.results]
