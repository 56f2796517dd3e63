"""The disaggregated router against what clients and strangers send, as careful as one server: a body
over the limit refused before it is read, every error in OpenAI's shape (its own 404/405 and bad
JSON included, its 5xx typed as server errors), one parse of each request (a lone surrogate in an
ignored field cannot make router and worker read it two ways), a whole request cancelled when its
client leaves, and workers that take hand-offs from their router only."""

from __future__ import annotations

import json
import socket
import time
import urllib.error
import urllib.request

import pytest

from engine.entrypoints.launch import child_env, free_port
from engine.entrypoints.server.defaults import HANDOFF_TOKEN_ENV
from tests.server_support import metric

PROMPT = "The quick brown fox jumps over the lazy dog"
RUNNING = ("vllm:num_requests_running", "vllm:num_requests_running")


@pytest.fixture(scope="module")
def pair(servers, tiny_dirs):
    """A prefill worker, a decode worker and their router on the tiny model with a 4,096-token context
    (a long answer lasts seconds): (prefill URL, decode URL, router URL, model name)."""
    model = str(tiny_dirs["llama-4k"])
    with servers.engine(model, "engine-serve-prefill-r.log", "--role", "prefill") as p:
        with servers.engine(model, "engine-serve-decode-r.log", "--role", "decode") as d:
            with servers.router(p, d, "engine-router-r.log", "--max-body-bytes", "65536") as r:
                yield p, d, r, tiny_dirs["llama-4k"].name


def send(url: str, path: str, body: bytes, headers: dict | None = None, method: str = "POST"):
    """(status, headers, body bytes) of one request."""
    req = urllib.request.Request(
        f"{url}{path}", body, {"content-type": "application/json", **(headers or {})}, method=method
    )
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            return r.status, r.headers, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.headers, e.read()


def is_openai_error(data: bytes, kind: str) -> bool:
    err = json.loads(data).get("error", {})
    return set(err) == {"message", "type", "param", "code"} and err["type"] == kind and bool(err["message"])


@pytest.mark.parametrize(
    "method, path, body, status",
    [
        ("GET", "/v1/nothing", None, 404),
        ("GET", "/v1/completions", None, 405),
        ("POST", "/v1/completions", b"{not json", 400),
        ("POST", "/v1/completions", json.dumps({"prompt": "Hi", "n": 2}).encode(), 400),
    ],
)
def test_the_router_s_own_errors_are_in_openai_s_shape(pair, method, path, body, status):
    _, _, url, _ = pair
    code, headers, data = send(url, path, body, method=method)
    assert code == status and headers["content-type"] == "application/json", data
    assert is_openai_error(data, "not_found_error" if status == 404 else "invalid_request_error")
    assert b"detail" not in data
    assert headers["x-request-id"].startswith("req-")


def test_a_worker_that_is_down_is_a_server_error(servers, pair):
    p, _, _, model = pair
    gone = f"http://127.0.0.1:{free_port()}"  # nothing listens there
    with servers.router(p, gone, "engine-router-down-r.log") as url:
        code, _, data = send(url, "/v1/completions", json.dumps({"model": model, "prompt": "Hi"}).encode())
        assert code == 502 and is_openai_error(data, "server_error"), data
    with servers.router(gone, p, "engine-router-down-r2.log") as url:
        code, _, data = send(url, "/v1/completions", json.dumps({"model": model, "prompt": "Hi"}).encode())
        assert code == 503 and is_openai_error(data, "server_error"), data


def test_a_body_over_the_limit_is_refused_before_it_is_read(pair):
    """A client that announces 600 MB is answered 413 at once: the router used to read the whole body
    before its worker refused it (512 MiB took its memory from 265 to 2,315 MiB)."""
    _, _, url, _ = pair
    host, port = url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as s:
        s.sendall(b"POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n")
        s.sendall(b"Content-Length: 600000000\r\n\r\n{")
        reply = b""
        while chunk := s.recv(65536):  # answered and closed at once (a timeout here: it waited for the body)
            reply += chunk
    head, _, body = reply.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 413") and is_openai_error(body, "invalid_request_error"), reply[:300]
    assert b"65,536 bytes" in body


