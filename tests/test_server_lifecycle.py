"""`python -m engine serve` at the edges of a request's life and of its own: clients that stall with
half-sent headers or bodies (dropped with a 408 after a bounded time, while the server answers
others), a request that is not HTTP at all (an OpenAI-shaped 400), clients that leave (their
tokens still counted), SIGTERM with a request in flight (it ends with an error, and the process
exits within its deadline), and an engine loop that dies (/health 503, then exit code 1)."""

from __future__ import annotations

import json
import socket
import sys
import threading
import time
import urllib.error
import urllib.request

import pytest
from openai import APIError, OpenAI

from engine.entrypoints.server.connection import BODY_IDLE_S, HEADER_TIMEOUT_S
from engine.entrypoints.server.http_server import SHUTDOWN_GRACE_S
from tests.conftest import ARTIFACTS
from tests.server_support import metric

GENERATED = ("vllm:generation_tokens", "vllm:generation_tokens_total")
RUNNING = ("vllm:num_requests_running", "vllm:num_requests_running")


@pytest.fixture(scope="module")
def long_server(servers, tiny_dirs):
    """The tiny model with a 4,096-token context (a 3,000-token stream lasts seconds): (URL, model)."""
    with servers.engine(str(tiny_dirs["llama-4k"]), "engine-serve-lifecycle.log") as url:
        yield url, tiny_dirs["llama-4k"].name


def connect(url: str) -> socket.socket:
    host, port = url.removeprefix("http://").split(":")
    return socket.create_connection((host, int(port)), timeout=30)


def read_all(sock: socket.socket, deadline: float) -> bytes:
    """Everything the server sends until it closes the connection (socket.timeout past `deadline`)."""
    data = b""
    sock.settimeout(max(0.1, deadline - time.monotonic()))
    while chunk := sock.recv(65536):
        data += chunk
    return data


def completion(model: str, **fields) -> bytes:
    return json.dumps({"model": model, "prompt": "Hello", "ignore_eos": True, **fields}).encode()


def request_head(body: bytes) -> bytes:
    return (
        b"POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n"
        % (len(body))
    )


def test_a_negative_content_length_gets_an_openai_shaped_400(long_server):
    url, _ = long_server
    with connect(url) as s:
        s.sendall(b"POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n")
        reply = read_all(s, time.monotonic() + 10)
    head, _, body = reply.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 400") and b"content-type: application/json" in head.lower(), head
    error = json.loads(body)["error"]
    assert error["type"] == "invalid_request_error" and "not valid HTTP/1.1" in error["message"]


def test_slow_clients_are_dropped_and_never_stop_the_server(long_server):
    """250 connections, half stopping mid-headers and half mid-body: the server answers others
    meanwhile, and answers each of them 408 and closes it within its deadline (uvicorn alone kept
    them open for good)."""
    url, model = long_server
    body = completion(model, max_tokens=2)
    socks, opened = [], time.monotonic()
    for i in range(250):
        s = connect(url)
        s.sendall(request_head(body) + body[:10] if i % 2 else b"POST /v1/completions HTTP/1.1\r\nHost: x\r\nConte")
        socks.append(s)
    for _ in range(3):
        start = time.perf_counter()
        assert urllib.request.urlopen(f"{url}/health", timeout=10).status == 200
        assert time.perf_counter() - start < 1.0
    client = OpenAI(base_url=f"{url}/v1", api_key="unused", max_retries=0, timeout=60)
    assert client.completions.create(model=model, prompt="Hi", max_tokens=2).choices
    deadline = opened + max(HEADER_TIMEOUT_S, BODY_IDLE_S) + 10
    for s in socks:
        reply = read_all(s, deadline)
        s.close()
        assert reply.startswith(b"HTTP/1.1 408") and b'"code": 408' in reply, reply[:200]
    assert time.monotonic() - opened < deadline - opened


