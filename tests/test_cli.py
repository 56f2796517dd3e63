"""`python -m engine generate` in a real subprocess."""
from __future__ import annotations

import json
import subprocess
import sys


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "engine", *args], capture_output=True, text=True, timeout=300)


def test_generate_json(tiny_dirs):
    out = cli("generate", "--model", str(tiny_dirs["llama"]), "--prompt", "Hello world", "--max-new-tokens", "4",
              "--json")
    assert out.returncode == 0, out.stderr
    d = json.loads(out.stdout)
    assert set(d) == {"model", "prompt_tokens", "output_tokens", "text", "metrics", "steps"}
    assert len(d["output_tokens"]) == len(d["steps"]) <= 4
    assert d["steps"][0]["phase"] == "prefill" and d["steps"][0]["num_tokens"] == len(d["prompt_tokens"])
    L = len(d["prompt_tokens"])
    assert d["steps"][0]["score_shape"] == [1, 4, L, L]
    assert set(d["metrics"]) == {"ttft_ms", "tpot_ms", "itl_ms", "e2e_ms"}
    assert len(d["metrics"]["itl_ms"]) == len(d["output_tokens"]) - 1


def test_generate_streams_phases(tiny_dirs):
    out = cli("generate", "--model", str(tiny_dirs["llama"]), "--prompt", "Hello", "--max-new-tokens", "3",
              "--no-kv-cache", "--attention", "eager")
    assert out.returncode == 0, out.stderr
    assert "[prefill step 0]" in out.stdout and "[decode step 1]" in out.stdout and "TTFT" in out.stdout


def test_bad_input_is_a_message_not_a_traceback(tiny_dirs):
    out = cli("generate", "--model", str(tiny_dirs["llama"]), "--prompt", "", "--max-new-tokens", "3")
    assert out.returncode == 2 and "error: The prompt is empty" in out.stderr and "Traceback" not in out.stderr