def test_one_parse_a_surrogate_in_an_ignored_field_changes_nothing(pair):
    """The router reads the body once and sends the worker what it read: a lone surrogate in a field
    both ignore used to make the router's parser fail and the worker's pass, and the stream came
    back whole, stop strings ignored, under the model name "pdlab"."""
    _, _, url, model = pair
    plain = {"model": model, "prompt": PROMPT, "max_tokens": 12, "temperature": 0, "ignore_eos": True}
    code, _, data = send(url, "/v1/completions", json.dumps(plain).encode())
    full = json.loads(data)["choices"][0]["text"]
    stop = full[4:7]
    raw = json.dumps({**plain, "stream": True, "stop": [stop], "user": "SURROGATE"}).replace("SURROGATE", "\\ud800")
    code, headers, data = send(url, "/v1/completions", raw.encode())
    assert code == 200 and headers["content-type"].startswith("text/event-stream"), data[:300]
    chunks = [json.loads(line[6:]) for line in data.decode().splitlines() if line.startswith("data: {")]
    assert {c["model"] for c in chunks} == {model}
    assert "".join(c["choices"][0]["text"] for c in chunks) == full[: full.find(stop)]
    assert chunks[-1]["choices"][0]["finish_reason"] == "stop" and data.decode().endswith("data: [DONE]\n\n")


def test_a_whole_request_whose_client_leaves_is_cancelled(pair):
    p, d, url, model = pair
    body = json.dumps({"model": model, "prompt": PROMPT, "max_tokens": 3000, "ignore_eos": True}).encode()
    host, port = url.removeprefix("http://").split(":")
    s = socket.create_connection((host, int(port)))
    s.sendall(b"POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n")
    s.sendall(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    deadline = time.monotonic() + 30
    while metric(d, *RUNNING) < 1:
        assert time.monotonic() < deadline
        time.sleep(0.05)
    s.close()
    left = time.monotonic()
    while metric(d, *RUNNING) > 0:
        assert time.monotonic() - left < 2.0, "the decode worker kept generating for a client that had gone"
        time.sleep(0.05)


def test_workers_take_hand_offs_only_from_their_router(pair):
    """A hand-off posted straight to a worker's port (one that asks for 8,100 tokens, say) is refused
    without the pair's token; the router's own calls carry it."""
    p, d, url, model = pair
    token = {"x-pdlab-handoff-token": child_env()[HANDOFF_TOKEN_ENV]}  # the token launch.py gave this pair
    ask = json.dumps({"model": model, "prompt": PROMPT, "max_tokens": 8}).encode()
    for headers in ({}, {"x-pdlab-handoff-token": "guessed"}):
        code, _, data = send(p, "/pdlab/prefill", ask, headers)
        assert code == 401 and json.loads(data)["error"]["code"] == "invalid_handoff_token", data
    code, _, handoff = send(p, "/pdlab/prefill", ask, token)
    assert code == 200
    head, _, kv = handoff.partition(b"\n")
    forged = json.loads(head)
    forged["params"]["max_new_tokens"] = 8100
    forged_handoff = json.dumps(forged).encode() + b"\n" + kv
    code, _, data = send(d, "/pdlab/decode", forged_handoff, {"content-type": "application/octet-stream"})
    assert code == 401 and json.loads(data)["error"]["code"] == "invalid_handoff_token", data
    code, _, data = send(d, "/pdlab/decode", handoff, {**token, "content-type": "application/octet-stream"})
    assert code == 200 and json.loads(data.splitlines()[-1])["type"] == "finish"


def test_a_top_p_that_is_0_in_float32_fails_the_prefill_alone(pair):
    """Sent straight to the prefill worker it used to kill the engine loop (every later request hung,
    /health still ok); now a named 400, and the pair serves on."""
    p, _, url, model = pair
    token = {"x-pdlab-handoff-token": child_env()[HANDOFF_TOKEN_ENV]}
    bad = json.dumps({"model": model, "prompt": PROMPT, "temperature": 1, "top_p": 1e-46}).encode()
    code, _, data = send(p, "/pdlab/prefill", bad, token)
    assert code == 400 and "top_p 1e-46 is 0 in float32" in json.loads(data)["error"]["message"]
    code, _, data = send(url, "/v1/completions", bad)
    assert code == 400 and "top_p 1e-46 is 0 in float32" in json.loads(data)["error"]["message"]
    good = json.dumps({"model": model, "prompt": PROMPT, "max_tokens": 4}).encode()
    code, _, data = send(url, "/v1/completions", good)
    assert code == 200 and json.loads(data)["usage"]["completion_tokens"] == 4
    assert urllib.request.urlopen(f"{p}/health", timeout=10).status == 200
