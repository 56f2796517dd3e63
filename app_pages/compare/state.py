"""What the compare page keeps in `st.session_state`: each column's settings and its run.

A column is one playground run (ui/run_state.RunResult) plus the model it ran on; plain records,
never tensors or weights, so the last comparison survives page visits and language switches.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

from engine.observe.request_metrics import RequestMetrics
from lab.busy import MachineLoad
from lab.pairing import RatioInterval
from ui.models import ModelChoice
from ui.run_state import RunResult, RunSettings, RunStatus

MIN_COLUMNS, MAX_COLUMNS = 2, 4
# Timed repeats of the whole comparison: each repeat runs every column at once, a step each in turn.
# Five gives TTFT's per-repeat ratio an interval that can judge (lab/pairing.MIN_COVERAGE); TPOT pairs
# every decode step, so it has dozens of pairs after one.
DEFAULT_REPEATS, MAX_REPEATS = 5, 15
COLUMN_COLORS = ["#2563eb", "#dc2626", "#16a34a", "#d97706"]  # one per column, the same in every chart


@dataclass(frozen=True)
class ColumnSettings:
    """Everything one column's controls set: the run's settings and the model it runs on."""

    index: int  # 0-based; shown as "Column index + 1"
    run: RunSettings
    model: str
    dtype: str = "float32"
    device: str = "cpu"

    @property
    def choice(self) -> ModelChoice:
        return ModelChoice(spec=self.model, dtype=self.dtype, device=self.device)

    @property
    def color(self) -> str:
        return COLUMN_COLORS[self.index % len(COLUMN_COLORS)]


class CompareStatus(str, Enum):
    RUNNING = "running"
    DONE = "done"
    STOPPED = "stopped"  # Stop (or any rerun) cut the comparison short


@dataclass(frozen=True)
class TimedRun:
    """One timed repeat of a column: its latency metrics and the machine's load while it ran."""

    metrics: RequestMetrics
    load: MachineLoad | None


@dataclass
class ColumnOutcome:
    """One column after Run all: its shown run (the median of its repeats by E2E; None if it never
    started) and every finished repeat's timings, or why it could not run."""

    settings: ColumnSettings
    result: RunResult | None = None
    error: str | None = None
    chat_applied: bool = False  # the chat template was asked for and the model has one
    runs: list[TimedRun] = field(default_factory=list)
    # its times over the first column's, paired within each interleaved repeat: "ttft", "tpot", "e2e"
    vs_base: dict[str, RatioInterval] | None = None

    @property
    def ok(self) -> bool:
        """Finished with at least one token: it has metrics and goes into the charts and table."""
        return self.result is not None and self.result.status == RunStatus.DONE and bool(self.result.tokens)


@dataclass
class CompareResult:
    columns: list[ColumnOutcome] = field(default_factory=list)
    status: CompareStatus = CompareStatus.RUNNING
    repeats: int = 1  # timed repeats asked of the comparison
    retaken: int = 0  # repeats run again because other work took the machine meanwhile

    @property
    def finished(self) -> list[ColumnOutcome]:
        return [c for c in self.columns if c.ok]


def mark_interrupted(result: CompareResult | None) -> None:
    """A comparison still 'running' when the script starts again was cut short by Stop or a rerun."""
    if result is None or result.status != CompareStatus.RUNNING:
        return
    result.status = CompareStatus.STOPPED
    for col in result.columns:
        if col.result is not None and col.result.status == RunStatus.RUNNING:
            col.result.status = RunStatus.STOPPED
