"""Weight formats and KV cache dtypes on the bundled model, side by side in one run: what each stores,
what a decode step reads, the TPOT and prefill time it measures, the bandwidth that implies, and
its quality against float32 (lab/precision.py: perplexity, KL, top-1 and greedy agreement).

    .venv/bin/python bench/precision.py [--repeats 3] [--long 4096] [--skip-quality]

Each format is timed beside float32 as the precision lab times it (lab/precision_timing.py): both
decode the same prompt a step each in turn, and "÷ fp32" is the median of the paired step ratios with
its 95 % interval and n; prefill likewise, runs of one prompt interleaved. A verdict (faster, slower)
is stated only where the whole interval lies on one side of 1, else "not separable here": the page's
rule. TPOT and prefill are the format's own medians, from the engine's step times with the memory
probe off. "Read/step" is what the cost model says one decode step reads (weights, then the KV of the
context), counted exactly; "reached" is that over the TPOT.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench.decode_parts import prompt_ids  # noqa: E402
from bench.record import recorded  # noqa: E402
from engine import Engine, EngineConfig, SamplingParams, load_model  # noqa: E402
from engine.observe.machine import describe_cpu  # noqa: E402
from lab.pairing import GREATER, LESS, RatioInterval, compare  # noqa: E402
from lab.precision import (  # noqa: E402
    GREEDY_TOKENS,
    PROMPTS,
    chunk_logits,
    greedy_agreement,
    read_text,
    text_agreement,
)
from lab.precision_formats import decode_step_cost, kv_token_bytes  # noqa: E402
from lab.precision_timing import TimingPlan, time_against  # noqa: E402

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


def plan(args, prefill_len: int = 256) -> TimingPlan:
    """The page's pairing, with the bench's repeats and no time budget cutting a slow format short."""
    r = max(1, args.repeats)
    return TimingPlan(16 * r, 6 * r, decode_budget_s=1e9, prefill_budget_s=1e9, prefill_len=prefill_len)


def ratio(r: RatioInterval | None) -> str:
    """As the pages word it (ui/paired.py): the median of the paired ratios, its interval and n."""
    return "1 (the base)" if r is None else f"{r.median:.2f}× [{r.low:.2f}–{r.high:.2f}], n = {r.n}"


def on_threads(t) -> str:
    """Beside other work a configuration's rounds run on the cores it leaves free: said beside its ratio."""
    return (
        f" (on {t.threads} of {t.of_threads} threads: other work held a core)" if t and t.threads < t.of_threads else ""
    )


def verdict(r: RatioInterval | None) -> str:
    """The page's rule: a side only where the whole interval lies there."""
    if r is None:
        return "the base"
    side = compare(r)
    return "faster" if side == LESS else "slower" if side == GREATER else "not separable here"


def load_all() -> dict:
    bundles = {}
    for dtype, weights in WEIGHTS:
        start = time.perf_counter()
        bundles[f"{weights} / {dtype}"] = b = load_model("bundled", dtype=dtype, weights=weights)
        kernels = sorted({k for lin in b.model.linears().values() for k in lin.kernels})
        print(
            f"  loaded {weights:>6} weights, {dtype:>8} activations in {time.perf_counter() - start:5.1f} s "
            f"(kernels: {', '.join(kernels)})"
        )
    return bundles


def weights_table(args) -> dict:
    bundles = load_all()
    fp32 = bundles["native / float32"]
    short = prompt_ids(fp32.tokenizer, 16)
    timed = {name: time_against(fp32, b, "auto", short, plan(args)) for name, b in bundles.items() if b is not fp32}
    base = next(iter(timed.values()))
    print("\nWeights (KV in the activations' dtype), decode at L = 16, batch 1; prefill at L = 256:\n")
    row("weights / activations", "held MB", "read/step MB", "TPOT ms", "÷ fp32", "decode", "reached GB/s", "prefill ms")
    print("|---|---|---|---|---|---|---|---|")
    for name, b in bundles.items():
        t = timed.get(name)
        tpot, prefill = (t.tpot_ms, t.prefill_ms) if t else (base.ref_tpot_ms, base.ref_prefill_ms)
        read = read_per_step(b, kv_token_bytes(b.model.config, "auto", b.model.dtype), round(base.context))
        cells = (
            f"{tpot:.1f}",
            ratio(t and t.decode) + on_threads(t),
            verdict(t and t.decode),
            f"{read / tpot / 1e6:.1f}",
        )
        row(
            name,
            f"{b.model.weight_bytes / 1e6:.0f}",
            f"{read / 1e6:.0f}",
            *cells,
            f"{prefill:,.0f}" + (f" ({ratio(t.prefill)})" if t else ""),
        )
    return bundles


def row(*cells: str) -> None:
    """One row of a Markdown table: the bench record keeps its tables as data (bench/record.py)."""
    print("| " + " | ".join(cells) + " |")


def kv_table(fp32, args) -> None:
    ids = prompt_ids(fp32.tokenizer, args.long)
    got = {kv: time_against(fp32, fp32, kv, ids, plan(args, 64)) for kv in KV_DTYPES[1:]}
    base = next(iter(got.values()))
    print(f"\nKV cache dtype, float32 weights, decode at L = {args.long:,}, batch 1:\n")
    header = ("bytes/token", "KV read/step MB", "× fp32", "TPOT ms", "÷ fp32", "decode")
    row(f"KV dtype (float32 weights, L = {args.long:,})", *header)
    print("|---|---|---|---|---|---|---|")
    base_kv = kv_token_bytes(fp32.model.config, "auto", fp32.model.dtype) * args.long
    for kv in KV_DTYPES:
        per_token = kv_token_bytes(fp32.model.config, kv, fp32.model.dtype)
        t = got.get(kv)
        kv_read = per_token * args.long
        tpot = t.tpot_ms if t else base.ref_tpot_ms
        cells = (f"{tpot:.1f}", ratio(t and t.decode) + on_threads(t), verdict(t and t.decode))
        row(kv, f"{per_token:,}", f"{kv_read / 1e6:.1f}", f"{kv_read / base_kv:.2f}", *cells)


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
    parser.add_argument("--repeats", type=int, default=3, help="× the page's paired rounds per format")
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
