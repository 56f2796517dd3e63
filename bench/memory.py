"""The prefill memory spike on the bundled model: eager against sdpa attention, the formula for the
scores, chunked prefill and one decode step, all from the engine's memory probe (the memory lab's
`measure_prefill_memory`, the same numbers its sweep shows).

    .venv/bin/python bench/memory.py [--lengths 64 256 1024 2048] [--chunk 512] [--timed 1024] [--rounds 5]

Bytes are tensor bytes (CPU tensor tracker), so they do not depend on the machine's load; the record
still notes the machine like every bench's. Then what the scores cost in time at the --timed lengths:
the same uninstrumented prefill with eager and with sdpa, a prefill each in turn (lab/prefill_timing.py),
eager ÷ sdpa with its interval and n and a verdict only where the interval excludes 1 (the page's rule).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.pair_words import ratio_text, verdict_text  # noqa: E402
from bench.record import recorded  # noqa: E402
from engine import load_model  # noqa: E402
from engine.loader.model_loader import convert_bundled  # noqa: E402
from lab.memory_lab import measure_prefill_memory  # noqa: E402
from lab.prefill_timing import time_prefills  # noqa: E402

MIB = 1 << 20


def row(label: str, n: int, bold: bool = False) -> str:
    cells = [label, f"{n:,}", f"{n / MIB:.1f}"]
    if bold:
        cells = [f"**{c}**" for c in cells]
    return "| " + " | ".join(cells) + " |"


def spike_table(bundle, length: int, chunk: int) -> None:
    c = bundle.model.config
    eager = measure_prefill_memory(bundle.model, bundle.tokenizer, length, "eager")
    sdpa = measure_prefill_memory(bundle.model, bundle.tokenizer, length, "sdpa")
    chunked = measure_prefill_memory(bundle.model, bundle.tokenizer, length, "eager", chunk=chunk)
    heads, elem = c.num_heads, eager.formula_scores // (c.num_heads * length * length)
    print(f"\n## One prefill of L = {length}, float32\n")
    print(f"| L = {length}, fp32 | bytes | MiB |\n|---|---|---|")
    print(row("eager: peak above baseline", eager.peak_bytes))
    print(row("… of which attention scores alive at the peak", eager.scores_bytes))
    print(row("sdpa: peak above baseline", sdpa.peak_bytes))
    print(row("eager − sdpa", eager.peak_bytes - sdpa.peak_bytes, bold=True))
    print(row(f"formula: heads × L × L × bytes = {heads} × {length}² × {elem}", eager.formula_scores, bold=True))
    chunk_scores = f"{heads} × {chunk} × {length} × {elem} = {chunked.formula_scores / MIB:.1f} MiB"
    print(row(f"eager, chunks of {chunk}: peak (its scores: {chunk_scores})", chunked.peak_bytes))
    print(row("one decode step after the prefill", eager.decode_peak_bytes))
    kv = f"2 × {c.num_layers} layers × {c.num_kv_heads} kv_heads × {c.head_dim} × {length} × {elem}"
    print(row(f"KV cache written ({kv})", eager.kv_bytes))


def agreement_table(bundle, lengths: list[int]) -> None:
    print("\n## eager − sdpa against the formula, by prompt length\n")
    print(
        "| L | eager − sdpa MiB | formula MiB | share of the formula | eager's peak in | sdpa's peak in |\n"
        "|---|---|---|---|---|---|"
    )
    for length in lengths:
        eager = measure_prefill_memory(bundle.model, bundle.tokenizer, length, "eager")
        sdpa = measure_prefill_memory(bundle.model, bundle.tokenizer, length, "sdpa")
        diff = eager.peak_bytes - sdpa.peak_bytes
        print(
            f"| {length} | {diff / MIB:.3f} | {eager.formula_scores / MIB:.3f} | "
            f"{100 * diff / eager.formula_scores:.1f} % | {eager.site} | {sdpa.site} |"
        )


def timing_table(bundle, lengths: list[int], rounds: int) -> None:
    c = bundle.model.config
    print(f"\n## What the scores cost in time: the same prefill each way, interleaved, {rounds} rounds\n")
    print(
        "| L | scores eager writes, all layers (MiB) | eager ms | sdpa ms | eager ÷ sdpa | verdict |\n"
        "|---|---|---|---|---|---|"
    )
    for length in lengths:
        got = time_prefills(bundle.model, bundle.tokenizer, length, rounds)
        r = got.ratio("eager", "sdpa")
        written = c.num_layers * c.num_heads * length * length * 4
        print(
            f"| {length} | {written / MIB:.1f} | {got.median('eager'):.1f} | {got.median('sdpa'):.1f} "
            f"| {ratio_text(r)} | {verdict_text(r, 'eager slower', 'eager faster')} |",
            flush=True,
        )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lengths", type=int, nargs="+", default=[64, 256, 1024, 2048])
    ap.add_argument("--chunk", type=int, default=512)
    ap.add_argument("--timed", type=int, nargs="*", default=[1024], help="lengths to time eager against sdpa at")
    ap.add_argument("--rounds", type=int, default=5, help="timed rounds (5: the fewest pairs to judge by)")
    args = ap.parse_args()
    bundle = load_model(str(convert_bundled()), dtype="float32", device="cpu")
    print(f"# {Path(bundle.name).name}, float32, CPU tensor tracker")
    spike_table(bundle, max(args.lengths), args.chunk)
    agreement_table(bundle, args.lengths)
    if args.timed:
        timing_table(bundle, args.timed, args.rounds)


if __name__ == "__main__":
    with recorded("memory"):
        main()
