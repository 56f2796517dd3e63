"""Command line for the capacity search: how many concurrent requests (or requests per second) an
OpenAI-compatible server carries within an SLO, in one sentence, with every load saved as the
remote page's trace file.

    .venv/bin/python -m lab.capacity_cli --url http://127.0.0.1:8000 --slo ttft=500,tpot=100
    .venv/bin/python -m lab.capacity_cli --url ... --slo ttft:500 --target 0.99 --budget 300 --out run.json
    .venv/bin/python -m lab.capacity_cli --url ... --slo ttft=500 --by rate --rate-step 0.5 --max-rate 8

(It lives in lab/, not in `python -m engine`: the engine package imports nothing of the lab.)
Errors are one line and exit code 2; a search whose requests all failed says so, with the server's
status and words, gives no SLO verdict and exits 1; the key comes from --api-key or $PDLAB_API_KEY,
never a file. A server that refuses vLLM's `ignore_eos` by name gets the requests without it, and
the output says so (replies may then end early; their tokens count as received).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from pathlib import Path

from engine.errors import LabError
from lab.catalogues import say, word
from lab.load_capacity import CONCURRENCY, SCALES, Point, Scale, search, server_measure
from lab.remote_client import Endpoint, RemoteError, RemoteRequest, list_models
from lab.remote_metrics import MetricsWatch
from lab.remote_trace import Saved, dump_saved
from lab.slo import DEFAULT_TARGET, SLO, slo_verdict

DEFAULT_PROMPT = "Explain, in a few sentences, why the sky is blue."


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m lab.capacity_cli", description=__doc__.split("\n\n")[0])
    p.add_argument("--url", required=True, help="the server's base URL, e.g. http://127.0.0.1:8000")
    p.add_argument("--model", help="the model name to send (default: the first the server lists)")
    p.add_argument("--slo", required=True, help="thresholds in ms: ttft=500,tpot=100 (also itl, e2e; vLLM's ttft:500)")
    p.add_argument("--target", type=float, default=DEFAULT_TARGET, help="share of requests that must meet it (0.9)")
    p.add_argument("--budget", type=float, default=120.0, help="seconds the search may take (default 120)")
    p.add_argument("--by", choices=SCALES, default="concurrency", help="what the load is (default concurrency)")
    p.add_argument("--max-load", type=int, default=32, help="the most requests in flight to try (default 32)")
    p.add_argument("--rate-step", type=float, default=0.5, help="--by rate: requests/s per step (default 0.5)")
    p.add_argument("--max-rate", type=float, default=8.0, help="--by rate: the highest rate to try (default 8)")
    p.add_argument("--prompt", default=DEFAULT_PROMPT, help="the prompt every request sends")
    p.add_argument("--max-tokens", type=int, default=64, help="output tokens per request (EOS ignored where honoured)")
    p.add_argument("--chat", action="store_true", help="use /v1/chat/completions (default: /v1/completions)")
    p.add_argument("--api-key", default=os.environ.get("PDLAB_API_KEY"), help="bearer key (default $PDLAB_API_KEY)")
    p.add_argument("--out", type=Path, help="save every load as a remote trace file (the remote page opens it)")
    return p


def point_line(point: Point, scale: Scale = CONCURRENCY) -> str:
    """One load's line: its goodput and its verdict by lab/slo.slo_verdict, other work beside it."""
    g, m = point.verdict, point.machine
    busy = f" · {say('pair_busy', other=m.other_cores, cores=m.cores)}" if point.busy else ""
    load = f"load {point.load:>3}" if scale.by == "concurrency" else f"rate {scale.value(point.load):g} req/s"
    if point.failure is not None:  # nothing got through: no SLO verdict over it
        return f"{load}: {word(point.failure)}"
    if point.cut:
        return f"{load}: cut short by the time budget, not judged"
    return (
        f"{load}: {g.met}/{g.requests} met the SLO ({100 * g.attainment:.0f} %), "
        f"goodput {g.goodput:.2f} req/s, {slo_verdict(g, m)}{busy}"
    )


def run(args: argparse.Namespace) -> int:
    slo = SLO.parse(args.slo, target=args.target)
    if not 1 <= args.max_tokens <= 8192:
        raise LabError(f"--max-tokens must be 1-8192, got {args.max_tokens}.")
    endpoint = Endpoint(args.url, api_key=args.api_key)
    model = args.model or next(iter(asyncio.run(list_models(endpoint))), None)
    if not model:
        raise LabError(f"{endpoint.base_url}/models lists no model: name one with --model.")
    requests = [RemoteRequest(args.prompt, args.max_tokens, chat=args.chat, ignore_eos=True)]
    scale = Scale(args.by, args.rate_step if args.by == "rate" else 1.0)
    result = search(
        server_measure(endpoint, model, requests, slo, scale=scale, budget_s=args.budget),
        slo,
        budget_s=args.budget,
        max_load=scale.levels(args.max_rate if args.by == "rate" else args.max_load),
        on_point=lambda point, _: print(point_line(point, scale), flush=True),
        scale=scale,
    )
    dropped = result.dropped()
    if dropped is not None:
        print(f"{word(dropped[0])} {dropped[1]}")
    print(word(result.message()))
    if args.out is not None:
        points = [p for p in (*result.points.values(), result.failed) if p is not None and p.run]
        runs = [(p.run, p.seen or MetricsWatch(note="not read")) for p in points]
        kind = next((p.seen.kind for p in points if p.seen is not None and p.seen.kind), None)
        args.out.write_text(dump_saved(Saved(endpoint.base_url, model, kind, runs)), encoding="utf-8")
        print(f"saved {len(runs)} loads to {args.out}")
    return 1 if result.failed is not None else 0


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        return run(args)
    except (LabError, RemoteError, OSError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
