"""Prefill and decode on one server against two, measured: one workload (chats decoding while long
prompts arrive) sent over HTTP to three set-ups of real `python -m engine serve` processes

    whole     colocated, whole prompts: `serve --no-chunked-prefill` on every core, with a step budget
              above any prompt (a prompt goes into the next step whole, and the decodes wait for it)
    chunked   colocated, chunked prefill: `serve --max-num-batched-tokens CHUNK` on every core
    pd        1 prefill + 1 decode worker: `serve --role prefill --cpus 0` (whole prompts, one at a
              time), `serve --role decode --cpus 1`, and `router` in front: each prompt's KV handed
              over per request

and read back per request: what the client saw (TTFT, TPOT, every gap between two tokens) and, for
the pair, the router's hand-off record on one wall clock (queue and prefill on the prefill worker,
transfer, queue on the decode worker, decode). The disaggregation page and bench/disaggregation.py
both run it.

The set-ups are processes, so they cannot step in turn: they run whole workloads in rounds, their
order alternating (lab/pairing.round_order), and each of a set-up's numbers is compared with the
same number of the colocated whole-prompt server in the same round (lab/disaggregation_rounds.py).
"""

from __future__ import annotations

import asyncio
import json
import statistics
import time
import urllib.request
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path

from engine.entrypoints.launch import engine_process, router_process
from lab.remote_client import Endpoint, RemoteResult
from lab.remote_load import LoadRun, run_load, workload_plan
from lab.slo import SLO, Goodput, judge_load
from lab.workload import RequestSpec, text_tokens

SETUPS = ("whole", "chunked", "pd")
# The phases of a hand-off record, each from one stamp to the next (engine/entrypoints/router.py).
PHASES = (
    ("p_queue", "p_arrival", "p_start"),
    ("prefill", "p_start", "p_end"),
    ("transfer", "p_end", "d_received"),
    ("d_queue", "d_received", "d_admitted"),
    ("decode", "d_admitted", "done"),
)


WHOLE_BUDGET = 65536  # a step budget above any prompt: without it a prompt over the budget waits for an empty batch


def server_flags(chunk: int) -> dict[str, list[list[str]]]:
    """Each set-up's servers, as `serve` flags (two for the pair, the router added in front)."""
    whole = ["--no-chunked-prefill", "--max-num-batched-tokens", str(WHOLE_BUDGET)]
    return {
        "whole": [whole],
        "chunked": [["--max-num-batched-tokens", str(chunk)]],
        "pd": [["--role", "prefill", "--cpus", "0", *whole], ["--role", "decode", "--cpus", "1"]],
    }


@dataclass
class Servers:
    urls: dict[str, str]  # each set-up's URL (the pair's router)
    pids: tuple[int, ...]  # every process started: their CPU time is the measurement's, not other work
    workers: dict[str, str] = field(default_factory=dict)  # the pair's own URLs: "prefill", "decode"


def start_setups(stack: ExitStack, model: str, chunk: int, logs: Path, setups=SETUPS) -> Servers:
    """Start every set-up's servers (stopped when `stack` closes, by their own handles)."""
    logs.mkdir(parents=True, exist_ok=True)
    urls, pids, workers = {}, [], {}
    for name in setups:
        started = [
            stack.enter_context(engine_process(model, logs / f"disagg-{name}-{i}.log", *flags))
            for i, flags in enumerate(server_flags(chunk)[name])
        ]
        if len(started) == 2:
            (p, _), (d, _) = started
            workers = {"prefill": p, "decode": d}
            started.append(stack.enter_context(router_process(p, d, logs / "disagg-router.log")))
        urls[name] = started[-1][0]
        pids += [proc.pid for _, proc in started]
    return Servers(urls, tuple(pids), workers)


def served_model(url: str) -> str:
    """The model name a server answers to (GET /v1/models)."""
    with urllib.request.urlopen(f"{url}/v1/models", timeout=30) as r:
        return json.loads(r.read())["data"][0]["id"]


def workload(tokenizer, chats: int, chat_tokens: int, long_tokens: int, longs: int = 2) -> list[RequestSpec]:
    """`chats` chats start together; `longs` prompts of `long_tokens` arrive while they decode, from
    0.5 s on, one a second."""
    specs = [
        RequestSpec(0.0, text_tokens(tokenizer, 32 + 4 * i, offset=i), chat_tokens, f"chat {i + 1}")
        for i in range(chats)
    ]
    return specs + [
        RequestSpec(0.5 + i, text_tokens(tokenizer, long_tokens, offset=7 * i), 16, f"long prompt {i + 1}")
        for i in range(longs)
    ]


