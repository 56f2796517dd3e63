"""`python -m engine serve` against what clients and strangers send: limits checked before any work
(a 10 MB body, a 4 MB prompt beside a live stream), non-streaming clients that leave, stop strings,
chat content as parts, a lone surrogate, an unknown model, refused parameters, the API key, and
every error in OpenAI's shape, which the `openai` client turns into its own error classes."""

from __future__ import annotations

import http.client
import json
import socket
import threading
import time
import urllib.error
import urllib.request

import openai
import pytest
from openai import OpenAI
from prometheus_client.parser import text_string_to_metric_families


def post(url: str, path: str, body: dict | bytes, headers: dict | None = None, timeout: float = 120):
    """(status, parsed JSON, seconds) of a POST; body as a dict (JSON) or raw bytes."""
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    req = urllib.request.Request(f"{url}{path}", data, {"content-type": "application/json", **(headers or {})})
    start = time.perf_counter()
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, json.load(r), time.perf_counter() - start
    except urllib.error.HTTPError as e:
        return e.code, json.load(e), time.perf_counter() - start


def is_openai_error(reply: dict) -> bool:
    err = reply.get("error", {})
    return set(err) == {"message", "type", "param", "code"} and isinstance(err["message"], str) and err["message"]


def send_raw(url: str, body: bytes, chunked: bool = False) -> tuple[int, dict, float]:
    """POST a large body piece by piece, as a client would, reading the answer even when the server
    answers (and closes) before the body is all sent: (status, JSON, seconds)."""
    host, port = url.removeprefix("http://").split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=60)
    start = time.perf_counter()
    conn.putrequest("POST", "/v1/completions")
    conn.putheader("content-type", "application/json")
    conn.putheader(*(("transfer-encoding", "chunked") if chunked else ("content-length", str(len(body)))))
    conn.endheaders()
    try:
        for i in range(0, len(body), 1 << 20):
            piece = body[i : i + (1 << 20)]
            conn.send(f"{len(piece):x}\r\n".encode() + piece + b"\r\n" if chunked else piece)
        if chunked:
            conn.send(b"0\r\n\r\n")
    except (BrokenPipeError, ConnectionResetError):
        pass  # the server answered and closed before the rest was sent
    reply = conn.getresponse()
    return reply.status, json.loads(reply.read()), time.perf_counter() - start


def metric(url: str, name: str) -> float:
    with urllib.request.urlopen(f"{url}/metrics") as r:
        samples = {s.name: s.value for f in text_string_to_metric_families(r.read().decode()) for s in f.samples}
    return samples[name]


@pytest.fixture(scope="module")
def served(tiny_server):
    url, model = tiny_server
    return url, model, OpenAI(base_url=f"{url}/v1", api_key="unused", max_retries=0, timeout=120)


# --- limits before work -------------------------------------------------------------------------------------


def test_a_10_mb_body_is_a_413_at_once_and_the_server_stays_responsive(served):
    url, model, _ = served
    rss = metric(url, "process_resident_memory_bytes")
    body = json.dumps({"model": model, "prompt": "x" * (10 << 20), "max_tokens": 2}).encode()
    assert len(body) > 10e6
    health: list[float] = []

    def probe():
        for _ in range(6):
            start = time.perf_counter()
            urllib.request.urlopen(f"{url}/health", timeout=10).read()
            health.append(time.perf_counter() - start)
            time.sleep(0.05)

    prober = threading.Thread(target=probe)
    prober.start()
    status, reply, seconds = send_raw(url, body)
    prober.join()
    assert status == 413 and is_openai_error(reply) and seconds < 2.0, (status, reply, seconds)
    assert max(health) < 0.5, health
    assert metric(url, "process_resident_memory_bytes") - rss < 100e6


def test_a_body_without_a_length_is_cut_off_at_the_limit(served):
    url, model, _ = served
    body = json.dumps({"model": model, "prompt": "y" * (6 << 20)}).encode()
    status, reply, _ = send_raw(url, body, chunked=True)
    assert status == 413 and is_openai_error(reply), reply


def test_a_4_mb_prompt_beside_a_live_stream_leaves_no_gap(served):
    url, model, client = served
    gaps, last = [], None
    stream = client.completions.create(
        model=model, prompt="Hello", max_tokens=480, temperature=0, stream=True, extra_body={"ignore_eos": True}
    )
    sent = threading.Event()
    answer: list = []

    def big():
        answer.append(post(url, "/v1/completions", {"model": model, "prompt": "z " * 2_000_000, "max_tokens": 2}))
        sent.set()

    for i, _ in enumerate(stream):
        now = time.perf_counter()
        if last is not None:
            gaps.append(now - last)
        last = now
        if i == 20:
            threading.Thread(target=big).start()
    assert sent.wait(60)
    status, reply, seconds = answer[0]
    assert status == 400 and "characters" in reply["error"]["message"] and "not tokenised" in reply["error"]["message"]
    assert max(gaps) < 0.5, max(gaps)


