"""Prefill and decode on one server against two, on the bundled model, in one run: the same workload
(chats decoding while long prompts arrive: the serving lab's head-of-line case) sent over HTTP to

    colocated, whole prompts     `serve --no-chunked-prefill` on both cores
    colocated, chunked prefill   `serve` (chunks of --chunk tokens beside the decodes) on both cores
    1 prefill + 1 decode worker  `serve --role prefill --cpus 0`, `serve --role decode --cpus 1`
                                 and `router` in front: every prompt's KV handed over per request

    .venv/bin/python bench/disaggregation.py [--repeats 2] [--long 1024] [--chats 4] [--slo ttft=3000,tpot=200]

For each set-up, medians over the repeats: the chats' worst TPOT and worst gap between two tokens
(the stall a long prefill causes in running decodes), the chats' and the long prompts' TTFT (the
hand-off's transfer included: the router's client sees it), goodput and attainment at the SLO, and
the KV bytes one long prompt hands over. On 2 cores the split is uneven by construction: each
worker gets one core, where a colocated server has both for whichever phase runs.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
from contextlib import ExitStack
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench.record import recorded  # noqa: E402
from engine import load_model  # noqa: E402
from engine.server.launch import engine_server, router_server  # noqa: E402
from lab.pd_transfer import kv_transfer_bytes  # noqa: E402
from lab.remote_client import Endpoint  # noqa: E402
from lab.remote_load import run_load, workload_plan  # noqa: E402
from lab.slo import SLO, judge_load  # noqa: E402
from lab.workload import RequestSpec, head_of_line, text_tokens  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
LOGS = ROOT / "test-artifacts"
MODEL = "SmolLM2-135M-Instruct"


def setups(chunk: int) -> dict[str, list]:
    return {
        "colocated, whole prompts": [("serve", ["--no-chunked-prefill"])],
        "colocated, chunked prefill": [("serve", ["--max-num-batched-tokens", str(chunk)])],
        "1 prefill + 1 decode worker": [
            ("serve", ["--role", "prefill", "--cpus", "0"]),
            ("serve", ["--role", "decode", "--cpus", "1"]),
        ],
    }


def workload(tokenizer, args) -> list[RequestSpec]:
    """The chats start together; long prompts arrive while they decode."""
    specs = head_of_line(tokenizer, args.chats, args.long, args.chat_tokens, long_arrival_s=1.0)
    specs += [RequestSpec(2.5, text_tokens(tokenizer, args.long, offset=7), 16, "long prompt 2")]
    return specs


def one_run(url: str, specs: list[RequestSpec], tokenizer, slo: SLO) -> dict:
    plan = workload_plan(tokenizer, specs, chat=False, max_duration_s=600)
    run = asyncio.run(run_load(Endpoint(url, timeout_s=600), MODEL, plan))
    chats = [r for r, s in zip(run.results, specs) if s.label.startswith("chat")]
    longs = [r for r, s in zip(run.results, specs) if s.label.startswith("long")]
    failed = [r.error for r in run.results if r.error]
    if failed:
        raise RuntimeError(f"{len(failed)} request(s) failed: {failed[0]}")
    gaps = [b - a for r in chats for a, b in zip(r.chunk_times, r.chunk_times[1:])]
    judged = judge_load(slo, [r.metrics for r in run.timed], run.seconds, len(specs))
    return {
        "chat_tpot": max(r.metrics.tpot_ms for r in chats),
        "chat_gap": 1e3 * max(gaps),
        "chat_ttft": statistics.median(r.metrics.ttft_ms for r in chats),
        "long_ttft": statistics.median(r.metrics.ttft_ms for r in longs),
        "goodput": judged.goodput,
        "attainment": judged.attainment,
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--long", type=int, default=1024, help="tokens of each long prompt")
    ap.add_argument("--chats", type=int, default=4)
    ap.add_argument("--chat-tokens", type=int, default=48)
    ap.add_argument("--chunk", type=int, default=256, help="the chunked server's token budget per step")
    ap.add_argument("--slo", default="ttft=3000,tpot=200")
    args = ap.parse_args()
    bundle = load_model()
    specs, slo = workload(bundle.tokenizer, args), SLO.parse(args.slo)
    LOGS.mkdir(exist_ok=True)
    print(
        f"# {MODEL} on loopback: {args.chats} chats of {args.chat_tokens} tokens from t = 0, prompts of {args.long} "
        f"tokens at 1.0 s and 2.5 s; SLO {args.slo} for {slo.target:.0%} of requests; median of {args.repeats}\n"
    )
    results: dict[str, list[dict]] = {name: [] for name in setups(args.chunk)}
    with ExitStack() as stack:  # every server up once; the repeats interleave the set-ups
        urls = {}
        for name, servers in setups(args.chunk).items():
            started = [
                stack.enter_context(engine_server("bundled", LOGS / f"bench-disagg-{i}-{name[:9]}.log", *flags))
                for i, (_, flags) in enumerate(servers)
            ]
            if len(started) == 2:
                started = [stack.enter_context(router_server(*started, LOGS / "bench-disagg-router.log"))]
            urls[name] = started[0]
        for _ in range(args.repeats):
            for name, url in urls.items():
                results[name].append(one_run(url, specs, bundle.tokenizer, slo))
                print(f"# {name}: {results[name][-1]}", flush=True)

    def med(name: str, key: str) -> float:
        return statistics.median(r[key] for r in results[name])

    kv = kv_transfer_bytes(bundle.model.config, args.long, "float32")  # the servers' pools hold float32
    print(
        f"\nEach long prompt hands over {kv / 2**20:.1f} MiB of KV (float32: {args.long} tokens × "
        f"{bundle.model.config.kv_bytes_per_token(4) // 1024} KiB).\n"
    )
    print(
        "| set-up | chats' worst TPOT (ms) | chats' worst gap (ms) | chats' TTFT (ms) | long prompts' TTFT (ms) | goodput (req/s) | attainment |"
    )
    print("|---|---|---|---|---|---|---|")
    for name in results:
        print(
            f"| {name} | {med(name, 'chat_tpot'):.1f} | {med(name, 'chat_gap'):.1f} | {med(name, 'chat_ttft'):.0f} "
            f"| {med(name, 'long_ttft'):.0f} | {med(name, 'goodput'):.2f} | {med(name, 'attainment'):.0%} |"
        )
    return 0


if __name__ == "__main__":
    with recorded("disaggregation"):
        sys.exit(main())
