"""The sweeps page's lab sweep and the claims page's check on the bundled model, printed as the tables
the docs quote: the sweep's medians with their min-max over rounds, then every verdict by the same rule
as the pages (lab/claims_run.py: a verdict only where an interval excludes the alternative, else "not
separable here"), each with its interval, n and the load other work put on the machine beside it, and
when it landed (the page shows each verdict as soon as its runs are measured).

    .venv/bin/python bench/claims.py [--repeats 5] [--quick] [--skip-sweep]

Timings depend on the machine and on what else runs on it: the load average is printed first, and each
timed verdict's own reading of other work stands in its row.
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
from lab.catalogues import say  # noqa: E402
from lab.claims_measure import ClaimSettings  # noqa: E402
from lab.claims_run import ClaimsCheck  # noqa: E402
from lab.memory_lab import load_hf_model  # noqa: E402
from lab.sweep_verdicts import sweep_verdicts  # noqa: E402
from lab.sweeps import SweepSettings, run_sweep  # noqa: E402
from lab.verdicts import Verdict, explain  # noqa: E402


def interval_cell(v: Verdict) -> str:
    """The verdict's main interval as the pages word it ("3.12× [2.95–3.30], n = 32"), or "—"."""
    r = v.interval
    if r is None:
        return "—"
    return say("pair_ratio", "en", ratio=f"{r.median:.3g}", low=f"{r.low:.3g}", high=f"{r.high:.3g}", n=r.n)


def busy_cell(v: Verdict) -> str:
    """Other work on the machine while the verdict's evidence was timed: cores, or "—" untimed."""
    load = v.load
    if load is None or load.other_cores is None:
        return "—"
    return f"{load.other_cores:.1f} of {load.cores}" + (" (busy)" if load.busy else "")


def verdict_rows(verdicts: list[tuple[float, Verdict]]) -> None:
    print("| claim | verdict | interval | other work (cores) | at s | measured |\n|---|---|---|---|---|---|")
    for at, v in verdicts:
        print(f"| {v.claim} | {v.verdict} | {interval_cell(v)} | {busy_cell(v)} | {at:.1f} | {explain(v)} |")


def sweep_tables(bundle, repeats: int) -> None:
    start = time.perf_counter()
    r = run_sweep(bundle.model, bundle.tokenizer, SweepSettings(repeats=repeats), bundle.name)
    print(
        f"sweep: {len(r.prompt_points) + len(r.output_points)} requests in {r.rounds} rounds "
        f"({r.retaken} measured again) in {time.perf_counter() - start:.1f} s\n"
    )
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
    print()
    verdict_rows([(r.seconds, v) for v in sweep_verdicts(r)])


def claims_table(bundle, quick: bool, repeats: int) -> None:
    settings = (ClaimSettings.quick() if quick else ClaimSettings()).with_rounds(repeats)
    check = ClaimsCheck(
        bundle.model,
        bundle.tokenizer,
        settings,
        bundle.name,
        hf_loader=lambda: load_hf_model(str(bundle.path)),
        quantized_loader=lambda: load_model(str(bundle.path), dtype="bfloat16", weights="int8").model,  # C19
    )
    start = time.perf_counter()
    landed = [(time.perf_counter() - start, v) for v in check.verdicts()]
    total = time.perf_counter() - start
    print(
        f"\nclaims ({'quick' if quick else 'full'} check, {settings.rounds} rounds): first verdict at "
        f"{landed[0][0]:.1f} s, all {len(landed)} in {total:.1f} s (the Hugging Face and int8 copies loaded "
        "within)\n"
    )
    verdict_rows(sorted(landed, key=lambda item: int(item[1].claim[1:])))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=5, help="rounds of every timed comparison")
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
    claims_table(bundle, args.quick, args.repeats)
    return 0


if __name__ == "__main__":
    with recorded("claims"):
        code = main()
    sys.exit(code)