def test_a_client_that_stops_waiting_for_a_whole_answer_frees_the_engine(bundled_server):
    """Non-streaming requests too: three clients leave after a second; the engine drops them."""
    url = bundled_server
    body = json.dumps(
        {"model": "SmolLM2-135M-Instruct", "prompt": "Tell a long story.", "max_tokens": 400, "ignore_eos": True}
    ).encode()
    host, port = url.removeprefix("http://").split(":")
    socks = []
    for _ in range(3):
        s = socket.create_connection((host, int(port)))
        head = (
            f"POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: {len(body)}"
        )
        s.sendall(head.encode() + b"\r\n\r\n" + body)
        socks.append(s)
    deadline = time.monotonic() + 30
    while metric(url, "vllm:num_requests_running") < 3:
        assert time.monotonic() < deadline
        time.sleep(0.1)
    time.sleep(1)
    for s in socks:
        s.close()
    left = time.monotonic()
    while metric(url, "vllm:num_requests_running") > 0:
        assert time.monotonic() - left < 2.0, "the engine kept working for clients that had gone"
        time.sleep(0.05)


# --- stop, parts, text ----------------------------------------------------------------------------------


def greedy(client, model: str, **extra) -> tuple[str, str]:
    r = client.completions.create(model=model, prompt="The sea", max_tokens=40, temperature=0, extra_body=extra)
    return r.choices[0].text, r.choices[0].finish_reason


def streamed(client, model: str, **extra) -> tuple[str, str]:
    text, finish = [], None
    for chunk in client.completions.create(
        model=model, prompt="The sea", max_tokens=40, temperature=0, stream=True, extra_body=extra
    ):
        for c in chunk.choices:
            text.append(c.text)
            finish = c.finish_reason or finish
    return "".join(text), finish


def test_stop_strings_end_the_reply_before_them(served):
    url, model, client = served
    full, _ = greedy(client, model, ignore_eos=True)
    assert len(full) > 30
    across = full[9:17]  # eight characters: across token boundaries
    later, earlier = full[20:24], full[12:15]
    for stops in ([across], across, [later, earlier]):
        first = min(full.find(s) for s in ([stops] if isinstance(stops, str) else stops))
        for read in (greedy, streamed):
            text, finish = read(client, model, stop=stops, ignore_eos=True)
            assert (text, finish) == (full[:first], "stop"), (stops, read.__name__)
    text, finish = greedy(client, model, stop=["never in this text \u2603"], ignore_eos=True)
    assert (text, finish) == (full, "length")


def test_chat_content_as_text_parts_and_other_parts_refused(served):
    url, model, client = served
    as_string = client.chat.completions.create(
        model=model, messages=[{"role": "user", "content": "Hello there"}], max_tokens=5, temperature=0
    )
    as_parts = client.chat.completions.create(
        model=model,
        messages=[{"role": "user", "content": [{"type": "text", "text": "Hello "}, {"type": "text", "text": "there"}]}],
        max_tokens=5,
        temperature=0,
    )
    assert as_parts.choices[0].message.content == as_string.choices[0].message.content
    image = {"type": "image_url", "image_url": {"url": "http://x/y.png"}}
    status, reply, _ = post(
        url, "/v1/chat/completions", {"model": model, "messages": [{"role": "user", "content": [image]}]}
    )
    assert status == 400 and "'image_url' is not supported" in reply["error"]["message"]
    assert reply["error"]["param"] == "messages[0].content"


def test_a_lone_surrogate_in_chat_is_a_named_400(served):
    url, model, _ = served
    raw = b'{"model": "%s", "messages": [{"role": "user", "content": "a\\ud800b"}]}' % model.encode()
    status, reply, _ = post(url, "/v1/chat/completions", raw)
    assert status == 400 and is_openai_error(reply) and "not valid UTF-8" in reply["error"]["message"]


# --- conformance and errors ---------------------------------------------------------------------------------


