"""Roofline lab numbers for the docs, in one run on the bundled model:

    .venv/bin/python bench/roofline.py [--lengths 16 128 512] [--new-tokens 32] [--repeats 5] [--device cuda]

1. this machine's ceilings, measured afresh (lab/hardware.py; the cache is updated), with how busy
   other work kept the machine meanwhile;
2. calibration: TTFT and TPOT predicted from those ceilings (lab/projection.py formulas, efficiency 1)
   against the engine's measured TTFT and TPOT, batch 1, greedy, memory probe off, in rounds: measured ÷
   predicted with its interval and n (the page's rule);
3. the roofline: the batch sizes raced a step each in turn, median decode and prefill step per batch
   size, share of each ceiling, and the largest batch's decode FLOP/s ÷ B = 1's, paired step by step;
4. the GPU projection against the published figures it is checked on (lab/projection.py).
Other work on the same cores lowers every roof and slows every step: each number says so beside it.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench.pair_words import ratio_text, verdict_text  # noqa: E402
from bench.record import recorded  # noqa: E402
from engine import load_model  # noqa: E402
from engine.config import PRESETS  # noqa: E402
from engine.observe.machine import describe_cpu  # noqa: E402
from lab.calibration import calibrate  # noqa: E402
from lab.complexity_math import prompt_of_length  # noqa: E402
from lab.hardware import machine_ceilings  # noqa: E402
from lab.projection import GPU_PRESETS, PUBLISHED, predict_tpot, predict_ttft  # noqa: E402
from lab.roofline import rate_ratio, run_roofline, summarise  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--lengths", type=int, nargs="+", default=[16, 128, 512])
    ap.add_argument("--new-tokens", type=int, default=32)
    ap.add_argument("--repeats", type=int, default=5, help="calibration rounds (5: the fewest pairs to judge by)")
    ap.add_argument("--batches", type=int, nargs="+", default=[1, 2, 4, 8, 16])
    ap.add_argument("--device", default="cpu", help="cpu or cuda: the model and the ceilings on it")
    args = ap.parse_args()
    bundle = load_model(device=args.device)
    load = os.getloadavg()[0]
    ceil = machine_ceilings(args.device, remeasure=True)
    peak, bw = ceil.peak_flops("float32"), ceil.read_bytes_per_s
    print(f"# {describe_cpu()}" + (f"; {ceil.device_name}" if args.device != "cpu" else ""))
    print(
        f"# {bundle.name}, fp32, {args.device}, torch {torch.__version__}, {ceil.threads} CPU threads, "
        f"load average before: {load:.2f}"
    )
    print(
        f"# ceilings: read {bw / 1e9:.1f} GB/s; GEMM "
        + ", ".join(f"{d} {v / 1e9:.0f} GFLOP/s" for d, v in ceil.gemm_flops_per_s.items() if v)
        + f"; fp32 ridge {peak / bw:.1f} FLOP/byte"
        + (f"; measured while other work took {ceil.other_cores:.1f} of {ceil.cores} cores" if ceil.busy else "")
        + "\n"
    )

    prompts = {L: prompt_of_length(bundle.tokenizer, L) for L in args.lengths}
    t0 = time.perf_counter()
    rows = calibrate(bundle.model, bundle.tokenizer, ceil, prompts, args.new_tokens, args.repeats)
    took = time.perf_counter() - t0
    print(f"## Calibration (N = {args.new_tokens}, {args.repeats} rounds, lengths alternating, {took:.0f} s)\n")
    print(f"# per-op overhead {1e6 * (ceil.op_overhead_s or 0):.2f} us\n")
    print(
        "| metric | L | predicted ms (roofs) | + overhead ms | measured ms (median) | measured / roofs "
        "| measured / (roofs + overhead) |"
    )
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r.metric} | {r.prompt_len} | {r.predicted_ms:.1f} | {r.overhead_ms:.1f} | {r.measured_ms:.1f} | "
            f"**{ratio_text(r.interval())}** | **{ratio_text(r.interval(with_overhead=True))}** |"
        )

    points, load = run_roofline(bundle.model, bundle.tokenizer, prompts[args.lengths[0]], args.batches, 16)
    print(f"\n## Roofline (L = {args.lengths[0]}, 16 decode steps per batch size, raced in turn; medians)\n")
    print("| phase | B | ms | FLOP/byte | GFLOP/s | GB/s | % compute roof | % bandwidth |")
    print("|---|---|---|---|---|---|---|---|")
    for s in summarise(points):
        print(
            f"| {s.phase} | {s.batch} | {s.ms:.1f} | {s.intensity:.2f} | {s.flops_per_s / 1e9:.1f} | "
            f"{s.bytes_per_s / 1e9:.1f} | {100 * s.flops_per_s / peak:.0f} % | {100 * s.bytes_per_s / bw:.0f} % |"
        )
    top, one = max(args.batches), min(args.batches)
    r = rate_ratio(points, top, one, load=load)
    print(
        f"\nDecode FLOP/s at B = {top} ÷ B = {one}, paired step by step: {ratio_text(r)} "
        f"({verdict_text(r, 'higher', 'lower')})"
    )

    print("\n## Projection against published figures (efficiency 0.7 / 0.7, fp16 weights)\n")
    print("| source | model | GPU | metric | published | projected | error |")
    print("|---|---|---|---|---|---|---|")
    for source, model, gpu, metric, length, published in PUBLISHED:
        c, g = PRESETS[model], GPU_PRESETS[gpu]
        if metric == "TTFT":
            ms = predict_ttft(c, length, g.peak_flops_per_s, g.bytes_per_s).seconds * 1e3
        else:
            ms = predict_tpot(c, 1, length + 1, g.peak_flops_per_s, g.bytes_per_s).seconds * 1e3
        print(
            f"| {source} | {model} | {gpu} | {metric} L={length} | {published:.2f} ms | {ms:.2f} ms | "
            f"{100 * (ms / published - 1):+.0f} % |"
        )
    print(f"\n# load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    with recorded("roofline"):
        main()
