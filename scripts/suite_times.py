"""How long the test suite takes on this machine, tier by tier, for the contributing notes' table.

    fast     make test-fast (no model, pages, servers or browser): the inner loop
    browser  pytest -m browser: the real app in Chromium
    full     make test: the whole suite, as README's quick start runs it
    ci       .ci/run on a clean clone of HEAD, as CI runs it (set-up, lint, docs, the suite)

Each tier runs in a child process, one after another (never side by side: they would share the two
cores and the busy meter would mark the others' timed verdicts). Prints one table and writes its
record ("suite_times"; the ci tier alone writes "ci_time", so each has its own newest record).

Usage: .venv/bin/python scripts/suite_times.py [--tiers fast browser] (default: fast browser full)
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

PY = str(ROOT / ".venv" / "bin" / "python")
TIERS = {
    "fast": ("make test-fast", ["make", "-s", "test-fast"]),
    "browser": ("pytest -m browser", [PY, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-m", "browser"]),
    "full": ("make test", ["make", "-s", "test"]),
}
SUMMARY = re.compile(r"^=*\s*(?P<counts>\d+ \w+.*) in (?P<secs>[\d.]+)s", re.MULTILINE)


def summary(output: str) -> tuple[str, float | None]:
    """pytest's closing line: ("800 passed, 1 skipped", seconds of tests), or ("no summary", None)."""
    found = list(SUMMARY.finditer(output))
    if not found:
        return "no summary", None
    last = found[-1]
    return last["counts"].strip(" ="), float(last["secs"])


def run_tier(command: list[str], cwd: Path, env: dict[str, str]) -> tuple[int, str, float]:
    start = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True)
    return done.returncode, done.stdout + done.stderr, time.perf_counter() - start


def ci_tier() -> tuple[int, str, float]:
    """.ci/run on a fresh clone of HEAD (committed work only), with CI=true as CI sets it."""
    with tempfile.TemporaryDirectory(prefix="pdlab-ci-") as tmp:
        clone = Path(tmp) / "clone"
        subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
        return run_tier(["bash", ".ci/run"], clone, {**os.environ, "CI": "true"})


def minutes(seconds: float | None) -> str:
    return "—" if seconds is None else f"{seconds / 60:.1f} min ({seconds:.0f} s)"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tiers", nargs="+", choices=[*TIERS, "ci"], default=["fast", "browser", "full"])
    args = ap.parse_args()
    if "ci" in args.tiers and len(args.tiers) > 1:
        ap.error("run the ci tier on its own: it writes its own record")
    print("| run | command | tests | tests' own time | wall time | exit |")
    print("|---|---|---|---|---|---|")
    worst = 0
    for tier in args.tiers:
        if tier == "ci":
            shown, (code, output, wall) = "CI=true .ci/run", ci_tier()
        else:
            shown, command = TIERS[tier]
            code, output, wall = run_tier(command, ROOT, dict(os.environ))
        counts, secs = summary(output)
        print(f"| {tier} | `{shown}` | {counts} | {minutes(secs)} | {minutes(wall)} | {code} |")
        worst = max(worst, code)
        if code:
            for line in output.splitlines():  # the record names what failed
                if line.startswith(("FAILED ", "ERROR ")):
                    print(f"# {tier}: {line}")
            (ROOT / "test-artifacts").mkdir(exist_ok=True)
            (ROOT / "test-artifacts" / f"suite_times-{tier}.log").write_text(output, encoding="utf-8")
    return worst


if __name__ == "__main__":
    from bench.record import recorded

    # the tiers are its children: their work is its own
    with recorded("ci_time") if "ci" in sys.argv else recorded("suite_times"):
        code = main()
    sys.exit(code)