def test_the_openai_client_raises_its_own_error_classes(served):
    url, model, client = served
    with pytest.raises(openai.NotFoundError) as e:
        client.completions.create(model="gpt-4o", prompt="Hi", max_tokens=2)
    assert e.value.body["code"] == "model_not_found" and e.value.body["param"] == "model"
    with pytest.raises(openai.BadRequestError, match="logprobs is not supported"):
        client.chat.completions.create(model=model, messages=[{"role": "user", "content": "Hi"}], logprobs=True)
    with pytest.raises(openai.BadRequestError, match="frequency_penalty"):
        client.completions.create(model=model, prompt="Hi", max_tokens=2, frequency_penalty=0.5)


@pytest.mark.parametrize(
    "body, words",
    [
        ({"prompt": "Hi", "temperature": float("nan")}, "finite number"),
        ({"prompt": "Hi", "n": 2}, "n:"),
        ({"prompt": "Hi", "max_tokens": 2, "min_tokens": 5}, "min_tokens (5) is more than max_tokens (2)"),
        ({"prompt": "Hi", "stop": ["a"] * 17}, "at most 16 stop strings"),
        (
            {"prompt": "Hi", "stop": ["b", "a" * 1001]},
            "stop string 1 has 1,001 characters; this server takes at most 1,000",
        ),
        ({"prompt": "Hi", "stop": "a" * 1001}, "the stop string has 1,001 characters"),
        ({"prompt": "Hi", "temperature": 1, "top_p": 1e-46}, "top_p 1e-46 is 0 in float32"),
        ({"prompt": "Hi", "echo": True}, "echo is not supported"),
    ],
)
def test_bad_parameters_are_named(served, body, words):
    url, model, _ = served
    raw = json.dumps({"model": model, **body}).encode()  # NaN written as NaN, as Python's json does
    status, reply, _ = post(url, "/v1/completions", raw)
    assert status == 400 and is_openai_error(reply) and words in reply["error"]["message"], reply


def test_vllm_s_off_values_and_extensions_are_accepted(served):
    url, model, client = served
    base = client.completions.create(model=model, prompt="Hi", max_tokens=4, temperature=0)
    off = client.completions.create(
        model=model,
        prompt="Hi",
        max_tokens=4,
        temperature=0,
        logprobs=0,
        presence_penalty=0,
        extra_body={"top_k": -1, "min_tokens": 4, "repetition_penalty": 1.0},
    )
    assert off.choices[0].text == base.choices[0].text


@pytest.mark.parametrize(
    "method, path, body, status",
    [
        ("GET", "/v1/nothing", None, 404),
        ("GET", "/v1/completions", None, 405),
        ("POST", "/v1/completions", b"{not json", 400),
    ],
)
def test_framework_errors_are_in_openai_s_shape(served, method, path, body, status):
    url, _, _ = served
    req = urllib.request.Request(f"{url}{path}", body, {"content-type": "application/json"}, method=method)
    with pytest.raises(urllib.error.HTTPError) as e:
        urllib.request.urlopen(req, timeout=30)
    assert e.value.code == status and e.value.headers["content-type"] == "application/json"
    reply = json.load(e.value)
    assert is_openai_error(reply) and "detail" not in reply and e.value.headers["x-request-id"].startswith("req-")


@pytest.fixture(scope="module")
def keyed(servers, tiny_dirs):
    """A server with an API key: (its URL, its model's name)."""
    with servers.engine(str(tiny_dirs["llama"]), "engine-serve-key.log", "--api-key", "s3cret") as url:
        yield url, tiny_dirs["llama"].name


def test_an_api_key_guards_v1_and_leaves_health_and_metrics_open(keyed):
    url, model = keyed
    with pytest.raises(openai.AuthenticationError):
        OpenAI(base_url=f"{url}/v1", api_key="wrong", max_retries=0).models.list()
    status, reply, _ = post(url, "/v1/completions", {"model": model, "prompt": "Hi"})
    assert status == 401 and reply["error"]["code"] == "invalid_api_key"
    good = OpenAI(base_url=f"{url}/v1", api_key="s3cret", max_retries=0)
    assert good.completions.create(model=model, prompt="Hi", max_tokens=2).choices
    for path in ("/health", "/metrics"):
        assert urllib.request.urlopen(f"{url}{path}", timeout=10).status == 200


