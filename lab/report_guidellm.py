"""GuideLLM's JSON report (`guidellm run --output=kind=json`, version 0.8) read into the remote page's
views: each request rebuilt from GuideLLM's own per-request times, its summary figures kept beside
ours as GuideLLM computed them. Its "ITL" is our TPOT; its "TPOT" includes TTFT (none of ours); it
keeps no per-chunk times, so there is no ITL of ours (the page's definitions box says so).
"""

from __future__ import annotations

import json
from typing import Any

from engine.errors import LabError
from engine.observe.request_metrics import RequestMetrics
from lab.remote_client import RemoteRequest
from lab.remote_load import LoadPlan, LoadRun
from lab.report_records import Imported, ImportedResult, ImportedRun, Theirs
from lab.schema import Float, Int, ListOf, Record, Text, validate


class GuideRequest(Record):
    request_start_time: Float(0) | None = None  # None: never sent (cancelled at the benchmark's end)
    request_end_time: Float(0) | None = None
    time_to_first_token_ms: Float(0) | None = None
    inter_token_latency_ms: Float(0) | None = None
    output_tokens: Int() | None = None
    request_args: Text() | None = None


class GuideRequests(Record):
    successful: ListOf(GuideRequest) = []
    errored: ListOf(GuideRequest) = []
    incomplete: ListOf(GuideRequest) = []


class GuideStats(Record):
    count: Int()
    mean: Float()
    percentiles: dict[str, Float()]


class GuideStatuses(Record):
    successful: GuideStats


class GuideStrategy(Record):
    type_: Text(64)
    streams: Int(1) | None = None
    rate: Float(0) | None = None


class GuideConfig(Record):
    strategy: GuideStrategy


class GuideBenchmark(Record):
    config: GuideConfig
    start_time: Float(0)
    end_time: Float(0)
    requests: GuideRequests
    metrics: dict[str, Any]  # the figures shown beside ours are checked as GuideStatuses when read


class GuideMetadata(Record):
    guidellm_version: Text(64)


class GuideReport(Record):
    metadata: GuideMetadata
    benchmarks: ListOf(GuideBenchmark, 1000)


# The figures of GuideLLM's report shown beside ours: (its key, its name, ours, ms per its unit).
GUIDE_FIGURES = (
    ("time_to_first_token_ms", "TTFT", "ttft_ms", 1.0),
    ("inter_token_latency_ms", "ITL", "tpot_ms", 1.0),
    ("time_per_output_token_ms", "TPOT", None, 1.0),
    ("request_latency", "request latency", "e2e_ms", 1e3),
)


def _guide_prompt(args: str | None) -> tuple[str, int]:
    """(prompt text, max tokens) from a request's recorded arguments, as far as they say."""
    try:
        body = json.loads(args or "{}").get("body") or {}
    except (json.JSONDecodeError, AttributeError):
        return "", 0
    parts = []
    for message in body.get("messages") or []:
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, str):
            parts.append(content)
        elif isinstance(content, list):
            parts += [str(p.get("text", "")) for p in content if isinstance(p, dict)]
    if isinstance(body.get("prompt"), str):
        parts.append(body["prompt"])
    limit = body.get("max_completion_tokens") or body.get("max_tokens") or 0
    return "\n".join(parts), limit if isinstance(limit, int) else 0


