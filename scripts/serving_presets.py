"""The serving lab's three presets at the page's own sizes and through the page's own code path
(app_pages/serving: the same workloads, policies, pool and step budget): the numbers each preset's
note tells a user to look at, policy A against policy B, in alternating repeats.

    .venv/bin/python scripts/serving_presets.py [--repeats 2] [--size small|full]

Arrivals are in real time, so every number here moves with the machine's load; the record says how
busy it was. It runs page code, so it lives in scripts/ (bench/ imports only engine and lab).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app_pages.serving.keys import param  # noqa: E402
from app_pages.serving.notes import NOTED  # noqa: E402
from app_pages.serving.run import DEFAULT_BATCH, PRESET_BATCH, PRESET_POLICIES, ServingSettings, run_policy  # noqa: E402
from app_pages.serving.run_latencies import ALL, ids_in  # noqa: E402
from app_pages.serving.workload import PARAMS, build_preset, param_values  # noqa: E402
from engine import load_model  # noqa: E402
from engine.loader.model_loader import convert_bundled  # noqa: E402

PRESETS = ("head-of-line", "shared-prefix", "random-mix")
# Beyond each note's own numbers: what a user reads next on the page.
EXTRA = {
    "head-of-line": (("chat", "itl_ms", "p50"), ("chat", "itl_ms", "p99")),  # P99: the stall itself
    "shared-prefix": (),
    "random-mix": (),
}


def values_of(preset: str, size: str) -> dict[str, float]:
    """{param name: value} as build_preset takes them, at the page's small or full size."""
    return {p.name: param_values(preset, size)[param(preset, p.name)] for p in PARAMS[preset]}


def cell(runs: list, group: str, metric: str, stat: str) -> tuple[str, int]:
    """'446 / 398 ms' over the repeats, and n (the requests or gaps behind each percentile)."""
    found = [run.summary(ids_in(run, group))[metric] for run in runs]
    return " / ".join(f"{f[stat]:.0f}" for f in found) + " ms", min(f["n"] for f in found)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--size", choices=("small", "full"), default="small")
    args = ap.parse_args()
    bundle = load_model(str(convert_bundled()), dtype="float32", device="cpu")
    print(
        f"# bundled model, float32, the page's {args.size} sizes, {args.repeats} alternating repeats (first / second)\n"
    )
    print("| preset: A → B | what to look at | n | A | B |\n|---|---|---|---|---|")
    for preset in PRESETS:
        specs = build_preset(preset, bundle.tokenizer, values_of(preset, args.size))
        a, b = PRESET_POLICIES[preset]
        settings = ServingSettings(policy_a=a, policy_b=b, max_num_seqs=PRESET_BATCH.get(preset, DEFAULT_BATCH))
        runs = {"a": [], "b": []}
        for _ in range(args.repeats):
            for slot in ("a", "b"):
                runs[slot].append(run_policy(bundle, specs, settings, slot))
        first = f"{preset} ({len(specs)} requests): {a} → {b}"
        looks = [(g, m, s) for g, m, s, _ in NOTED[preset]] + list(EXTRA[preset])
        for i, (group, metric, stat) in enumerate(looks):
            (ca, n), (cb, _) = cell(runs["a"], group, metric, stat), cell(runs["b"], group, metric, stat)
            who = "all requests" if group == ALL else f"{group}s"
            print(
                f"| {first if i == 0 else ''} | {who}' {metric.removesuffix('_ms').upper()} {stat.upper()} | {n} | {ca} | {cb} |"
            )
        tput = [" / ".join(f"{r.summary()['throughput_tok_s']:.0f}" for r in runs[s]) + " tok/s" for s in ("a", "b")]
        print(f"|  | throughput | {len(specs)} | {tput[0]} | {tput[1]} |", flush=True)


if __name__ == "__main__":
    from bench.record import recorded

    with recorded("serving_presets"):
        main()
