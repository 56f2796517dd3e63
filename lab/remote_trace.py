"""A remote run (one load, the loads of a sweep, or one prompt) as a JSON file and back.

The file holds what the page draws from: the server (its base URL without any credentials, the
model, whose metrics it publishes), each load's plan, every request as the client saw it (send,
each chunk's arrival and text, usage, finish reason, error) and the server's gauges over the run
with its latency histograms at the start and the end (all a histogram over the run needs). Times
are seconds from the run's start. The API key is never part of it. Loading checks every field
(lab/trace_io.Fields) and raises ValueError with a message for the user.
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
from lab.remote_load import MODES, LoadPlan, LoadRun
from lab.remote_metrics import KINDS, Histogram, MetricsWatch, Snapshot
from lab.trace_io import Fields, check_header, parse_json

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
    return None if t is None else round(t - start, 6)


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
    return {
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


def _watch_dict(seen: MetricsWatch, start: float) -> dict:
    """Gauges the page draws at every reading; histograms only at the first and last."""
    names = KINDS.get(seen.kind or "")
    gauges = {n for n in (names.running, names.waiting, names.kv_usage) if n} if names else set()
    last = len(seen.snapshots) - 1
    return {
        "note": seen.note,
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


# --- from JSON -------------------------------------------------------------------------------------
def load_saved(data: str | bytes) -> Saved:
    """A remote trace file's text back to runs; ValueError with the reason for anything else."""
    f = check_header(parse_json(data), FORMAT, VERSION)
    server = f.obj("server")
    kind = server.str("kind", choices=tuple(KINDS), optional=True)
    runs = [_run_from(Fields(x, f"runs[{i}]")) for i, x in enumerate(f.list("runs", MAX_RUNS))]
    if not runs:
        raise LabError("Not a valid trace: it holds no run.")
    return Saved(
        server.str("base_url", max_len=2048),
        server.str("model", max_len=1024),
        kind,
        runs,
        f.str("created", max_len=64, optional=True) or "",
    )


def _run_from(f: Fields) -> tuple[LoadRun, MetricsWatch]:
    p = f.obj("plan")
    requests = [_request_from(Fields(x, p.path(f"requests[{i}]"))) for i, x in enumerate(p.list("requests"))]
    arrivals = p.floats("arrivals") if p.data.get("arrivals") is not None else None
    try:
        plan = LoadPlan(
            p.str("mode", choices=MODES),
            requests,
            max_requests=p.int("max_requests", lo=1),
            concurrency=p.int("concurrency", lo=1),
            rate=p.float("rate"),
            arrivals=arrivals,
            max_duration_s=p.float("max_duration_s"),
            seed=p.int("seed"),
        )
    except LabError as e:
        raise LabError(f"Not a valid trace: {f.path('plan')}: {e}") from None
    run = LoadRun(plan, start=0.0, end=f.float("end", lo=0.0, optional=True), stopped=f.bool("stopped"))
    run.results = [
        _result_from(Fields(x, f.path(f"results[{i}]")), requests) for i, x in enumerate(f.list("results", 10_000))
    ]
    return run, _watch_from(f.obj("server_metrics"))


def _request_from(f: Fields) -> RemoteRequest:
    return RemoteRequest(
        f.str("prompt", max_len=MAX_TEXT),
        f.int("max_tokens", lo=1, hi=1 << 20),
        f.bool("chat"),
        f.float("temperature", lo=0.0, hi=100.0),
        f.bool("ignore_eos"),
    )


def _result_from(f: Fields, requests: list[RemoteRequest]) -> RemoteResult:
    index = f.int("request", hi=len(requests) - 1)
    times = f.floats("chunk_times")
    texts = f.list("chunk_texts", MAX_CHUNKS)
    if len(texts) != len(times) or not all(isinstance(x, str) for x in texts):
        raise LabError(f"Not a valid trace: {f.path('chunk_texts')} should be one text per chunk time.")
    if any(b < a for a, b in zip(times, times[1:])):
        raise LabError(f"Not a valid trace: {f.path('chunk_times')} is not in order.")
    r = RemoteResult(
        requests[index],
        send=f.float("send", lo=0.0),
        chunk_times=times,
        chunk_texts=texts,
        usage_prompt_tokens=f.int("usage_prompt_tokens", optional=True),
        usage_output_tokens=f.int("usage_output_tokens", optional=True),
        finish_reason=f.str("finish_reason", max_len=64, optional=True),
        error=f.str("error", max_len=4096, optional=True),
        done=f.float("done", optional=True),
        response_id=f.str("response_id", max_len=256, optional=True),
    )
    if times and times[0] < r.send:
        raise LabError(f"Not a valid trace: {f.where} has a chunk before its request was sent.")
    return r


def _watch_from(f: Fields) -> MetricsWatch:
    snaps = []
    for i, x in enumerate(f.list("snapshots", 100_000)):
        s = Fields(x, f.path(f"snapshots[{i}]"))
        g = s.obj("gauges")
        h = s.obj("histograms")
        snaps.append(
            Snapshot(s.float("time"), {k: g.float(k) for k in g.data}, {k: _hist_from(h.obj(k)) for k in h.data})
        )
    return MetricsWatch(snaps, f.str("note", max_len=4096, optional=True))


def _hist_from(f: Fields) -> Histogram:
    buckets: list[tuple[float, float]] = []
    for i, pair in enumerate(f.list("buckets", 1024)):
        le = math.inf if isinstance(pair, list) and len(pair) == 2 and pair[0] == "+Inf" else None
        ok = (
            isinstance(pair, list)
            and len(pair) == 2
            and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in pair[int(le is not None) :])
        )
        if not ok:
            raise LabError(f"Not a valid trace: {f.path(f'buckets[{i}]')} should be [upper bound, count].")
        buckets.append((le if le is not None else float(pair[0]), float(pair[1])))
    return Histogram(buckets, f.float("count", lo=0.0), f.float("total"))