def _guide_result(r: GuideRequest, start: float, error: str | None) -> ImportedResult:
    prompt, limit = _guide_prompt(r.request_args)
    send = (r.request_start_time or start) - start
    done = (r.request_end_time - start) if r.request_end_time is not None else send
    own = None
    ttft = r.time_to_first_token_ms
    if error is None and ttft is not None and r.output_tokens:
        n = r.output_tokens
        itl = r.inter_token_latency_ms
        tpot = itl if n > 1 and itl is not None else None
        last = ttft + (tpot or 0.0) * (n - 1)  # GuideLLM's ITL is (last token - first token) / (n - 1)
        own = RequestMetrics(ttft_ms=ttft, tpot_ms=tpot, itl_ms=[], e2e_ms=last, num_output_tokens=n)
    # the first and last token's times, for the timeline (the metrics are `own`, as GuideLLM measured them)
    ends = [send + ttft / 1e3, send + own.e2e_ms / 1e3] if own is not None else []
    return ImportedResult(
        RemoteRequest(prompt, max_tokens=max(1, limit)),
        send=send,
        chunk_times=ends,
        chunk_texts=[""] * len(ends),
        usage_output_tokens=r.output_tokens if error is None else None,
        error=error,
        done=done,
        own=own,
    )


def _guide_plan(s: GuideStrategy, requests: list[RemoteRequest], sends: list[float]) -> tuple[LoadPlan, str]:
    kind = s.type_
    if kind == "synchronous":
        return LoadPlan("synchronous", requests, max_requests=len(requests)), "synchronous"
    if kind == "concurrent" and s.streams:
        streams = min(s.streams, 256)
        plan = LoadPlan("concurrent", requests, max_requests=len(requests), concurrency=streams)
        return plan, f"concurrent, {s.streams} streams"
    if kind in ("constant", "poisson") and s.rate:
        plan = LoadPlan(kind, requests, max_requests=len(requests), rate=min(s.rate, 1000.0))
        return plan, f"{kind}, {s.rate:g} requests/s"
    # throughput, async and anything newer: drawn as sent, at the times the report gives
    return LoadPlan("workload", requests, max_requests=len(requests), arrivals=sends), kind


def _guide_theirs(metrics: dict[str, Any]) -> list[Theirs]:
    out = []
    for key, name, ours, scale in GUIDE_FIGURES:
        found = metrics.get(key)
        if not isinstance(found, GuideStatuses) or not found.successful.count:
            continue
        s = found.successful
        stats = {"mean": s.mean * scale} | {
            p: s.percentiles[p] * scale for p in ("p50", "p90", "p99") if p in s.percentiles
        }
        out.append(Theirs(f"{name} (GuideLLM)", ours, s.count, stats))
    return out


def from_guidellm(doc: dict) -> Imported:
    report = validate(GuideReport, doc, "Not a valid GuideLLM report: ")
    runs = []
    for b in report.benchmarks:
        if b.end_time < b.start_time:
            raise LabError("Not a valid GuideLLM report: a benchmark ends before it starts.")
        q = b.requests
        results = [_guide_result(r, b.start_time, None) for r in q.successful]
        results += [_guide_result(r, b.start_time, "errored (GuideLLM counted it as an error)") for r in q.errored]
        results += [
            _guide_result(r, b.start_time, "incomplete (cancelled when the benchmark ended)") for r in q.incomplete
        ]
        if not results:
            continue
        results.sort(key=lambda r: r.send)
        plan, label = _guide_plan(b.config.strategy, [r.request for r in results], [r.send for r in results])
        run = LoadRun(plan, start=0.0, results=results, end=b.end_time - b.start_time)
        metrics = {k: v for k, v in b.metrics.items() if k in {f[0] for f in GUIDE_FIGURES}}
        checked = {
            k: validate(GuideStatuses, v, f"Not a valid GuideLLM report: metrics.{k}.") for k, v in metrics.items() if v
        }
        runs.append(ImportedRun(label, run, _guide_theirs(checked)))
    if not runs:
        raise LabError("The GuideLLM report holds no benchmark with a request.")
    target = _guide_target(doc)
    return Imported(
        f"GuideLLM {report.metadata.guidellm_version}", target, runs, per_token_times=False, send_times=True
    )


def _guide_target(doc: dict) -> str:
    try:
        backend = doc["benchmarks"][0]["config"]["backend"]
        return f"{backend.get('target', '?')} ({backend.get('model', '?')})"
    except (KeyError, IndexError, TypeError, AttributeError):
        return "—"
