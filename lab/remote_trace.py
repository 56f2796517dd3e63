"""A remote run (one load, the loads of a sweep, or one prompt) as a JSON file and back.

The file holds what the page draws from: the server (its base URL without any credentials, the
model, whose metrics it publishes), each load's plan, every request as the client saw it (send,
each chunk's arrival and text, usage, finish reason, error with the server's status and words, the
vLLM extensions it went without) and the server's gauges over the run with its latency histograms
at the start and the end (all a histogram over the run needs). Times are seconds from the run's start. The API key is never part of it. Loading checks every field
against the records' own declarations and raises LabError naming the field (lab/schema.py).
"""

from __future__ import annotations

import json
import math
import urllib.parse
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from typing import Any

from engine.errors import LabError
from lab.remote_client import RemoteRequest, RemoteResult
from lab.remote_errors import EXTENSIONS
from lab.remote_load import LoadPlan, LoadRun
from lab.remote_metrics import KINDS, TRANSFER, Histogram, MetricsWatch
from lab.schema import Bool, Float, Int, ListOf, OneOf, Record, Text, validate
from lab.trace_io import INVALID, check_header, parse_json

FORMAT = "pdlab-remote-trace"
VERSION = 1
MAX_RUNS = 64
MAX_CHUNKS = 100_000  # per request
MAX_TEXT = 1 << 20


@dataclass
class Saved:
    """What a remote trace file holds."""

    base_url: str
    model: str
    kind: str | None
    runs: list[tuple[LoadRun, MetricsWatch]]
    created: str = ""


def public_url(url: str) -> str:
    """The URL without a user:password part (a key never goes into a file)."""
    parts = urllib.parse.urlsplit(url)
    host = parts.hostname or ""
    netloc = f"[{host}]" if ":" in host else host
    netloc += f":{parts.port}" if parts.port else ""
    return urllib.parse.urlunsplit((parts.scheme, netloc, parts.path, "", ""))


def single_run(result: RemoteResult) -> LoadRun:
    """One streamed prompt as a run of one request, so it saves and reports like a load."""
    return LoadRun(
        LoadPlan("synchronous", [result.request], max_requests=1), start=result.send, results=[result], end=result.done
    )


# --- to JSON ---------------------------------------------------------------------------------------
def dump_saved(saved: Saved) -> str:
    return json.dumps(saved_to_dict(saved), ensure_ascii=False, separators=(",", ":"))


def saved_to_dict(saved: Saved, created: datetime | None = None) -> dict:
    return {
        "format": FORMAT,
        "version": VERSION,
        "created": (created or datetime.now(UTC)).isoformat(timespec="seconds"),
        "server": {"base_url": public_url(saved.base_url), "model": saved.model, "kind": saved.kind},
        "runs": [_run_dict(run, seen) for run, seen in saved.runs],
    }


def _rel(t: float | None, start: float) -> float | None:
    # Unrounded: a reopened run must show the very numbers it showed live, and a rounded send and done
    # can move a duration across a display digit.
    return None if t is None else t - start


def _run_dict(run: LoadRun, seen: MetricsWatch) -> dict:
    plan = run.plan
    requests = plan.requests
    return {
        "plan": {
            "mode": plan.mode,
            "max_requests": plan.max_requests,
            "concurrency": plan.concurrency,
            "rate": plan.rate,
            "arrivals": None if plan.arrivals is None else list(plan.arrivals),
            "max_duration_s": plan.max_duration_s,
            "seed": plan.seed,
            "requests": [asdict(r) for r in requests],
        },
        "end": _rel(run.end, run.start),
        "stopped": run.stopped,
        "results": [_result_dict(r, requests, run.start) for r in run.results],
        "server_metrics": _watch_dict(seen, run.start),
        "summary": _finite(run.summary()),  # for readers of the file; recomputed on load
    }


def _finite(value: Any) -> Any:
    """NaN (a percentile of nothing) as null: JSON has no NaN, and the loader refuses one."""
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    return None if isinstance(value, float) and not math.isfinite(value) else value


def _result_dict(r: RemoteResult, requests: list[RemoteRequest], start: float) -> dict:
    kept = {
        "request": requests.index(r.request) if r.request in requests else 0,
        "send": _rel(r.send, start),
        "chunk_times": [_rel(x, start) for x in r.chunk_times],
        "chunk_texts": list(r.chunk_texts),
        "usage_prompt_tokens": r.usage_prompt_tokens,
        "usage_output_tokens": r.usage_output_tokens,
        "finish_reason": r.finish_reason,
        "error": r.error,
        "done": _rel(r.done, start),
        "response_id": r.response_id,
    }
    # a refusal's status and words, and the extensions a request went without: only where there are
    # some, so a file without them reads and writes back as it was
    said = {"status": r.status, "reason": r.reason, "dropped_fields": list(r.dropped_fields), "refusal": r.refusal}
    return kept | {k: v for k, v in said.items() if v}


