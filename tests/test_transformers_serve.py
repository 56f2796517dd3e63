"""A real `transformers serve` (Hugging Face's OpenAI-compatible server) on the bundled model's
folder, read by lab/remote_client.py: its quirks (a role-only first delta, no [DONE], usage on the
finish chunk, stream_options ignored, no /metrics) are handled, and the client's token count agrees
with the server's."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

from lab.remote_client import Endpoint, RemoteRequest, list_models, stream_one
from lab.remote_metrics import watch

CLI = Path(sys.executable).parent / "transformers"


@pytest.fixture(scope="module")
def hf_server(servers, bundled_dir):
    if not CLI.is_file():
        pytest.fail(f"{CLI} is missing: transformers' CLI ships with the pinned transformers")
    argv = [str(CLI), "serve", str(bundled_dir), "--host", "127.0.0.1", "--port", "{port}"]
    with servers.command(argv, "/health", "transformers-serve.log") as port:
        yield f"http://127.0.0.1:{port}"


@pytest.mark.parametrize("chat", [True, False])
def test_a_stream_from_transformers_serve(hf_server, bundled, chat):
    endpoint = Endpoint(hf_server, timeout_s=120)
    (model,) = asyncio.run(list_models(endpoint))
    r = asyncio.run(stream_one(endpoint, model, RemoteRequest("Name three rivers.", max_tokens=12, chat=chat)))
    assert r.error is None, r.error
    assert r.text.strip() and r.finish_reason in ("stop", "length") and r.metrics.ttft_ms > 0
    counted = len(bundled.tokenizer(r.text, add_special_tokens=False).input_ids)
    if r.usage_output_tokens is not None:  # the server's own count
        assert abs(r.usage_output_tokens - counted) <= 2 and r.usage_output_tokens <= 12
    else:
        assert r.tokens_counted_from_chunks and abs(r.num_output_tokens - counted) <= 2


def test_no_metrics_is_reported_not_an_error(hf_server):
    done = asyncio.Event()
    done.set()
    seen = asyncio.run(watch(Endpoint(hf_server), done))
    assert seen.snapshots == [] and "no Prometheus metrics" in seen.note
