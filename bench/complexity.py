"""Cost of generation with and without the KV cache (C13-C15): fitted exponents of the cumulative
decode time and of the counted FLOPs against the number of decode steps, on the bundled model.

    .venv/bin/python bench/complexity.py [--prompt-len 32 256] [--new-tokens 128] [--repeats 3]

Each repeat generates N tokens greedily (EOS ignored) with the cache, then without it; a step's time
is its minimum over the repeats: on a shared CPU noise only ever adds time, so the fastest of a few
runs is the best estimate of the step's own cost (one preempted step would otherwise bend the curve). The slope is the
least-squares fit of log(cumulative) on log(n) over log-spaced n from 4 to N - 1, the same fit the
complexity lab page shows; beside it, the slope of the document's Σ(L+t) / Σ(L+t)² over that range
and its asymptotic exponent.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench.record import recorded  # noqa: E402
from engine import load_model  # noqa: E402
from engine.loader.model_loader import convert_bundled  # noqa: E402
from engine.observe.machine import describe_cpu  # noqa: E402
from lab.complexity import CacheRun, crossover_context, run_with_and_without_cache  # noqa: E402
from lab.complexity_math import fit_steps, measured_exponents, prompt_of_length, scaled_theory  # noqa: E402


def fastest_run(runs: list[CacheRun]) -> CacheRun:
    """One run whose step times are the per-step minima over the repeats (FLOPs are identical)."""
    first = runs[0]
    ms = [min(r.step_ms[i] for r in runs) for i in range(len(first.step_ms))]
    return CacheRun(first.kv_cache, first.tokens, ms, first.flops_linear, first.flops_attention)


def measure(bundle, prompt_len: int, new_tokens: int, repeats: int) -> dict[bool, CacheRun]:
    ids = prompt_of_length(bundle.tokenizer, prompt_len)
    run_with_and_without_cache(bundle.model, bundle.tokenizer, ids, 4)  # warm-up: first-use costs
    samples: dict[bool, list[CacheRun]] = {True: [], False: []}
    for _ in range(repeats):
        runs = run_with_and_without_cache(bundle.model, bundle.tokenizer, ids, new_tokens)
        assert runs[True].tokens == runs[False].tokens, "the cache changed the tokens"
        for kv in (True, False):
            samples[kv].append(runs[kv])
    return {kv: fastest_run(samples[kv]) for kv in (True, False)}


def fmt(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f}"


def report(prompt_len: int, runs: dict[bool, CacheRun]) -> list[str]:
    lines = []
    for kv in (True, False):
        run = runs[kv]
        ms_slope, flops_slope = measured_exponents(run)
        theory = scaled_theory(prompt_len, run.cumulative_flops, 1 if kv else 2)
        steps = fit_steps(len(run.step_ms))
        first, last = run.step_ms[steps[0] - 1], run.step_ms[-1]
        lines.append(
            f"| {prompt_len} | {'on' if kv else 'off'} | {sum(run.step_ms):.0f} | {first:.1f} → {last:.1f} | "
            f"{fmt(ms_slope)} | {fmt(flops_slope)} | {fmt(theory.slope)} | {2 if kv else 3} |"
        )
    return lines


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--prompt-len", type=int, nargs="+", default=[32, 256])
    ap.add_argument("--new-tokens", type=int, default=128)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    bundle = load_model(str(convert_bundled()), dtype="float32", device="cpu")
    c = bundle.model.config
    print(f"# {describe_cpu()}")
    print(
        f"model {Path(bundle.name).name}: {c.num_layers} layers, hidden {c.hidden_size}; torch {torch.__version__}, "
        f"{torch.get_num_threads()} threads, load average {os.getloadavg()[0]:.2f} at start"
    )
    print(
        f"attention overtakes the linear layers at C* = {crossover_context(c, True):,} tokens with the cache, "
        f"{crossover_context(c, False):,} without"
    )
    print(
        f"N = {args.new_tokens} generated tokens ({args.new_tokens - 1} decode steps), fastest of {args.repeats} "
        f"repeats per step; fit over n in {fit_steps(args.new_tokens - 1)}\n"
    )
    print(
        "| L | cache | decode ms | step ms (n=4 → last) | slope: time | slope: FLOPs | "
        "document's curve here | document's exponent |"
    )
    print("|---|---|---|---|---|---|---|---|")
    start = time.perf_counter()
    for prompt_len in args.prompt_len:
        for line in report(prompt_len, measure(bundle, prompt_len, args.new_tokens, args.repeats)):
            print(line, flush=True)
    print(f"\nwall {time.perf_counter() - start:.0f} s; load average {os.getloadavg()[0]:.2f} at the end")
    return 0


if __name__ == "__main__":
    with recorded("complexity"):
        code = main()
    sys.exit(code)
