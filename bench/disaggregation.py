"""Prefill and decode on one server against two, on the bundled model, in one run: the same workload
(chats decoding while long prompts arrive: the serving lab's head-of-line case) sent over HTTP to

    colocated, whole prompts     `serve --no-chunked-prefill` on both cores
    colocated, chunked prefill   `serve` (chunks of --chunk tokens beside the decodes) on both cores
    1 prefill + 1 decode worker  `serve --role prefill --cpus 0`, `serve --role decode --cpus 1`
                                 and `router` in front: every prompt's KV handed over per request

    .venv/bin/python bench/disaggregation.py [--repeats 5] [--long 1024] [--chats 4] [--slo ttft=5000,tpot=100]

For each set-up, medians over the rounds (their order alternating, lab/disaggregation_rounds.py): the
chats' worst TPOT and worst gap between two tokens (the stall a long prefill causes in running decodes),
the chats' and the long prompts' TTFT (the hand-off's transfer included: the router's client sees it),
the hand-off's transfer time, goodput and attainment at the SLO over every round; then each set-up
against the whole-prompt server, paired round by round: the ratio with its interval and n, a verdict
only where the interval excludes 1 (the page's rule). On 2 cores the split is uneven by construction:
each worker gets one core, where a colocated server has both for whichever phase runs.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from contextlib import ExitStack
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench.pair_words import ratio_text, verdict_text  # noqa: E402
from bench.record import recorded  # noqa: E402
from engine import load_model  # noqa: E402
from lab.disaggregation import start_setups, summarize, workload  # noqa: E402
from lab.disaggregation_rounds import BASE, goodput_over_rounds, paired, run_rounds  # noqa: E402
from lab.slo import SLO, slo_verdict  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
LOGS = ROOT / "test-artifacts"
MODEL = "SmolLM2-135M-Instruct"
NAMES = {
    "whole": "colocated, whole prompts",
    "chunked": "colocated, chunked prefill",
    "pd": "1 prefill + 1 decode worker",
}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeats", type=int, default=5, help="rounds of the three set-ups (5: the fewest to judge by)")
    ap.add_argument("--long", type=int, default=1024, help="tokens of each long prompt")
    ap.add_argument("--longs", type=int, default=2, help="long prompts, from 0.5 s on, one a second")
    ap.add_argument("--chats", type=int, default=4)
    ap.add_argument("--chat-tokens", type=int, default=48)
    ap.add_argument("--chunk", type=int, default=256, help="the chunked server's token budget per step")
    ap.add_argument("--slo", default="ttft=5000,tpot=100")
    args = ap.parse_args()
    bundle = load_model()
    specs = workload(bundle.tokenizer, args.chats, args.chat_tokens, args.long, args.longs)
    slo = SLO.parse(args.slo)
    print(
        f"# {MODEL} on loopback: {args.chats} chats of {args.chat_tokens} tokens from t = 0, {args.longs} prompts of "
        f"{args.long} tokens from 0.5 s, one a second; SLO {args.slo} for {slo.target:.0%} of requests; "
        f"{args.repeats} rounds, their order alternating\n"
    )
    with ExitStack() as stack:  # every server up once; the rounds alternate the set-ups' order
        servers = start_setups(stack, "bundled", args.chunk, LOGS)
        got = run_rounds(servers.urls, specs, bundle.tokenizer, MODEL, args.repeats, servers.pids)
    sums = [{name: summarize(sr, slo) for name, sr in r.items()} for r in got.rounds]

    def med(name: str, get) -> float:
        return statistics.median(get(s[name]) for s in sums)

    handoff = sums[0]["pd"].handoff_bytes or 0
    print(f"Each long prompt hands over {handoff / 2**20:.1f} MiB (KV in float32, with the request's header).\n")
    print(
        "| set-up | chats' worst TPOT (ms) | chats' worst gap (ms) | chats' TTFT (ms) | long prompts' TTFT (ms) "
        "| hand-off transfer (ms) | goodput (req/s) | attainment | SLO |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for name in NAMES:
        pd_only = sums[0][name].transfer_ms is not None
        transfer = f"{med(name, lambda s: s.transfer_ms):.0f}" if pd_only else "–"
        g = goodput_over_rounds([r[name] for r in got.rounds], slo)
        print(
            f"| {NAMES[name]} | {med(name, lambda s: s.chat_tpot_ms):.1f} | {med(name, lambda s: s.chat_gap_ms):.1f} "
            f"| {med(name, lambda s: s.chat_ttft_ms):.0f} | {med(name, lambda s: s.long_ttft_ms):.0f} | {transfer} "
            f"| {g.goodput:.2f} | {g.attainment:.0%} | {slo_verdict(g, got.load)} |"
        )
    print(
        f"\n| against {NAMES[BASE]}, paired over {len(got.rounds)} rounds ({got.retaken} run again) | ratio | verdict |"
    )
    print("|---|---|---|")
    for name in (n for n in NAMES if n != BASE):
        for what, label, words in (
            ("chat_gap_ms", "chats' worst gap", ("longer", "shorter")),
            ("chat_tpot_ms", "chats' worst TPOT", ("longer", "shorter")),
            ("long_ttft_ms", "long prompts' TTFT", ("longer", "shorter")),
            ("goodput", "goodput", ("more", "less")),
        ):
            r = paired(sums, name, what, BASE, got.retaken, got.load)
            print(f"| {NAMES[name]}: {label} | {ratio_text(r)} | {verdict_text(r, *words)} |")
    return 0


if __name__ == "__main__":
    with recorded("disaggregation"):
        sys.exit(main())
