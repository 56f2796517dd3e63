"""The result file of `vllm bench serve --save-result` read into the remote page's views: each
request rebuilt from its TTFT and every inter-token gap (so ITL is ours), vLLM's summary figures
kept beside ours as vLLM computed them.
"""

from __future__ import annotations

import math
from typing import Any

from engine.errors import LabError
from lab.remote_client import RemoteRequest, RemoteResult
from lab.remote_load import LoadPlan, LoadRun
from lab.report_records import Imported, ImportedRun, Theirs
from lab.schema import Float, Int, ListOf, Record, Text, validate


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