def test_the_key_guards_every_route_that_computes_or_reveals_requests(keyed):
    """/pdlab/requests lists request ids and timings and the hand-off routes compute: keyed like /v1;
    /health and /metrics stay open (above)."""
    url, model = keyed
    for method, path in (("GET", "/pdlab/requests"), ("GET", "/pdlab/requests/cmpl-x"), ("POST", "/pdlab/prefill"),
                         ("POST", "/pdlab/prefill/chat"), ("POST", "/pdlab/decode"), ("GET", "/v1/models")):  # fmt: skip
        data = json.dumps({"model": model, "prompt": "Hi", "max_tokens": 8100}).encode() if method == "POST" else None
        req = urllib.request.Request(f"{url}{path}", data, {"content-type": "application/json"}, method=method)
        with pytest.raises(urllib.error.HTTPError) as e:
            urllib.request.urlopen(req, timeout=30)
        assert e.value.code == 401 and json.load(e.value)["error"]["code"] == "invalid_api_key", path
    req = urllib.request.Request(f"{url}/pdlab/requests", headers={"Authorization": "Bearer s3cret"})
    assert json.load(urllib.request.urlopen(req, timeout=30))["object"] == "list"


@pytest.fixture(scope="module")
def served_4k(servers, tiny_dirs):
    """The tiny model with a 4,096-token context: a stream that lasts seconds, for work beside it."""
    with servers.engine(str(tiny_dirs["llama-4k"]), "engine-serve-tiny-4k.log") as url:
        model = tiny_dirs["llama-4k"].name
        yield url, model, OpenAI(base_url=f"{url}/v1", api_key="unused", max_retries=0, timeout=120)


def stream_beside(client, model: str, work) -> tuple[list[float], object]:
    """A live greedy stream's gaps between chunks while `work()` runs in a thread from its tenth chunk
    on, and what `work` returned; the stream must run to its end meanwhile."""
    gaps, last, result, thread, finish = [], None, [], None, None
    stream = client.completions.create(
        model=model, prompt="Hello", max_tokens=3000, temperature=0, stream=True, extra_body={"ignore_eos": True}
    )
    for i, chunk in enumerate(stream):
        now = time.perf_counter()
        if last is not None:
            gaps.append(now - last)
        last, finish = now, chunk.choices[0].finish_reason
        if i == 10:
            thread = threading.Thread(target=lambda: result.append(work()))
            thread.start()
        assert thread is None or thread.is_alive() or result, "the work beside the stream failed"
    thread.join(120)
    assert finish == "length"  # it ran to its end (a stream that fails ends in an error event: the SDK raises)
    return gaps, result[0]


def test_a_top_p_that_is_0_in_float32_is_a_named_400_and_fails_nothing_else(served_4k):
    """1e-46 is above 0 in float64 and 0 where the sampler compares (float32): refused by name, while
    a stream beside it gets every token (it used to fail every request in flight)."""
    url, model, client = served_4k
    body = {"model": model, "prompt": "Hi", "temperature": 1.0, "top_p": 1e-46, "max_tokens": 4}
    gaps, (status, reply, _) = stream_beside(client, model, lambda: post(url, "/v1/completions", body))
    assert status == 400 and "top_p 1e-46 is 0 in float32" in reply["error"]["message"], reply
    assert urllib.request.urlopen(f"{url}/health", timeout=10).status == 200


def test_long_stop_strings_are_refused_by_name_and_freeze_nothing(served_4k):
    """16 stop strings of 200,000 characters (3.2 MB, under the body limit) with max_tokens 2 froze
    /health for 38 s and a stream for 21 s: now a 400 naming the cap. At the cap (16 of 1,000) a
    request runs beside a live stream without a gap."""
    url, model, client = served_4k
    huge = {"model": model, "prompt": "Hi", "max_tokens": 2, "stop": [chr(97 + i) * 200_000 for i in range(16)]}
    health: list[float] = []

    def huge_and_health():
        answer = post(url, "/v1/completions", huge)
        for _ in range(5):
            start = time.perf_counter()
            urllib.request.urlopen(f"{url}/health", timeout=30).read()
            health.append(time.perf_counter() - start)
        return answer

    gaps, (status, reply, seconds) = stream_beside(client, model, huge_and_health)
    assert status == 400 and "stop string 0 has 200,000 characters" in reply["error"]["message"], reply
    assert reply["error"]["param"] == "stop" and seconds < 2.0
    assert max(gaps) < 0.5 and max(health) < 0.5, (max(gaps), health)
    at_cap = {
        "model": model, "prompt": "The sea", "max_tokens": 60, "temperature": 0, "ignore_eos": True,
        "stop": ["ab" * 499 + chr(48 + i) for i in range(16)],
    }  # fmt: skip
    gaps, (status, reply, _) = stream_beside(client, model, lambda: post(url, "/v1/completions", at_cap))
    assert status == 200 and reply["usage"]["completion_tokens"] == 60 and max(gaps) < 0.5, max(gaps)