def test_the_tokens_of_requests_that_end_early_are_counted_and_a_half_closed_client_is_let_go(long_server):
    """A stream whose client leaves after five chunks: the engine drops it and the tokens it made are
    in vllm:generation_tokens_total (vLLM counts every token generated). A client that half-closes
    after its request is taken as gone (TCP cannot tell it from a closed one): its request is
    dropped at once, quietly."""
    url, model = long_server
    before = metric(url, *GENERATED)
    with connect(url) as s:
        body = completion(model, max_tokens=3000, stream=True)
        s.sendall(request_head(body) + body)
        seen = b""
        while seen.count(b"data: ") < 5:
            seen += s.recv(65536)
    wait_until_idle(url)
    counted = metric(url, *GENERATED) - before
    assert 5 <= counted < 3000, counted
    log = ARTIFACTS / "engine-serve-lifecycle.log"
    tracebacks = log.read_text().count("Traceback")
    with connect(url) as s:
        body = completion(model, max_tokens=3000)
        s.sendall(request_head(body) + body)
        s.shutdown(socket.SHUT_WR)
        assert read_all(s, time.monotonic() + 10) == b""
    wait_until_idle(url)
    assert log.read_text().count("Traceback") == tracebacks
    assert urllib.request.urlopen(f"{url}/health", timeout=10).status == 200


def wait_until_idle(url: str, within_s: float = 5.0) -> None:
    deadline = time.monotonic() + within_s
    while metric(url, *RUNNING) > 0:
        assert time.monotonic() < deadline, "the engine kept working for a client that had gone"
        time.sleep(0.05)


def test_sigterm_ends_the_requests_in_flight_with_an_error_and_exits_within_its_deadline(servers, tiny_dirs):
    model = tiny_dirs["llama-4k"]
    with servers.held_engine(str(model), "engine-serve-sigterm.log") as (url, proc):
        client = OpenAI(base_url=f"{url}/v1", api_key="unused", max_retries=0, timeout=60)
        whole: list = []
        body = {"model": model.name, "prompt": "Hi", "max_tokens": 3000, "ignore_eos": True}
        threading.Thread(target=lambda: whole.append(post(url, body)), daemon=True).start()
        args = dict(model=model.name, prompt="Hi", max_tokens=3000, extra_body={"ignore_eos": True})
        stream = iter(client.completions.create(**args, stream=True))
        next(stream)
        proc.terminate()  # ours, by its handle
        stopped = time.monotonic()
        with pytest.raises(APIError, match="shutting down"):
            for _ in stream:
                pass
        assert time.monotonic() - stopped < 3
        proc.wait(timeout=SHUTDOWN_GRACE_S + 10)
        assert time.monotonic() - stopped < SHUTDOWN_GRACE_S + 5
        status, reply = whole[0]
        assert status == 503 and "shutting down" in reply["error"]["message"]
        assert reply["error"]["type"] == "server_error"


def post(url: str, body: dict) -> tuple[int, dict]:
    req = urllib.request.Request(
        f"{url}/v1/completions", json.dumps(body).encode(), {"content-type": "application/json"}
    )
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            return r.status, json.load(r)
    except urllib.error.HTTPError as e:
        return e.code, json.load(e)


# The server with a bug planted in its engine loop: it raises once a request is in (outside any step).
PLANTED = """
import sys
from engine.entrypoints.server.loop import EngineLoop
admit = EngineLoop._admit_parked
def broken(self):
    if self.engine.has_unfinished:
        raise KeyError("a planted bug in the engine loop")
    return admit(self)
EngineLoop._admit_parked = broken
from engine.entrypoints.cli import main
sys.exit(main(["serve", "--model", sys.argv[1], "--port", sys.argv[2]]))
"""


def test_an_engine_loop_that_dies_turns_health_503_and_exits_non_zero(servers, tiny_dirs):
    """Never a live process that answers nothing: the request gets a 503 naming the failure, /health
    is never ok again, and the process exits with 1 and one line, for a supervisor to restart it."""
    argv = [sys.executable, "-c", PLANTED, str(tiny_dirs["llama"]), "{port}"]
    with servers.held_command(argv, "/health", "engine-serve-dies.log") as (port, proc):
        url = f"http://127.0.0.1:{port}"
        status, reply = post(url, {"prompt": "Hi", "max_tokens": 4})
        assert status == 503 and "The engine stopped (KeyError)" in reply["error"]["message"], reply
        deadline = time.monotonic() + 20
        while proc.poll() is None:
            assert time.monotonic() < deadline, "the process outlived its engine loop"
            try:
                urllib.request.urlopen(f"{url}/health", timeout=2)
                raise AssertionError("/health said ok after the engine loop died")
            except urllib.error.HTTPError as e:
                assert e.code == 503
            except OSError:
                pass  # no longer listening
            time.sleep(0.1)
        assert proc.returncode == 1
    last = (ARTIFACTS / "engine-serve-dies.log").read_text().strip().splitlines()[-1]
    assert last.startswith("error: the engine loop stopped (KeyError"), last
