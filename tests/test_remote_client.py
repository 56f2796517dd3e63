"""lab/remote_client.py against our own server (real HTTP, the bundled model) and against a small
server that misbehaves in each way a real one can: every failure is one clear sentence, within the
timeout the user set, and what arrived before it is kept."""

from __future__ import annotations

import asyncio
import time

import pytest

from engine.entrypoints.launch import free_port
from lab.remote_client import Endpoint, RemoteError, RemoteRequest, list_models, stream_one
from lab.remote_metrics import server_request_view
from tests.fault_server import fault_server


@pytest.fixture(scope="module")
def served(bundled_server):
    return bundled_server


@pytest.fixture(scope="module")
def faulty():
    with fault_server() as base:
        yield base


def run(coro):
    return asyncio.run(coro)


def test_endpoint_is_checked_and_never_shows_its_key():
    e = Endpoint("http://127.0.0.1:8000/", api_key="sk-secret")
    assert e.base_url == "http://127.0.0.1:8000/v1" and "sk-secret" not in repr(e)
    with pytest.raises(ValueError, match="http:// or https://"):
        Endpoint("ftp://x")
    with pytest.raises(ValueError, match="timeout"):
        Endpoint("http://x", timeout_s=0)


@pytest.mark.parametrize("chat", [True, False])
def test_a_stream_from_our_server_is_timed_per_chunk(served, chat):
    e = Endpoint(served)
    (model,) = run(list_models(e))
    r = run(stream_one(e, model, RemoteRequest("The capital of France is", max_tokens=10, chat=chat, ignore_eos=True)))
    assert r.error is None and r.finish_reason == "length" and r.text
    assert r.usage_output_tokens == 10 and not r.tokens_counted_from_chunks
    assert r.send < r.chunk_times[0] <= r.chunk_times[-1] <= r.done
    m = r.metrics
    assert m.num_output_tokens == 10 and m.ttft_ms > 0 and len(m.itl_ms) == len(r.chunk_times) - 1
    assert m.tpot_ms == pytest.approx((r.chunk_times[-1] - r.chunk_times[0]) * 1e3 / 9)


def test_transformers_serve_quirks(faulty):
    """No [DONE], usage on the finish chunk, a role-only first delta: read right."""
    r = run(stream_one(Endpoint(f"{faulty}/quirks"), "m", RemoteRequest("x")))
    assert r.error is None and r.text == "One two three" and len(r.chunk_times) == 3
    assert (r.usage_prompt_tokens, r.usage_output_tokens, r.finish_reason) == (4, 5, "stop")
    assert r.chunks_hold_several_tokens and r.metrics.num_output_tokens == 5


def test_a_reply_that_stopped_early_although_asked_to_ignore_eos_is_seen(faulty):
    """The quirks server ends every reply at a stop after 5 tokens, whatever the request asked."""
    e = Endpoint(f"{faulty}/quirks")
    asked = run(stream_one(e, "m", RemoteRequest("x", max_tokens=64, ignore_eos=True)))
    assert asked.ignored_ignore_eos
    assert not run(stream_one(e, "m", RemoteRequest("x", max_tokens=64, ignore_eos=False))).ignored_ignore_eos
    assert not run(stream_one(e, "m", RemoteRequest("x", max_tokens=5, ignore_eos=True))).ignored_ignore_eos


def test_without_usage_the_chunks_are_counted_and_said_so(faulty):
    r = run(stream_one(Endpoint(f"{faulty}/nousage"), "m", RemoteRequest("x")))
    assert r.error is None and r.text == "a b c d" and r.tokens_counted_from_chunks
    assert r.num_output_tokens == 2 and r.finish_reason == "length"


@pytest.mark.parametrize(
    "mode, expected",
    [
        ("html404", "404 Not Found"),
        ("error500", "answered 500: "),
        ("auth", "check the API key"),
        ("cut", "was cut after 2 chunks"),
        ("huge", "characters; the lab stopped reading"),
    ],
)
def test_each_failure_is_one_sentence(faulty, mode, expected):
    r = run(stream_one(Endpoint(f"{faulty}/{mode}", timeout_s=5), "m", RemoteRequest("x")))
    assert r.error and expected in r.error, r.error
    assert len(r.error) < 500 and "<html" not in r.error.lower()
    if mode == "cut":
        assert r.text == "Hello world"  # what arrived is kept


def test_a_stall_after_headers_ends_at_the_timeout(faulty):
    start = time.perf_counter()
    r = run(stream_one(Endpoint(f"{faulty}/stall", timeout_s=1), "m", RemoteRequest("x")))
    assert "did not answer within 1 s" in r.error and time.perf_counter() - start < 8


def test_a_closed_port_and_a_non_json_models_list(faulty):
    closed = Endpoint(f"http://127.0.0.1:{free_port()}", timeout_s=3)
    with pytest.raises(RemoteError, match="Cannot connect to"):
        run(list_models(closed))
    with pytest.raises(RemoteError, match="not an OpenAI-compatible model list"):
        run(list_models(Endpoint(f"{faulty}/notjson", timeout_s=3)))


def test_tls_failures_say_what_to_check(faulty):
    """https:// to a plain-HTTP server, and a server whose certificate is self-signed."""
    plain = Endpoint(faulty.replace("http://", "https://") + "/quirks", timeout_s=5)
    with pytest.raises(RemoteError, match="TLS handshake .* write http:// instead of https://"):
        run(list_models(plain))
    r = run(stream_one(plain, "m", RemoteRequest("x")))
    assert r.error and "TLS handshake" in r.error
    with fault_server(tls=True) as secure:
        with pytest.raises(RemoteError, match="certificate of https://127.0.0.1.* did not verify.*SSL_CERT_FILE"):
            run(list_models(Endpoint(secure + "/quirks", timeout_s=5)))


def test_the_clients_timing_matches_our_servers_own_view(served):
    """Same request, two clocks: the server's (arrival = request parsed, from its engine's trace) and
    the client's (send and chunk arrival). Token counts are equal; the client's TTFT is the server's
    plus loopback HTTP; TPOT agrees within a few ms (both ends shift by about the same delay)."""
    e = Endpoint(served)
    (model,) = run(list_models(e))
    for chat in (True, False):
        r = run(
            stream_one(e, model, RemoteRequest("Tell me about the sea.", max_tokens=12, chat=chat, ignore_eos=True))
        )
        view = run(server_request_view(e, r.response_id))
        assert r.error is None and view is not None, r.error
        m = r.metrics
        assert view["output_tokens"] == r.num_output_tokens == 12 and view["prompt_tokens"] == r.usage_prompt_tokens
        assert view["ttft_ms"] <= m.ttft_ms < view["ttft_ms"] + 500
        assert view["e2e_ms"] <= m.e2e_ms < view["e2e_ms"] + 500
        assert abs(m.tpot_ms - view["tpot_ms"]) < 0.25 * view["tpot_ms"] + 5
        assert view["queue_ms"] + view["prefill_ms"] == pytest.approx(view["ttft_ms"], abs=0.01)
    assert run(server_request_view(e, "chatcmpl-unknown")) is None


def test_a_server_without_our_view_has_none(faulty):
    assert run(server_request_view(Endpoint(f"{faulty}/quirks"), "x")) is None
