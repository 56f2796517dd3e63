"""Decode TPOT under each OpenMP thread setting, on a quiet machine and beside one busy-looping
process: why the app keeps PyTorch's default and when `OMP_NUM_THREADS=1` is the better choice.

    .venv/bin/python bench/threads.py [--prompt-len 16] [--new-tokens 48] [--repeats 3]

Each setting runs in a fresh process (OpenMP reads its environment once, at start): the bundled
model, greedy, EOS ignored, one warm-up request, then the median TPOT of the repeats. The busy
process is this bench's own (`while True: pass`), started beside each measurement and stopped by its
PID; the record's load meter counts it as the bench's work, so the record itself stays "quiet" only
when nothing else ran.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.record import recorded  # noqa: E402

SETTINGS = {
    "default (all cores, spinning)": {},
    "`OMP_WAIT_POLICY=PASSIVE`": {"OMP_WAIT_POLICY": "PASSIVE"},
    "`GOMP_SPINCOUNT=10000`": {"GOMP_SPINCOUNT": "10000"},
    "`OMP_NUM_THREADS=1`": {"OMP_NUM_THREADS": "1"},
}
OMP_KEYS = {key for env in SETTINGS.values() for key in env}  # dropped from the inherited environment


def child(prompt_len: int, new_tokens: int, repeats: int) -> None:
    """In the measured process: print the median TPOT in ms and the thread count."""
    import torch

    from bench.decode_parts import ours, prompt_ids
    from engine import load_model
    from engine.loader.model_loader import convert_bundled

    bundle = load_model(str(convert_bundled()), dtype="float32", device="cpu")
    ids = prompt_ids(bundle.tokenizer, prompt_len)
    ours(bundle, ids, 8)  # warm-up: kernels chosen, caches filled
    tpots = [ours(bundle, ids, new_tokens)[1] for _ in range(repeats)]
    print(f"{statistics.median(tpots):.2f} {torch.get_num_threads()}")


def measure(env: dict, args, busy: bool) -> tuple[float, int]:
    loop = subprocess.Popen([sys.executable, "-c", "while True: pass"]) if busy else None
    try:
        out = subprocess.run(
            [sys.executable, __file__, "--child", *map(str, [args.prompt_len, args.new_tokens, args.repeats])],
            env={**{k: v for k, v in os.environ.items() if k not in OMP_KEYS}, **env},
            capture_output=True,
            text=True,
            check=True,
        ).stdout.split()
    finally:
        if loop:
            loop.kill()
            loop.wait()
    return float(out[0]), int(out[1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--prompt-len", type=int, default=16)
    ap.add_argument("--new-tokens", type=int, default=48)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    print(
        f"# bundled model, L = {args.prompt_len}, {args.new_tokens} new tokens, median TPOT of {args.repeats}, "
        f"{os.cpu_count()} cores\n"
    )
    print("| setting | threads | quiet TPOT ms | beside a busy process TPOT ms | busy ÷ quiet |")
    print("|---|---|---|---|---|")
    for label, env in SETTINGS.items():
        start = time.perf_counter()
        quiet, threads = measure(env, args, busy=False)
        busy, _ = measure(env, args, busy=True)
        print(f"| {label} | {threads} | {quiet:.1f} | {busy:.1f} | {busy / quiet:.2f}× |", flush=True)
        print(f"# {label}: {time.perf_counter() - start:.0f} s", file=sys.stderr)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        child(*map(int, sys.argv[2:5]))
    else:
        with recorded("threads"):
            main()