def _watch_dict(seen: MetricsWatch, start: float, pools: bool = True) -> dict:
    """Gauges the page draws at every reading; histograms only at the first and last; each pool's too."""
    names = KINDS.get(seen.kind or "")
    gauges = {n for n in (names.running, names.waiting, names.kv_usage) if n} if names else set()
    gauges.add(TRANSFER)
    last = len(seen.snapshots) - 1
    return {
        "note": seen.note,
        **({"pools": {n: _watch_dict(w, start, pools=False) for n, w in seen.pools.items()}} if pools else {}),
        "snapshots": [
            {
                "time": _rel(s.time, start),
                "gauges": {k: v for k, v in s.gauges.items() if k in gauges},
                "histograms": ({k: _hist_dict(h) for k, h in s.histograms.items()} if i in (0, last) else {}),
            }
            for i, s in enumerate(seen.snapshots)
        ],
    }


def _hist_dict(h: Histogram) -> dict:
    return {
        "buckets": [["+Inf" if math.isinf(le) else le, c] for le, c in h.buckets],
        "count": h.count,
        "total": h.total,
    }


# --- from JSON: what only the file holds; the requests, the plan and the server's readings are read
# against their own declarations (lab/remote_client.py, lab/remote_load.py, lab/remote_metrics.py) ---
class ResultFile(Record):
    """A RemoteResult as the file keeps it: its request as an index into the plan's (a plan cycles
    through its requests), its times in seconds from the run's start."""

    request: Int()
    send: Float(lo=0.0)
    chunk_times: ListOf(Float(), MAX_CHUNKS)
    chunk_texts: ListOf(Text(MAX_TEXT), MAX_CHUNKS)
    usage_prompt_tokens: Int() | None = None
    usage_output_tokens: Int() | None = None
    finish_reason: Text(64) | None = None
    error: Text(4096) | None = None
    done: Float() | None = None
    response_id: Text(256) | None = None
    # a refused request's status and the server's words; the vLLM extensions a request went without
    # (the server refused them: `refusal` says how); files from before these have none
    status: Int(lo=100, hi=599) | None = None
    reason: Text(4096) | None = None
    dropped_fields: ListOf(OneOf(EXTENSIONS), len(EXTENSIONS)) = ()
    refusal: Text(4096) | None = None


class RunFile(Record):
    plan: LoadPlan
    end: Float(lo=0.0) | None = None
    stopped: Bool
    results: ListOf(ResultFile, 10_000)
    server_metrics: MetricsWatch


class ServerFile(Record):
    base_url: Text(2048)
    model: Text(1024)
    kind: OneOf(tuple(KINDS)) | None = None


class SavedFile(Record):
    server: ServerFile
    runs: ListOf(RunFile, MAX_RUNS)
    created: Text(64) | None = None


def load_saved(data: str | bytes) -> Saved:
    """A remote trace file's text back to runs; LabError with the reason for anything else."""
    doc = parse_json(data)
    check_header(doc, FORMAT, VERSION)
    f = validate(SavedFile, doc, INVALID)
    if not f.runs:
        raise LabError(f"{INVALID}it holds no run.")
    runs = [_run_from(run, f"runs[{i}]") for i, run in enumerate(f.runs)]
    return Saved(f.server.base_url, f.server.model, f.server.kind, runs, f.created or "")


def _run_from(f: RunFile, where: str) -> tuple[LoadRun, MetricsWatch]:
    run = LoadRun(f.plan, start=0.0, end=f.end, stopped=f.stopped)
    run.results = [_result_from(r, f"{where}.results[{i}]", f.plan.requests) for i, r in enumerate(f.results)]
    return run, f.server_metrics


def _result_from(f: ResultFile, where: str, requests: list[RemoteRequest]) -> RemoteResult:
    if f.request >= len(requests):
        raise LabError(f"{INVALID}{where}.request should be the index of one of the plan's {len(requests)} requests.")
    times = f.chunk_times
    if len(f.chunk_texts) != len(times):
        raise LabError(f"{INVALID}{where}.chunk_texts should be one text per chunk time.")
    if any(b < a for a, b in zip(times, times[1:])):
        raise LabError(f"{INVALID}{where}.chunk_times is not in order.")
    if times and times[0] < f.send:
        raise LabError(f"{INVALID}{where} has a chunk before its request was sent.")
    values = {k: v for k, v in dict(f).items() if k != "request"}
    return RemoteResult(requests[f.request], **values | {"dropped_fields": list(f.dropped_fields)})
