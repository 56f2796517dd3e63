"""`python -m engine serve`: our engine behind OpenAI's API, driven by the `openai` client over real
HTTP on loopback. Greedy output equals `Engine.generate`; concurrent streams each equal their solo
output (continuous batching in one engine); /metrics parses and counts what was served; bad
requests get OpenAI-shaped 400s; a client that leaves mid-stream frees its slot."""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor

import pytest
from openai import OpenAI

from engine import Engine, SamplingParams
from tests.server_support import metric

MODEL = "SmolLM2-135M-Instruct"  # the served name: another is a 404, as with vLLM
PROMPTS = [
    "The capital of France is",
    "def fibonacci(n):",
    "Once upon a time, in a small village by the sea,",
    "The three primary colours are",
    "今天天气",
    "Water boils at",
    "The largest planet is",
    "In 1969,",
]


@pytest.fixture(scope="module")
def url(bundled_server):
    return bundled_server


@pytest.fixture(scope="module")
def client(url) -> OpenAI:
    return OpenAI(base_url=f"{url}/v1", api_key="unused", max_retries=0, timeout=120)


def solo(bundled, prompt: str, n: int) -> str:
    trace = Engine(bundled.model, bundled.tokenizer).generate(prompt, SamplingParams(max_new_tokens=n))
    return bundled.tokenizer.decode(trace.requests[0].output_token_ids, skip_special_tokens=True)


def streamed(client: OpenAI, prompt: str, n: int) -> tuple[str, dict | None, list[float]]:
    """The text, the usage chunk and the arrival time of every content chunk."""
    stream = client.completions.create(
        model=MODEL, prompt=prompt, max_tokens=n, temperature=0, stream=True, stream_options={"include_usage": True}
    )
    text, usage, times = [], None, []
    for chunk in stream:
        if chunk.usage:
            usage = chunk.usage.model_dump()
        for choice in chunk.choices:
            if choice.text:
                text.append(choice.text)
                times.append(time.perf_counter())
    return "".join(text), usage, times


def test_models_and_health(client, url):
    (model,) = client.models.list().data
    assert model.id == MODEL
    with urllib.request.urlopen(f"{url}/health") as r:
        assert json.load(r) == {"status": "ok"}


def test_greedy_completion_equals_the_engine(client, bundled):
    whole = client.completions.create(model=MODEL, prompt=PROMPTS[0], max_tokens=12, temperature=0)
    assert whole.choices[0].text == solo(bundled, PROMPTS[0], 12)
    assert whole.usage.completion_tokens == 12 and whole.choices[0].finish_reason == "length"
    text, usage, times = streamed(client, PROMPTS[0], 12)
    assert text == whole.choices[0].text and usage["completion_tokens"] == 12
    assert len(times) >= 2 and times == sorted(times)


def test_chat_streams_a_role_then_content(client):
    chunks = list(
        client.chat.completions.create(
            model=MODEL, messages=[{"role": "user", "content": "Say hi."}], max_tokens=8, temperature=0, stream=True
        )
    )
    assert chunks[0].choices[0].delta.role == "assistant"
    assert "".join(c.choices[0].delta.content or "" for c in chunks if c.choices).strip()
    assert chunks[-1].choices[0].finish_reason in ("stop", "length")


def test_concurrent_streams_each_equal_their_solo_output(client, bundled):
    n = 16
    with ThreadPoolExecutor(len(PROMPTS)) as pool:
        results = list(pool.map(lambda p: streamed(client, p, n), PROMPTS))
    for prompt, (text, usage, _) in zip(PROMPTS, results):
        assert text == solo(bundled, prompt, n), prompt
        assert usage["prompt_tokens"] == len(bundled.tokenizer(prompt).input_ids)


