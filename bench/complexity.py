"""Cost of generation with and without the KV cache (C13-C15): fitted exponents of the cumulative
decode time and of the counted FLOPs against the number of decode steps, on the bundled model.

    .venv/bin/python bench/complexity.py [--prompt-len 32 256] [--new-tokens 128] [--repeats 3]

Each repeat generates N tokens greedily (EOS ignored) with and without the cache, the two raced a
decode step each in turn as the complexity lab page races them (lab/complexity_race.py), so the i-th
steps of both see the same load; a step's time is its median over the repeats. The slope is the
least-squares fit of log(cumulative) on log(n) over log-spaced n from 4 to N - 1, the same fit the
page shows: the FLOPs' exact, the time's with the page's 95 % interval (a bootstrap of the steps' own
noise); beside them the slope of the document's Σ(L+t) / Σ(L+t)² over that range and its asymptotic
exponent, and the per-step time ratio without ÷ with (every repeat's paired steps: their median, its
interval and n).
"""

from __future__ import annotations

import argparse
import os
import statistics
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
from lab.complexity_math import (  # noqa: E402
    fit_steps,
    measured_exponents,
    prompt_of_length,
    scaled_theory,
    time_exponent,
)
from lab.complexity_race import race_cache  # noqa: E402
from lab.pairing import RatioInterval, ratio_interval  # noqa: E402


def median_run(runs: list[CacheRun]) -> CacheRun:
    """One run whose step times are the per-step medians over the repeats (FLOPs are identical)."""
    first = runs[0]
    ms = [statistics.median(r.step_ms[i] for r in runs) for i in range(len(first.step_ms))]
    return CacheRun(first.kv_cache, first.tokens, ms, first.flops_linear, first.flops_attention)


def measure(bundle, prompt_len: int, new_tokens: int, repeats: int) -> tuple[dict[bool, CacheRun], RatioInterval]:
    """The per-step median runs both ways, and every repeat's paired steps' ratio without ÷ with."""
    ids = prompt_of_length(bundle.tokenizer, prompt_len)
    run_with_and_without_cache(bundle.model, bundle.tokenizer, ids, 4)  # warm-up: first-use costs
    samples: dict[bool, list[CacheRun]] = {True: [], False: []}
    for _ in range(repeats):
        race = race_cache(bundle.model, bundle.tokenizer, ids, new_tokens)
        assert race.runs[True].tokens == race.runs[False].tokens, "the cache changed the tokens"
        for kv in (True, False):
            samples[kv].append(race.runs[kv])
    off = [ms for r in samples[False] for ms in r.step_ms]
    on = [ms for r in samples[True] for ms in r.step_ms]
    return {kv: median_run(samples[kv]) for kv in (True, False)}, ratio_interval(off, on)


def fmt(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f}"


def report(prompt_len: int, runs: dict[bool, CacheRun], paired: RatioInterval) -> list[str]:
    lines = []
    for kv in (True, False):
        run = runs[kv]
        flops_slope = measured_exponents(run)[1]
        ms = time_exponent(run.step_ms)
        theory = scaled_theory(prompt_len, run.cumulative_flops, 1 if kv else 2)
        steps = fit_steps(len(run.step_ms))
        first, last = run.step_ms[steps[0] - 1], run.step_ms[-1]
        time_slope = "—" if ms is None else f"{ms.value:.2f} [{ms.low:.2f}–{ms.high:.2f}]"
        ratio = (
            f"{paired.median:.2f}× [{paired.low:.2f}–{paired.high:.2f}], n = {paired.n}" if not kv else "1 (the base)"
        )
        lines.append(
            f"| {prompt_len} | {'on' if kv else 'off'} | {sum(run.step_ms):.0f} | {first:.1f} → {last:.1f} | "
            f"{time_slope} | {fmt(flops_slope)} | {fmt(theory.slope)} | {2 if kv else 3} | {ratio} |"
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
        f"N = {args.new_tokens} generated tokens ({args.new_tokens - 1} decode steps), both raced a step each in turn, "
        f"median of {args.repeats} repeats per step; fit over n in {fit_steps(args.new_tokens - 1)}\n"
    )
    print(
        "| L | cache | decode ms | step ms (n=4 → last) | slope: time (95 % interval) | slope: FLOPs | "
        "document's curve here | document's exponent | step time ÷ with the cache |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    start = time.perf_counter()
    for prompt_len in args.prompt_len:
        for line in report(prompt_len, *measure(bundle, prompt_len, args.new_tokens, args.repeats)):
            print(line, flush=True)
    print(f"\nwall {time.perf_counter() - start:.0f} s; load average {os.getloadavg()[0]:.2f} at the end")
    return 0


if __name__ == "__main__":
    with recorded("complexity"):
        code = main()
    sys.exit(code)
