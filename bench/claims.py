"""The sweeps page's default sweep and the claims page's checks on the bundled model, printed as the
tables the docs quote (verdicts, medians with min-max, the numbers behind each verdict).

    .venv/bin/python bench/claims.py [--repeats 3] [--quick] [--skip-sweep]

Timings depend on the machine and on what else runs on it: the load average is printed first.
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
from lab.claims import check_all  # noqa: E402
from lab.claims_measure import ClaimSettings, measure_all  # noqa: E402
from lab.memory_lab import load_hf_model  # noqa: E402
from lab.sweep_verdicts import sweep_verdicts  # noqa: E402
from lab.sweeps import SweepSettings, run_sweep  # noqa: E402
from lab.verdicts import explain  # noqa: E402


def sweep_tables(bundle, repeats: int) -> None:
    start = time.perf_counter()
    r = run_sweep(bundle.model, bundle.tokenizer, SweepSettings(repeats=repeats), bundle.name)
    print(f"sweep: {len(r.prompt_points) + len(r.output_points)} requests in {time.perf_counter() - start:.1f} s\n")
    print("| L | TTFT ms (min–max) | prefill step ms | TPOT ms (min–max) |\n|---|---|---|---|")
    ttft, pre, tpot = r.by_prompt("ttft_ms"), r.by_prompt("prefill_ms"), r.by_prompt("tpot_ms")
    for L in ttft:
        print(
            f"| {L} | {ttft[L].median:.1f} ({ttft[L].lo:.1f}–{ttft[L].hi:.1f}) | {pre[L].median:.1f} | "
            f"{tpot[L].median:.2f} ({tpot[L].lo:.2f}–{tpot[L].hi:.2f}) |"
        )
    print("\n| N | TTFT ms | TPOT ms (min–max) | decode share |\n|---|---|---|---|")
    ttft, tpot, share = r.by_output("ttft_ms"), r.by_output("tpot_ms"), r.by_output("decode_share")
    for N in ttft:
        print(
            f"| {N} | {ttft[N].median:.1f} | {tpot[N].median:.2f} ({tpot[N].lo:.2f}–{tpot[N].hi:.2f}) | "
            f"{100 * share[N].median:.1f} % |"
        )
    print("\n| claim | verdict | measured |\n|---|---|---|")
    for v in sweep_verdicts(r):
        print(f"| {v.claim} | {v.verdict} | {explain(v)} |")


def claims_table(bundle, quick: bool) -> None:
    hf = load_hf_model(str(bundle.path))
    start = time.perf_counter()
    quantized = load_model(str(bundle.path), dtype="bfloat16", weights="int8").model  # C19, measured
    data = measure_all(
        bundle.model,
        bundle.tokenizer,
        ClaimSettings.quick() if quick else ClaimSettings(),
        bundle.name,
        hf_model=hf,
        quantized=quantized,
    )
    verdicts = check_all(data)
    print(f"\nclaims: measured in {time.perf_counter() - start:.1f} s (Hugging Face model loaded before)\n")
    print("| claim | verdict | measured |\n|---|---|---|")
    for v in verdicts.values():
        print(f"| {v.claim} | {v.verdict} | {explain(v)} |")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--quick", action="store_true", help="the claims page's quick check")
    ap.add_argument("--skip-sweep", action="store_true")
    args = ap.parse_args()
    bundle = load_model(str(convert_bundled()), dtype="float32", device="cpu")
    print(f"# {describe_cpu()}")
    print(
        f"model {Path(bundle.name).name}; torch {torch.__version__}, {torch.get_num_threads()} threads, "
        f"load average {os.getloadavg()[0]:.2f} at start\n"
    )
    if not args.skip_sweep:
        sweep_tables(bundle, args.repeats)
    claims_table(bundle, args.quick)
    return 0


if __name__ == "__main__":
    with recorded("claims"):
        code = main()
    sys.exit(code)
