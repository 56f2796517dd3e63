"""A real `transformers serve` (Hugging Face's OpenAI-compatible server) on the bundled model's
folder, read by lab/remote_client.py: its quirks (a role-only first delta, no [DONE], usage on the
finish chunk, stream_options ignored, no /metrics) are handled, and the client's token count agrees
with the server's. With `--continuous-batching` it refuses vLLM's `ignore_eos` with 422 "Unexpected
fields": the remote load and the capacity command send their requests again without it and say so
(skipped where transformers' serving extras are missing)."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

from app_pages.remote.outcome import outcome_lines
from lab import capacity_cli
from lab.remote_client import Endpoint, RemoteRequest, list_models, stream_one
from lab.remote_load import LoadPlan, run_load
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


@pytest.fixture(scope="module")
def hf_batching(servers, bundled_dir):
    """`transformers serve --continuous-batching` on the bundled model's folder."""
    for extra in ("fastapi", "uvicorn"):
        pytest.importorskip(
            extra, reason="transformers' serving extras are missing: pip install 'transformers[serving]'"
        )
    if not CLI.is_file():
        pytest.skip(f"{CLI} is missing")
    argv = [str(CLI), "serve", str(bundled_dir), "--continuous-batching", "--host", "127.0.0.1", "--port", "{port}"]
    with servers.command(argv, "/health", "transformers-serve-batching.log") as port:
        yield f"http://127.0.0.1:{port}"


def test_a_load_on_transformers_serve_goes_without_ignore_eos_and_says_so(hf_batching):
    endpoint = Endpoint(hf_batching, timeout_s=120)
    (model,) = asyncio.run(list_models(endpoint))
    plan = LoadPlan("concurrent", [RemoteRequest("Name three rivers.", 4, chat=False, ignore_eos=True)], 3, 2)
    run = asyncio.run(run_load(endpoint, model, plan))
    assert run.summary()["finished"] == 3, [r.error for r in run.results]
    assert all(r.dropped_fields == ["ignore_eos"] and "ignore_eos" in r.refusal for r in run.results)
    assert run.results[0].refusal.startswith("422 Unexpected fields in the request")
    said = [ln for ln in outcome_lines(run, "en") if "refuses vLLM's extension" in ln.text]
    assert said and said[0].items[0].startswith("422 Unexpected fields")


def test_the_capacity_command_on_transformers_serve_measures_and_says_what_it_dropped(hf_batching, capsys):
    argv = ["--url", hf_batching, "--slo", "e2e=600000", "--max-load", "1", "--max-tokens", "2", "--budget", "300"]
    argv.append("--chat")  # its completions API ends this prompt at EOS at once: nothing to time there
    assert capacity_cli.main(argv) == 0
    said = capsys.readouterr().out
    assert "The server refuses vLLM's extension `ignore_eos`" in said and "422 Unexpected fields" in said
    assert "met the SLO" in said and "requests failed" not in said and "got a token" not in said
    if "busy machine" not in said:  # 10 of its slow replies in a row can pass a load's minute when it is
        assert "load   1: 10/10 met the SLO" in said and "Holds a concurrency of 1 with E2E ≤ 600000 ms" in said
