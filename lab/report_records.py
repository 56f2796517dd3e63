"""What a report of another load generator becomes: its runs as the remote page's own (LoadRun,
RemoteResult), each request carrying the metrics the tool measured where it kept no per-token
times, and the tool's summary figures beside ours (`Theirs`). Read by lab/report_guidellm.py and
lab/report_vllm.py; lab/report_import.py tells which tool wrote a file.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from engine.observe.request_metrics import RequestMetrics
from lab.remote_client import RemoteResult
from lab.remote_load import LoadRun


@dataclass
class ImportedResult(RemoteResult):
    """A request whose metrics the tool measured: `own` replaces the times rebuilt from chunks, which
    a tool that keeps no per-token times cannot give."""

    own: RequestMetrics | None = None

    @property
    def metrics(self) -> RequestMetrics | None:
        return self.own


@dataclass(frozen=True)
class Theirs:
    """One of the tool's summary figures, as it reported it."""

    label: str  # the tool's name for it: "ITL (GuideLLM)"
    ours: str | None  # the metric of ours it equals ("tpot_ms"), or None where none does
    n: int  # the values behind it, as the tool counted them
    stats: dict[str, float]  # "mean", "p50", "p90", "p99" where the tool gives them, in ms


@dataclass
class ImportedRun:
    label: str  # the tool's name for the load: "concurrent, 2 streams"
    run: LoadRun
    theirs: list[Theirs] = field(default_factory=list)


@dataclass
class Imported:
    tool: str  # "GuideLLM 0.8.0"
    target: str  # the server and model, as the report names them
    runs: list[ImportedRun]
    per_token_times: bool  # True: ITL as ours (every gap) exists for these runs
    send_times: bool  # True: when each request was sent is known (the timeline can be drawn)