def post(url: str, path: str, body: dict) -> tuple[int, dict]:
    req = urllib.request.Request(f"{url}{path}", json.dumps(body).encode(), {"content-type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            return r.status, json.load(r)
    except urllib.error.HTTPError as e:
        return e.code, json.load(e)


@pytest.mark.parametrize(
    "body, expected",
    [
        ({"prompt": "", "max_tokens": 4}, "The prompt is empty"),
        ({"prompt": "Hi", "max_tokens": 0}, "max_tokens"),
        ({"prompt": "Hi", "max_tokens": 10**6}, "exceed the context"),
        ({"prompt": "Hi", "temperature": -1}, "temperature"),
        ({"prompt": [10**9], "max_tokens": 2}, "token ids must be in"),
        ({"max_tokens": 2}, "prompt"),
    ],
)
def test_bad_requests_are_openai_shaped_400s(url, body, expected):
    status, reply = post(url, "/v1/completions", body)
    assert status == 400 and reply["error"]["type"] == "invalid_request_error"
    assert expected in reply["error"]["message"], reply


def test_metrics_count_what_was_served(client, url):
    before = metric(url, "vllm:time_to_first_token_seconds", "vllm:time_to_first_token_seconds_count")
    generated = metric(url, "vllm:generation_tokens", "vllm:generation_tokens_total")
    for prompt in PROMPTS[:3]:
        client.completions.create(
            model=MODEL, prompt=prompt, max_tokens=5, temperature=0, extra_body={"ignore_eos": True}
        )
    assert metric(url, "vllm:time_to_first_token_seconds", "vllm:time_to_first_token_seconds_count") == before + 3
    assert metric(url, "vllm:generation_tokens", "vllm:generation_tokens_total") == generated + 15
    assert metric(url, "vllm:num_requests_running", "vllm:num_requests_running") == 0
    for name in (
        "vllm:e2e_request_latency_seconds",
        "vllm:request_queue_time_seconds",
        "vllm:request_prefill_time_seconds",
        "vllm:request_decode_time_seconds",
        "vllm:inter_token_latency_seconds",
    ):
        assert metric(url, name, f"{name}_count") > 0, name


def test_metrics_are_current_when_a_stream_ends(client, url):
    """A client that reads /metrics on its last chunk sees its blocks freed and its request counted (the
    gauges and histograms are updated before the step's tokens go out; a soak of 100 requests caught
    the KV usage still above 0 after 6 of them when they were updated after)."""
    count = "vllm:time_to_first_token_seconds"
    for i in range(10):
        before = metric(url, count, f"{count}_count")
        stream = client.completions.create(
            model=MODEL,
            prompt=f"{PROMPTS[i % len(PROMPTS)]} {i}",
            max_tokens=3,
            temperature=0,
            stream=True,
            extra_body={"ignore_eos": True},
        )
        assert len([c for c in stream if c.choices]) >= 3
        assert metric(url, "vllm:kv_cache_usage_perc", "vllm:kv_cache_usage_perc") == 0, i
        assert metric(url, count, f"{count}_count") == before + 1, i
    assert metric(url, "process_resident_memory_bytes", "process_resident_memory_bytes") > 100e6


def test_a_client_that_leaves_frees_its_slot(client, url):
    stream = client.completions.create(
        model=MODEL, prompt=PROMPTS[2], max_tokens=2000, temperature=0, stream=True, extra_body={"ignore_eos": True}
    )
    for i, _ in enumerate(stream):
        if i == 2:
            break
    stream.close()
    deadline = time.monotonic() + 30
    while metric(url, "vllm:num_requests_running", "vllm:num_requests_running") > 0:
        assert time.monotonic() < deadline, "the abandoned request kept running"
        time.sleep(0.2)
    start = time.perf_counter()
    client.completions.create(model=MODEL, prompt="Hi", max_tokens=3, temperature=0)
    assert time.perf_counter() - start < 30


def test_a_local_folder_is_served_under_its_name_not_its_path(tiny_dirs, tiny_server):
    folder, (base, _) = tiny_dirs["llama"], tiny_server
    client = OpenAI(base_url=f"{base}/v1", api_key="unused", max_retries=0, timeout=60)
    (model,) = client.models.list().data
    assert model.id == folder.name and "/" not in model.id
    assert client.completions.create(model=model.id, prompt="Hello", max_tokens=3, temperature=0).choices
