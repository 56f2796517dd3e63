"""Reports of the load generators people already run, read into the remote page's own views:
GuideLLM's JSON report (`guidellm run --output=kind=json`, version 0.8) and the result file of
`vllm bench serve --save-result`.

Each request is rebuilt from the tool's own per-request times, so the page's percentiles,
attainment and goodput follow the lab's rules; the tool's summary figures are kept beside them as
the tool computed them (`Theirs`), mapped to the metric of ours they equal. Where the definitions
differ (GuideLLM's "ITL" is our TPOT; its "TPOT" includes TTFT; its percentiles take the first value
at or above p; it keeps no per-chunk times, so no ITL of ours), the remote page says so in its
definitions box (`rm_imported_diff`).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any

from engine.errors import LabError
from engine.observe.request_metrics import RequestMetrics
from lab.remote_client import RemoteRequest, RemoteResult
from lab.remote_load import LoadPlan, LoadRun
from lab.schema import Float, Int, ListOf, Record, Text, kind_of, validate

MAX_BYTES = 64 << 20  # a report larger than this is not one a page should parse
NOT_A_REPORT = "Not a report this page reads: "


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


# --- GuideLLM --------------------------------------------------------------------------------------
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


# --- vllm bench serve ------------------------------------------------------------------------------
class VllmResult(Record):
    duration: Float(0)
    completed: Int()
    ttfts: ListOf(Float(0))
    itls: ListOf(ListOf(Float(0), 100_000))
    output_lens: ListOf(Int())
    input_lens: ListOf(Int()) = []
    errors: ListOf(Text()) = []
    start_times: ListOf(Float()) | None = None
    max_concurrency: Int(1) | None = None
    model_id: Text(512) | None = None
    backend: Text(64) | None = None


VLLM_FIGURES = (
    ("ttft", "TTFT", "ttft_ms"),
    ("tpot", "TPOT", "tpot_ms"),
    ("itl", "ITL", "itl_ms"),
    ("e2el", "E2EL", "e2e_ms"),
)


def _vllm_theirs(doc: dict, runs: list[RemoteResult]) -> list[Theirs]:
    done = [r for r in runs if r.metrics is not None]
    counts = {
        "ttft": len(done),
        "tpot": sum(r.num_output_tokens > 1 for r in done),
        "itl": sum(len(r.metrics.itl_ms) for r in done),
        "e2el": len(done),
    }
    out = []
    for key, name, ours in VLLM_FIGURES:
        stats = {}
        for stat, field_name in (("mean", f"mean_{key}_ms"), ("p50", f"median_{key}_ms")):
            if isinstance(doc.get(field_name), (int, float)):
                stats[stat] = float(doc[field_name])
        for p in ("p90", "p99"):
            if isinstance(doc.get(f"{p}_{key}_ms"), (int, float)):
                stats[p] = float(doc[f"{p}_{key}_ms"])
        if stats:
            out.append(Theirs(f"{name} (vLLM)", ours, counts[key], stats))
    return out


def from_vllm(doc: dict) -> Imported:
    r = validate(VllmResult, doc, "Not a valid vllm bench serve result: ")
    n = len(r.ttfts)
    if not n or len(r.itls) != n or len(r.output_lens) != n or (r.errors and len(r.errors) != n):
        raise LabError(
            "Not a valid vllm bench serve result: ttfts, itls, output_lens (and errors) should hold one entry "
            "per request; this file comes from a vLLM version whose per-request lists this page does not read."
        )
    sends = list(r.start_times) if r.start_times and len(r.start_times) == n else None
    origin = min(sends) if sends else 0.0
    results = []
    for i in range(n):
        error = (r.errors[i] if r.errors else "") or None
        send = sends[i] - origin if sends else 0.0
        times = []
        if error is None:
            t = send + r.ttfts[i]
            times = [t]
            for gap in r.itls[i]:
                t += gap
                times.append(t)
        prompt = f"({r.input_lens[i]} prompt tokens)" if len(r.input_lens) == n else ""
        results.append(
            RemoteResult(
                RemoteRequest(prompt, max_tokens=max(1, r.output_lens[i])),
                send=send,
                chunk_times=times,
                chunk_texts=[""] * len(times),
                usage_output_tokens=r.output_lens[i] if error is None else None,
                error=error,
                done=times[-1] if times else send,
            )
        )
    requests = [x.request for x in results]
    if r.max_concurrency:
        plan = LoadPlan("concurrent", requests, max_requests=n, concurrency=min(r.max_concurrency, 256))
        label = f"max concurrency {r.max_concurrency}"
    else:
        plan = LoadPlan("workload", requests, max_requests=n, arrivals=[x.send for x in results])
        label = _vllm_rate_label(doc.get("request_rate"))
    run = LoadRun(plan, start=0.0, results=results, end=max(r.duration, max(x.done or 0.0 for x in results)))
    tool = f"vllm bench serve ({r.backend})" if r.backend else "vllm bench serve"
    return Imported(
        tool, r.model_id or "—", [ImportedRun(label, run, _vllm_theirs(doc, results))], True, sends is not None
    )


def _vllm_rate_label(rate: Any) -> str:
    if isinstance(rate, (int, float)) and math.isfinite(rate):
        return f"request rate {rate:g}/s"
    return "all requests at once (request rate inf)"


# --- which tool wrote it ---------------------------------------------------------------------------
def _loads(data: str | bytes) -> Any:
    """JSON as the tools write it: Python's json, whose `Infinity` vLLM writes for an unlimited rate."""
    if len(data) > MAX_BYTES:
        raise LabError(f"{NOT_A_REPORT}the file is {len(data) / 2**20:.1f} MiB; at most {MAX_BYTES >> 20} MiB is read.")
    try:
        return json.loads(data, parse_constant=lambda name: math.inf if name == "Infinity" else None)
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise LabError(f"{NOT_A_REPORT}the file is not JSON ({e}).") from None
    except RecursionError:
        raise LabError(f"{NOT_A_REPORT}the JSON is nested too deeply.") from None


def kind_of_report(doc: Any) -> str | None:
    """ "guidellm", "vllm" or None (not a report of a tool this module reads)."""
    if not isinstance(doc, dict):
        return None
    if isinstance(doc.get("benchmarks"), list) and isinstance(doc.get("metadata"), dict):
        return "guidellm" if "guidellm_version" in doc["metadata"] else None
    if "ttfts" in doc and "itls" in doc:
        return "vllm"
    return None


def read_report(data: str | bytes) -> Imported | None:
    """A GuideLLM or vLLM report's runs, None for any other JSON (the page's own trace files), or a
    LabError naming what is wrong with a report that is one of theirs."""
    doc = _loads(data)
    kind = kind_of_report(doc)
    if kind == "guidellm":
        return from_guidellm(doc)
    if kind == "vllm":
        return from_vllm(doc)
    if not isinstance(doc, dict):
        raise LabError(f"{NOT_A_REPORT}the file should be an object, got {kind_of(doc)}.")
    return None
