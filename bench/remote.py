"""The same workload through our engine in-process and over HTTP (`python -m engine serve` on
loopback, read by lab/remote_client.py, `openai` streaming), in one run: what the API, the server's
event loop and the client add per request and per token.

    .venv/bin/python bench/remote.py [--requests 8] [--prompt-len 64] [--new-tokens 32] [--repeats 3]

Both sides run the same engine settings (continuous batching, all requests sent at t = 0, greedy,
ignore EOS); the HTTP side's prompts are the same token ids decoded to text (the server
re-tokenises them to the same ids). Medians of interleaved repeats.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench.record import recorded  # noqa: E402
from engine import EngineConfig, load_model  # noqa: E402
from engine.entrypoints.launch import engine_server  # noqa: E402
from engine.observe.machine import describe_cpu  # noqa: E402
from lab.remote_client import Endpoint, RemoteRequest  # noqa: E402
from lab.remote_load import LoadPlan, run_load  # noqa: E402
from lab.workload import RequestSpec, run_workload, summarize, text_tokens  # noqa: E402

SERVER_FLAGS = ("--max-num-seqs", "16", "--max-num-batched-tokens", "2048")


def in_process(bundle, specs: list[RequestSpec]) -> dict:
    config = EngineConfig(probe_memory=False, trace=True, max_num_seqs=16, max_num_batched_tokens=2048)
    trace, _ = run_workload(bundle.model, bundle.tokenizer, specs, config)
    s = summarize(trace)
    return {
        "ttft": s["ttft_ms"]["p50"],
        "tpot": s["tpot_ms"]["p50"],
        "e2e": s["e2e_ms"]["p50"],
        "tok_s": s["throughput_tok_s"],
    }


def over_http(url: str, requests: list[RemoteRequest]) -> dict:
    plan = LoadPlan("concurrent", requests, max_requests=len(requests), concurrency=len(requests))
    run = asyncio.run(run_load(Endpoint(url), "SmolLM2-135M-Instruct", plan))
    s = run.summary()
    if s["failed"]:
        raise SystemExit(f"{s['failed']} requests failed: {[r.error for r in run.results if r.error][:2]}")
    return {
        "ttft": s["ttft_ms"]["p50"],
        "tpot": s["tpot_ms"]["p50"],
        "e2e": s["e2e_ms"]["p50"],
        "tok_s": s["output_tokens_per_s"],
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--requests", type=int, default=8)
    ap.add_argument("--prompt-len", type=int, default=64)
    ap.add_argument("--new-tokens", type=int, default=32)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    bundle = load_model()
    specs = [
        RequestSpec(0.0, text_tokens(bundle.tokenizer, args.prompt_len, offset=7 * i), args.new_tokens)
        for i in range(args.requests)
    ]
    requests = [
        RemoteRequest(bundle.tokenizer.decode(s.prompt_ids), args.new_tokens, chat=False, ignore_eos=True)
        for s in specs
    ]
    print(f"# {describe_cpu()}")
    print(
        f"# {args.requests} requests at once, {args.prompt_len}-token prompts, {args.new_tokens} new tokens, "
        f"medians of {args.repeats} interleaved repeats\n"
    )
    log = Path(__file__).resolve().parent.parent / "test-artifacts" / "bench-remote-server.log"
    log.parent.mkdir(exist_ok=True)
    mine, http = [], []
    with engine_server("bundled", log, *SERVER_FLAGS) as url:
        over_http(url, requests[:2])  # warm both up
        in_process(bundle, specs[:2])
        for _ in range(args.repeats):
            mine.append(in_process(bundle, specs))
            http.append(over_http(url, requests))
    print("| P50 | in-process | over HTTP | difference | ratio |\n|---|---|---|---|---|")
    for key, label in (("ttft", "TTFT (ms)"), ("tpot", "TPOT (ms)"), ("e2e", "E2E (ms)"), ("tok_s", "output tokens/s")):
        a = statistics.median(r[key] for r in mine)
        b = statistics.median(r[key] for r in http)
        print(f"| {label} | {a:.1f} | {b:.1f} | {b - a:+.1f} | {b / a:.2f} |")


if __name__ == "__main__":
    with recorded("remote"):
        main()
