"""The capacity of our server on the bundled model within two SLOs, with chunked prefill on and off,
in one run: `python -m engine serve` on loopback, the capacity search of lab/load_capacity.py (short
concurrent loads, doubling then bisecting) against each, the answer in a table with the cause the
server's metrics give for the first load that missed.

    .venv/bin/python bench/capacity.py [--budget 120] [--max-load 16] [--max-tokens 32]

Each request sends a chat question of the lab's question set and asks for --max-tokens tokens with
EOS ignored. The server's CPU time is part of the measurement; other processes' is not (a search
that ran on a busy machine says so).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench.record import recorded  # noqa: E402
from engine.entrypoints.launch import engine_server  # noqa: E402
from lab.catalogues import word  # noqa: E402
from lab.load_capacity import search, server_measure  # noqa: E402
from lab.remote_client import Endpoint, RemoteRequest  # noqa: E402
from lab.slo import SLO  # noqa: E402
from lab.workload import QUESTIONS  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
# One request alone meets both with room on this project's machines (see bench/decode.py); more at once break them.
SLOS = {"interactive": "ttft=300,tpot=60", "relaxed": "ttft=1000,tpot=150"}
SERVERS = {"chunked prefill": (), "whole prompts": ("--no-chunked-prefill",)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--budget", type=float, default=120.0, help="seconds per search")
    ap.add_argument("--max-load", type=int, default=16)
    ap.add_argument("--max-tokens", type=int, default=32)
    args = ap.parse_args()
    requests = [RemoteRequest(q, args.max_tokens, chat=True, ignore_eos=True) for q in QUESTIONS]
    rows = []
    for server, flags in SERVERS.items():
        log = ROOT / "test-artifacts" / "bench-capacity-serve.log"
        log.parent.mkdir(exist_ok=True)
        with engine_server("bundled", log, *flags) as url:
            endpoint = Endpoint(url)
            for name, text in SLOS.items():
                slo = SLO.parse(text)
                measure = server_measure(endpoint, "SmolLM2-135M-Instruct", requests, slo, budget_s=args.budget)
                result = search(measure, slo, args.budget, args.max_load)  # each load ends where the budget does
                print(f"# {server}, {name} SLO: {word(result.message())}", flush=True)
                rows.append((server, name, text, result))
    print("\n| server | SLO | thresholds (ms, 90 %) | holds | breaks at | broke first | why | loads measured | busy |")
    print("|---|---|---|---|---|---|---|---|---|")
    for server, name, text, r in rows:
        why = word(r.cause.message()) if r.cause is not None else "—"
        print(
            f"| {server} | {name} | {text} | {r.good or 0} | {r.bad or '—'} | {(r.limiting or '—').upper()} "
            f"| {why} | {len(r.points)} | {'yes' if r.busy else 'no'} |"
        )
    return 0


if __name__ == "__main__":
    with recorded("capacity"):
        code = main()
    sys.exit(code)
