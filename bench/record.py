"""Every bench's dated JSON record under bench/results/: what it printed (and its tables as data),
on which machine (CPU model, ISA, threads, torch), when, from which commit, with which arguments,
and how much other processes took of the machine meanwhile. The docs' tables are filled in from
these records as the site is built (scripts/docs_pages.py), so every figure there names its
machine and date.

    if __name__ == "__main__":
        with recorded("decode"):
            main()
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager, redirect_stdout
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"


class _Tee(io.TextIOBase):
    """Writes to the terminal and keeps a copy."""

    def __init__(self, *streams) -> None:
        self.streams = streams

    def write(self, text: str) -> int:
        for s in self.streams:
            s.write(text)
        return len(text)

    def flush(self) -> None:
        for s in self.streams:
            s.flush()


def commit() -> str:
    """The commit the bench ran from ("-dirty" with uncommitted changes), or "unknown" outside git.
    PDLAB_COMMIT names it for a copy of the tree whose git data is not its own (on another machine)."""
    import os

    if os.environ.get("PDLAB_COMMIT"):
        return os.environ["PDLAB_COMMIT"]
    try:
        head = subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], cwd=ROOT, capture_output=True, text=True)
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT, capture_output=True)
    except OSError:
        return "unknown"
    if head.returncode:
        return "unknown"
    return head.stdout.strip() + ("-dirty" if dirty.stdout.strip() else "")


def machine() -> dict:
    import os

    import torch

    from engine.observe.machine import cpu_capability, cpu_model

    return {
        "cpu": cpu_model(),
        "isa": cpu_capability(),
        "threads": torch.get_num_threads(),
        "cores": os.cpu_count(),
        "torch": torch.__version__,
        "gpu": torch.cuda.get_device_name(0) if torch.cuda.is_available() else None,
    }


def markdown_tables(text: str) -> list[dict]:
    """The `| a | b |` tables in a bench's output, as {"header": [...], "rows": [[...], ...]}."""
    tables, lines = [], []
    for line in [*text.splitlines(), ""]:
        if line.strip().startswith("|"):
            lines.append([cell.strip() for cell in line.strip().strip("|").split("|")])
            continue
        body = [r for r in lines[1:] if not all(set(c) <= set("-: ") for c in r)]
        if lines and body:
            tables.append({"header": lines[0], "rows": body})
        lines = []
    return tables


def write_record(
    bench: str, output: str, load, argv: list[str], out: Path = RESULTS, started: datetime | None = None, at: str = ""
) -> Path:
    """`started` and `at`: when the bench began and the commit it began from (default: now)."""
    now = started or datetime.now(UTC)
    record = {
        "bench": bench,
        "date": now.isoformat(timespec="seconds"),
        "commit": at or commit(),
        "machine": machine(),
        "argv": argv,
        "busy": bool(load.busy),
        "load": load.to_dict(),
        "tables": markdown_tables(output),
        "output": output,
    }
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{now:%Y-%m-%dT%H%M%SZ}-{bench}.json"
    path.write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


@contextmanager
def recorded(bench: str, out: Path = RESULTS) -> Iterator[None]:
    """Print the machine, run the bench with its output kept, then write its record (also when the
    bench exits with sys.exit, which is then re-raised); a run that other processes shared says so,
    here and in the record."""
    from engine.observe.machine import describe_cpu
    from lab.busy import LoadMeter

    kept, started, at = io.StringIO(), datetime.now(UTC), commit()  # the run's, not the moment it ends
    with redirect_stdout(_Tee(sys.stdout, kept)):
        print(f"# {bench} bench, {started:%Y-%m-%d %H:%M} UTC, commit {at}")
        print(f"# machine: {describe_cpu()}")
        meter = LoadMeter(children=True).start()  # a server the bench started is its own work
        exiting = None
        try:
            yield
        except SystemExit as e:  # a bench that ends with its exit code (a soak over its limit) is still a run
            exiting = e
        load = meter.stop()
        if load.busy:
            print(
                f"# BUSY MACHINE: other processes kept {load.other_cores:.1f} of {load.cores} cores busy; "
                "the times and ratios above are not the engine's own"
            )
    if exiting is not None and exiting.code in (0, 2) and not markdown_tables(kept.getvalue()):
        raise exiting  # --help or a usage error: the bench never ran, so there is nothing to record
    path = write_record(bench, kept.getvalue(), load, sys.argv[1:], out, started, at)
    print(f"# record: {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}")
    if exiting is not None:
        raise exiting
