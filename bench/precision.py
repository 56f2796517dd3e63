"""Weight formats and KV cache dtypes on the bundled model, side by side in one run: what each stores,
what a decode step reads, the TPOT and prefill time it measures, the bandwidth that implies, and
its quality against float32 (lab/precision.py: perplexity, KL, top-1 and greedy agreement).

    .venv/bin/python bench/precision.py [--repeats 3] [--long 4096] [--skip-quality]

TPOT and prefill are medians of interleaved repeats (each format once per round), from the
engine's own token times with the memory probe off. "Read/step" is what the cost model says one
decode step reads (weights, then the KV of the context); "reached" is that over the TPOT.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench.decode_parts import ours, prompt_ids  # noqa: E402
from bench.record import recorded  # noqa: E402
from engine import Engine, EngineConfig, SamplingParams, load_model  # noqa: E402
from engine.observe.machine import describe_cpu  # noqa: E402
from lab.precision import (  # noqa: E402
    GREEDY_TOKENS,
    PROMPTS,
    chunk_logits,
    greedy_agreement,
    read_text,
    text_agreement,
)
from lab.precision_formats import decode_step_cost, kv_token_bytes  # noqa: E402

WEIGHTS = [
    ("float32", "native"),
    ("bfloat16", "native"),
    ("float32", "int8"),
    ("bfloat16", "int8"),
    ("float32", "w8a8"),
]
KV_DTYPES = ["auto", "bfloat16", "float8_e4m3fn", "int8"]


def read_per_step(bundle, kv_token: int, context: int) -> float:
    """Bytes one decode step at this context reads: weights as stored, then the KV as stored."""
    m = bundle.model
    cost = decode_step_cost(m.config, m.dtype.itemsize, m.weight_elem_bytes, kv_token, context, 1)
    return cost.weight_bytes + cost.kv_read_bytes


def timed(bundles: dict, ids: list[int], new_tokens: int, repeats: int, kv: dict | None = None) -> dict:
    """name -> (median prefill ms, median TPOT ms), interleaved repeats."""
    runs: dict[str, list[tuple[float, float]]] = {name: [] for name in bundles}
    for _ in range(repeats):
        for name, bundle in bundles.items():
            runs[name].append(ours(bundle, ids, new_tokens, kv_dtype=(kv or {}).get(name, "auto")))
    return {
        name: (statistics.median(r[0] for r in rs), statistics.median(r[1] for r in rs)) for name, rs in runs.items()
    }


def weights_table(args) -> dict:
    bundles = {}
    for dtype, weights in WEIGHTS:
        start = time.perf_counter()
        bundles[f"{weights} / {dtype}"] = b = load_model("bundled", dtype=dtype, weights=weights)
        kernels = sorted({k for lin in b.model.linears().values() for k in lin.kernels})
        print(
            f"  loaded {weights:>6} weights, {dtype:>8} activations in {time.perf_counter() - start:5.1f} s "
            f"(kernels: {', '.join(kernels)})"
        )
    tok = next(iter(bundles.values())).tokenizer
    short = timed(bundles, prompt_ids(tok, 16), args.new_tokens, args.repeats)
    prefill = timed(bundles, prompt_ids(tok, 256), 2, args.repeats)
    base = short["native / float32"][1]
    print("\nWeights (KV in the activations' dtype), decode at L = 16, batch 1; prefill at L = 256:\n")
    row("weights / activations", "held MB", "read/step MB", "TPOT ms", "× fp32", "reached GB/s", "prefill L=256 ms")
    print("|---|---|---|---|---|---|---|")
    for name, b in bundles.items():
        read = read_per_step(b, kv_token_bytes(b.model.config, "auto", b.model.dtype), 16 + args.new_tokens // 2)
        tpot = short[name][1]
        row(
            name,
            f"{b.model.weight_bytes / 1e6:.0f}",
            f"{read / 1e6:.0f}",
            f"{tpot:.1f}",
            f"{tpot / base:.2f}",
            f"{read / tpot / 1e6:.1f}",
            f"{prefill[name][0]:,.0f}",
        )
    return bundles


def row(*cells: str) -> None:
    """One row of a Markdown table: the bench record keeps its tables as data (bench/record.py)."""
    print("| " + " | ".join(cells) + " |")


def kv_table(fp32, args) -> None:
    ids = prompt_ids(fp32.tokenizer, args.long)
    names = {kv: fp32 for kv in KV_DTYPES}
    got = timed(names, ids, 16, max(1, args.repeats - 1), kv={kv: kv for kv in KV_DTYPES})
    print(f"\nKV cache dtype, float32 weights, decode at L = {args.long:,}, batch 1:\n")
    row(
        f"KV dtype (float32 weights, L = {args.long:,})",
        "bytes/token",
        "KV read/step MB",
        "× fp32",
        "TPOT ms",
        "× fp32",
    )
    print("|---|---|---|---|---|---|")
    base_kv = base_tpot = None
    for kv in KV_DTYPES:
        per_token = kv_token_bytes(fp32.model.config, kv, fp32.model.dtype)
        kv_read = per_token * args.long
        tpot = got[kv][1]
        base_kv, base_tpot = base_kv or kv_read, base_tpot or tpot
        row(
            kv,
            f"{per_token:,}",
            f"{kv_read / 1e6:.1f}",
            f"{kv_read / base_kv:.2f}",
            f"{tpot:.1f}",
            f"{tpot / base_tpot:.2f}",
        )


def quality_table(fp32, bundles: dict) -> None:
    ids = fp32.tokenizer(read_text()).input_ids
    prompts = [fp32.tokenizer(p).input_ids for p in PROMPTS]
    engine = Engine(fp32.model, fp32.tokenizer, EngineConfig(probe_memory=False, trace=True))

    def fp32_greedy(prompt: list[int]) -> list[int]:
        return (
            engine.generate(prompt, SamplingParams(max_new_tokens=GREEDY_TOKENS, ignore_eos=True))
            .requests[-1]
            .output_token_ids
        )

    configs = [(name, b, "auto") for name, b in bundles.items() if name != "native / float32"]
    configs += [(f"native / float32, KV {kv}", fp32, kv) for kv in KV_DTYPES[1:]]
    print(
        f"\nQuality against float32 ({len(ids):,} tokens of assets/precision_text.txt, fed 32 per forward; "
        f"{len(prompts)} prompts x {GREEDY_TOKENS} greedy tokens):\n"
    )
    row("configuration", "perplexity", "vs fp32", "KL nats", "top-1", "greedy top-1")
    print("|---|---|---|---|---|---|")
    ref_logits = list(chunk_logits(fp32.model, ids))  # computed once for every configuration
    rows = []
    for name, b, kv in configs:
        text = text_agreement(fp32.model, b.model, ids, kv, ref_logits=ref_logits)
        greedy = greedy_agreement(fp32_greedy, fp32.model, b.model, prompts, kv)
        rows.append((name, text, greedy))
    ref_ppl = rows[0][1].perplexity_ref
    row("float32 on the bundled Q4_1 weights (reference)", f"{ref_ppl:.3f}", "", "", "", "")
    for name, text, greedy in rows:
        row(
            name,
            f"{text.perplexity:.3f}",
            f"{text.perplexity / ref_ppl - 1:+.2%}",
            f"{text.kl_mean:.4f}",
            f"{text.top1_share:.1%}",
            f"{greedy.top1_share:.1%}",
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--new-tokens", type=int, default=48)
    parser.add_argument("--long", type=int, default=4096)
    parser.add_argument("--skip-quality", action="store_true")
    args = parser.parse_args()
    print(describe_cpu())
    bundles = weights_table(args)
    fp32 = bundles["native / float32"]
    kv_table(fp32, args)
    if not args.skip_quality:
        quality_table(fp32, bundles)


if __name__ == "__main__":
    with recorded("precision"):
        main()
