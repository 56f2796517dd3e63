"""Batch-1 greedy prefill and decode: our engine beside Hugging Face `generate`, in one run,
each beside the floors computed from this machine's measured ceilings; then what the memory pass
costs the timings (nothing), where a decode step's time goes, the kernel each layer runs and the
detokenizer's cost per token (bench/decode_parts.py).

    .venv/bin/python bench/decode.py [--repeats 5] [--new-tokens 64] [--profile] [--device cuda]

Floor = the roofline: max(FLOPs / measured GEMM rate, bytes moved / measured read bandwidth),
where bytes are the weights plus the KV cache read and written (engine/observe/costmodel.py). Timings are
medians of interleaved repeats (ours, HF, ours, HF, ...): five by default, as bench/peers.py, since
one prefill of 1,024 tokens varies by ±5 % from run to run on a shared 2-core VM.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench.decode_parts import (
    detokenizer_cost,
    kernel_table,
    memory_pass_overhead,
    ours,  # noqa: E402
    prefill_parts,
    prompt_ids,
    step_breakdown,
)
from bench.record import recorded  # noqa: E402
from engine import load_model  # noqa: E402
from engine.loader.model_loader import convert_bundled  # noqa: E402
from engine.observe.costmodel import SeqWork, layer_weight_bytes, step_cost  # noqa: E402
from engine.observe.machine import describe_cpu  # noqa: E402
from lab.hardware import Ceilings, measure_ceilings, measure_device_ceilings  # noqa: E402


class TimingStreamer:
    """HF streamer that timestamps each token as generate() hands it out."""

    def __init__(self):
        self.times: list[float] = []
        self.prompt_seen = False

    def put(self, value):
        if not self.prompt_seen:  # the first put() is the prompt itself
            self.prompt_seen = True
            return
        self.times.append(time.perf_counter())

    def end(self):
        pass


def hf(model, ids: list[int], new_tokens: int, pad_id: int) -> tuple[float, float]:
    streamer = TimingStreamer()
    start = time.perf_counter()
    model.generate(
        torch.tensor([ids], device=model.device),
        max_new_tokens=new_tokens,
        do_sample=False,
        eos_token_id=None,
        pad_token_id=pad_id,
        streamer=streamer,
    )
    t = streamer.times
    ttft = (t[0] - start) * 1e3
    return ttft, (t[-1] - t[0]) * 1e3 / (len(t) - 1) if len(t) > 1 else 0.0


def device_ceilings(device: str) -> Ceilings:
    """A GPU's measured fp32 roofs (CUDA events), in the shape the floors below read."""
    d = measure_device_ceilings(device)
    return Ceilings(
        read_gbs=d.read_bytes_per_s / 1e9,
        gemm_gflops=d.peak_flops("float32") / 1e9,
        gemm_kernel=d.gemm_kernel,
        threads=d.threads,
        read_how=f"torch.sum over 2 GiB on {d.device_name}, CUDA events",
        gemm_how=d.gemm_kernel.split(";")[0].removeprefix("float32: "),
    )


def floor_ms(cost, ceil) -> float:
    """The roofline floor of one step: whichever of compute and memory traffic takes longer."""
    return max(cost.flops / ceil.gemm_gflops, cost.bytes_moved / ceil.read_gbs) / 1e6


def median_pairs(runs: list[tuple[float, float]]) -> tuple[float, float]:
    return statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs)


def row(name: str, mine: float, theirs: float | None, floor: float | None) -> str:
    theirs_s = f"{theirs:9.1f}" if theirs is not None else "        –"
    ratio_hf = f"{mine / theirs:6.2f}" if theirs else "     –"
    floor_s = f"{floor:8.1f}" if floor is not None else "       –"
    ratio_floor = f"{mine / floor:6.2f}" if floor else "     –"
    return f"| {name:<34} | {mine:9.1f} | {theirs_s} | {ratio_hf} | {floor_s} | {ratio_floor} |"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--new-tokens", type=int, default=64)
    ap.add_argument("--lengths", type=int, nargs="+", default=[16, 256, 1024])
    ap.add_argument("--profile", action="store_true", help="print an op profile of our prefill at the longest L")
    ap.add_argument("--device", default="cpu", help="cpu or cuda: both models and the ceilings on it")
    args = ap.parse_args()
    from transformers import AutoModelForCausalLM

    bundle = load_model(device=args.device)
    hf_model = AutoModelForCausalLM.from_pretrained(convert_bundled(), dtype=torch.float32).to(args.device).eval()
    pad = bundle.tokenizer.eos_token_id
    ceil = measure_ceilings() if args.device == "cpu" else device_ceilings(args.device)
    c = bundle.model.config
    weights = layer_weight_bytes(c, 4)  # what every step reads, for the header line
    kv_token = c.kv_bytes_per_token(4)
    print(f"# {describe_cpu()}\n# {bundle.name}, fp32, batch 1, greedy, {ceil.describe()}")
    print(f"# weights read per decode step {weights / 1e6:.0f} MB; KV {kv_token / 1e3:.1f} kB per token\n")
    print("| measurement (ms)                   |      ours |        HF | ours/HF |    floor | ours/floor |")
    print("|------------------------------------|-----------|-----------|--------|----------|--------|")
    ours(bundle, prompt_ids(bundle.tokenizer, 8), 4)  # warm both up
    hf(hf_model, prompt_ids(bundle.tokenizer, 8), 4, pad)
    for L in args.lengths:
        ids = prompt_ids(bundle.tokenizer, L)
        mine, theirs = [], []
        for _ in range(args.repeats):
            mine.append(ours(bundle, ids, args.new_tokens))
            theirs.append(hf(hf_model, ids, args.new_tokens, pad))
        (m_pre, m_tpot), (h_pre, h_tpot) = median_pairs(mine), median_pairs(theirs)
        print(row(f"prefill L={L} (TTFT)", m_pre, h_pre, floor_ms(step_cost(c, [SeqWork(L, L)], 4), ceil)))
        mid_ctx = L + args.new_tokens // 2  # the average context a decode step reads
        print(
            row(
                f"TPOT after L={L}, {args.new_tokens} tokens",
                m_tpot,
                h_tpot,
                floor_ms(step_cost(c, [SeqWork(1, mid_ctx)], 4), ceil),
            )
        )
    memory_pass_overhead(bundle, args.repeats, args.new_tokens)
    if args.device == "cpu":
        step_breakdown(bundle, args.new_tokens)
        kernel_table(bundle)
    else:
        print("\n(A step's CPU op profile and the CPU kernel choices: CPU runs only.)")
    detokenizer_cost(bundle.tokenizer)
    if args.device == "cpu":  # one thread too: how each part scales to the machine's threads
        threads = torch.get_num_threads()
        for n in sorted({1, threads}):
            torch.set_num_threads(n)
            prefill_parts(bundle, max(args.lengths), 2 * args.repeats)
        torch.set_num_threads(threads)
    if args.profile:
        profile_prefill(bundle, max(args.lengths))


def profile_prefill(bundle, L: int) -> None:
    from torch.profiler import ProfilerActivity, profile

    ids = prompt_ids(bundle.tokenizer, L)
    ours(bundle, ids, 1)
    with profile(activities=[ProfilerActivity.CPU], record_shapes=True) as prof:
        ours(bundle, ids, 1)
    print(f"\nOp profile of our prefill at L={L}:")
    print(
        prof.key_averages(group_by_input_shape=True).table(
            sort_by="self_cpu_time_total", row_limit=8, max_name_column_width=45, max_shapes_column_width=60
        )
    )


if __name__ == "__main__":
    with recorded("decode"):
        main()
