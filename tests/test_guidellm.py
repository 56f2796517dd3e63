"""GuideLLM 0.8, the load generator people point at vLLM, drives `python -m engine serve` unchanged:
its default request format (chat, content as a list of text parts, streamed with usage), a small
synchronous run with no errors, its token counts equal to what the server counted itself, and its
JSON report read by the remote page with GuideLLM's own figures unchanged.

GuideLLM pins packages apart from requirements.txt, so it runs from its own virtual environment,
which `make test` builds (.venv-guidellm/, from requirements-guidellm.txt)."""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from lab.report_import import read_report
from tests.conftest import ROOT
from tests.server_support import metric

GUIDELLM = ROOT / ".venv-guidellm" / "bin" / "guidellm"
REQUESTS, PROMPT_TOKENS, OUTPUT_TOKENS = 3, 32, 16


def counters(url: str) -> tuple[float, float]:
    return (
        metric(url, "vllm:prompt_tokens", "vllm:prompt_tokens_total"),
        metric(url, "vllm:generation_tokens", "vllm:generation_tokens_total"),
    )


def test_a_guidellm_run_has_no_errors_and_counts_our_tokens(bundled_server, bundled_dir, tmp_path):
    if not GUIDELLM.is_file():
        pytest.fail("GuideLLM is not installed: `make .venv-guidellm/.installed` installs it (`make test` does).")
    before = counters(bundled_server)
    report = tmp_path / "guidellm.json"
    run = subprocess.run(
        [
            str(GUIDELLM),
            "run",
            f"--backend=kind=openai_http,target={bundled_server}",
            "--profile=kind=synchronous",
            f"--constraint=kind=max_requests,count={REQUESTS}",
            f"--data=kind=synthetic_text,prompt_tokens={PROMPT_TOKENS},output_tokens={OUTPUT_TOKENS}",
            f"--tokenizer=kind=hf_auto,model={bundled_dir}",  # no hub here: the bundled model's tokenizer
            f"--output=kind=json,path={report}",
            "--disable-progress",
        ],
        cwd=tmp_path,
        env={**os.environ, "HF_HUB_OFFLINE": "1"},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, (run.stdout[-3000:], run.stderr[-3000:])
    requests = json.loads(report.read_text())["benchmarks"][0]["requests"]
    assert requests["errored"] == [] and requests["incomplete"] == [], requests["errored"][:1]
    done = requests["successful"]
    assert len(done) == REQUESTS

    body = json.loads(done[0]["request_args"])["body"]
    content = body["messages"][0]["content"]
    assert body["stream"] and isinstance(content, list) and content[0]["type"] == "text"  # its default format

    prompt, generated = (a - b for a, b in zip(counters(bundled_server), before))
    assert sum(r["input_metrics"]["text_tokens"] for r in done) == prompt
    assert sum(r["output_metrics"]["text_tokens"] for r in done) == generated == REQUESTS * OUTPUT_TOKENS

    # its report opens on the remote page: every request, and GuideLLM's own figures as it gave them
    (imported,) = read_report(report.read_bytes()).runs
    assert imported.run.plan.mode == "synchronous" and len(imported.run.finished) == REQUESTS
    ttft = json.loads(report.read_text())["benchmarks"][0]["metrics"]["time_to_first_token_ms"]["successful"]
    shown = next(f for f in imported.theirs if f.label == "TTFT (GuideLLM)")
    assert (
        shown.n == REQUESTS and shown.stats["p90"] == ttft["percentiles"]["p90"] and shown.stats["mean"] == ttft["mean"]
    )
    assert sorted(r.metrics.ttft_ms for r in imported.run.timed) == sorted(r["time_to_first_token_ms"] for r in done)