@dataclass
class SetupRun:
    setup: str
    specs: list[RequestSpec]
    run: LoadRun
    wall_offset: float  # time.time() - time.perf_counter() in this process: the client's clock on the wall's
    records: dict[str, dict] = field(default_factory=dict)  # the router's hand-off records by response id

    def at(self, perf: float) -> float:
        """A client perf_counter time as seconds after the run's start."""
        return perf - self.run.start

    def wall(self, stamp: float) -> float:
        """A wall-clock stamp (a worker's) as seconds after the run's start."""
        return stamp - self.wall_offset - self.run.start


def run_setup(setup: str, url: str, specs: list[RequestSpec], tokenizer, model: str) -> SetupRun:
    """The workload on one set-up, streamed; the pair's hand-off records read from its router after."""
    plan = workload_plan(tokenizer, specs, chat=False, max_duration_s=600)
    offset = time.time() - time.perf_counter()
    run = asyncio.run(run_load(Endpoint(url, timeout_s=600), model, plan))
    records = {}
    if setup == "pd":
        with urllib.request.urlopen(f"{url}/pdlab/requests", timeout=30) as r:
            records = {x["id"]: x for x in json.loads(r.read())["data"]}
    failed = [r.error for r in run.results if r.error]
    if failed:
        raise RuntimeError(f"{len(failed)} request(s) failed on the {setup} set-up: {failed[0]}")
    return SetupRun(setup, specs, run, offset, records)


def is_long(spec: RequestSpec) -> bool:
    return spec.label.startswith("long")


def pairs(sr: SetupRun) -> list[tuple[RequestSpec, RemoteResult]]:
    """Each request of the workload with its result, matched by the request sent (results are kept
    in the order they were sent)."""
    sent = {id(r.request): r for r in sr.run.results}
    return [(spec, sent[id(req)]) for spec, req in zip(sr.specs, sr.run.plan.requests) if id(req) in sent]


def phases(sr: SetupRun) -> list[dict]:
    """Per request, seconds after the run's start: sent, first token, done as the client saw them,
    and for the pair each hand-off phase's (start, end) on its worker."""
    rows = []
    for spec, r in pairs(sr):
        row = {"label": spec.label, "long": is_long(spec), "sent": sr.at(r.send), "done": sr.at(r.done)}
        row["first"] = sr.at(r.chunk_times[0]) if r.chunk_times else None
        record = sr.records.get(r.response_id or "")
        if record:
            for name, a, b in PHASES:
                if a in record and b in record:
                    row[name] = (sr.wall(record[a]), sr.wall(record[b]))
            row["handoff_bytes"] = record.get("handoff_bytes")
        rows.append(row)
    return rows


def chat_gaps(sr: SetupRun) -> list[tuple[float, float, str]]:
    """Every gap between two tokens of a chat: (when it ended, s after the start; its length, ms; chat)."""
    out = []
    for spec, r in pairs(sr):
        if not is_long(spec):
            out += [(sr.at(b), 1e3 * (b - a), spec.label) for a, b in zip(r.chunk_times, r.chunk_times[1:])]
    return out


def long_windows(sr: SetupRun) -> list[tuple[float, float]]:
    """Each long prompt from its sending to its first token (s after the start): where its prefill runs."""
    return [(sr.at(r.send), sr.at(r.chunk_times[0])) for spec, r in pairs(sr) if is_long(spec) and r.chunk_times]


def judged(sr: SetupRun, slo: SLO) -> Goodput:
    return judge_load(slo, [r.metrics for r in sr.run.timed], sr.run.seconds, len(sr.specs))


@dataclass(frozen=True)
class Summary:
    chat_tpot_ms: float  # the chats' worst TPOT
    chat_gap_ms: float  # the longest gap between two tokens of a chat: the stall a prefill causes
    chat_ttft_ms: float  # median
    long_ttft_ms: float  # median, the hand-off's transfer included for the pair
    transfer_ms: float | None  # the pair: median transfer of a long prompt's hand-off
    handoff_bytes: int | None  # the pair: a long prompt's hand-off
    goodput: Goodput


def summarize(sr: SetupRun, slo: SLO) -> Summary:
    matched = pairs(sr)
    chats = [r.metrics for s, r in matched if not is_long(s) and r.metrics]
    longs = [r.metrics for s, r in matched if is_long(s) and r.metrics]
    long_rows = [p for p in phases(sr) if p["long"] and "transfer" in p]
    transfer = [1e3 * (b - a) for a, b in (p["transfer"] for p in long_rows)]
    return Summary(
        chat_tpot_ms=max((m.tpot_ms for m in chats if m.tpot_ms is not None), default=0.0),
        chat_gap_ms=max((g for _, g, _ in chat_gaps(sr)), default=0.0),
        chat_ttft_ms=statistics.median(m.ttft_ms for m in chats) if chats else 0.0,
        long_ttft_ms=statistics.median(m.ttft_ms for m in longs) if longs else 0.0,
        transfer_ms=statistics.median(transfer) if transfer else None,
        handoff_bytes=long_rows[0]["handoff_bytes"] if long_rows else None,
        goodput=judged(sr, slo),
    )
