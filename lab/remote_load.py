"""Load on an OpenAI-compatible server: real concurrent streamed requests (asyncio), in GuideLLM's
modes, or a serving-lab workload replayed at its own arrival times.

    synchronous  one request at a time, each sent when the last one ends
    concurrent   a fixed number in flight: a new one is sent as soon as one ends
    constant     sent at a fixed rate (requests per second), however many are in flight
    poisson      sent at a rate with exponential gaps (seeded: the same schedule every time)
    workload     sent at the arrival times of a workload (lab/workload.py's presets)
A sweep runs `constant` at several rates, to find where latency starts to climb.

Every run stops at its request count, its time limit, or when `stop()` says so; stopping cancels
every request still in flight (the server sees each connection close).
"""

from __future__ import annotations

import asyncio
import random
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from engine.errors import LabError
from engine.observe.fields import Float, Int, ListOf, OneOf
from engine.observe.request_metrics import percentiles
from lab.catalogues import Message
from lab.remote_client import CANCELLED, Endpoint, RemoteRequest, RemoteResult, stream_one, warm
from lab.remote_metrics import MetricsWatch, watch_all
from lab.workload import RequestSpec

MODES = ("synchronous", "concurrent", "constant", "poisson", "workload")


@dataclass
class LoadPlan:
    mode: OneOf(MODES)
    requests: ListOf(RemoteRequest)  # sent in order (cycled when max_requests is larger)
    max_requests: Int(lo=1) = 16
    concurrency: Int(lo=1) = 4  # concurrent
    rate: Float() = 1.0  # constant and poisson: requests per second
    arrivals: ListOf(Float()) | None = None  # workload: seconds after the start, one per request
    max_duration_s: Float() = 120.0
    seed: Int() = 0

    def __post_init__(self):
        if self.mode not in MODES:
            raise LabError(f"Unknown load mode {self.mode!r}; choose one of {', '.join(MODES)}.")
        if not self.requests:
            raise LabError("A load needs at least one request.")
        if not 1 <= self.max_requests <= 10_000:
            raise LabError(f"Requests must be 1-10,000, got {self.max_requests}.")
        if not 1 <= self.concurrency <= 256:
            raise LabError(f"Concurrency must be 1-256, got {self.concurrency}.")
        if not 0 < self.rate <= 1000:
            raise LabError(f"The rate must be in (0, 1000] requests per second, got {self.rate}.")
        if not 0 < self.max_duration_s <= 3600:
            raise LabError(f"The time limit must be in (0, 3600] seconds, got {self.max_duration_s}.")
        if self.mode == "workload" and (self.arrivals is None or len(self.arrivals) != len(self.requests)):
            raise LabError("A workload needs one arrival time per request.")

    def request(self, i: int) -> RemoteRequest:
        return self.requests[i % len(self.requests)]

    def send_times(self) -> list[float]:
        """Seconds after the start at which each request is sent (the rate modes and workloads)."""
        if self.mode == "workload":
            return list(self.arrivals)[: self.max_requests]
        if self.mode == "constant":
            return [i / self.rate for i in range(self.max_requests)]
        rng, t, times = random.Random(self.seed), 0.0, []
        for _ in range(self.max_requests):
            times.append(t)
            t += rng.expovariate(self.rate)
        return times


@dataclass
class LoadRun:
    plan: LoadPlan
    start: float
    results: list[RemoteResult] = field(default_factory=list)
    end: float | None = None
    stopped: bool = False  # by stop() or the time limit, before every request was sent and done

    @property
    def cut_short(self) -> bool:
        """Stopped, or never reached its end (an interrupted page run, a file saved mid-run)."""
        return self.stopped or self.end is None

    @property
    def seconds(self) -> float:
        """From the start to the end, or to the last request that ended when the run was cut short."""
        end = (
            self.end if self.end is not None else max((r.done or self.start for r in self.results), default=self.start)
        )
        return max(0.0, end - self.start)

    @property
    def finished(self) -> list[RemoteResult]:
        """The requests the server ended without an error, 0-token replies included."""
        return [r for r in self.results if r.error is None and r.done is not None]

    @property
    def timed(self) -> list[RemoteResult]:
        """The finished requests with at least one chunk: the only ones with a TTFT, TPOT or E2E."""
        return [r for r in self.finished if r.metrics is not None]

    @property
    def failed(self) -> list[RemoteResult]:
        return [r for r in self.results if r.error is not None]

    def dropped(self) -> tuple[Message, str] | None:
        """What the requests went without, the server having refused vLLM's extensions by name, and
        that refusal in its words ("422 Unexpected fields…"); None when every request went as asked."""
        went_without = [r for r in self.results if r.dropped_fields]
        if not went_without:
            return None
        fields = sorted({name for r in went_without for name in r.dropped_fields})
        said = Message("load_dropped_fields", {"n": len(fields), "fields": ", ".join(f"`{f}`" for f in fields)})
        return said, went_without[0].refusal or ""

    def all_failed(self) -> Message | None:
        """'all N requests failed: <status> <the server's message>' (the most common reason) when no
        request of the run got through and the lab cancelled none: nothing an SLO could judge."""
        if not self.results or any(r.error is None or r.error == CANCELLED for r in self.results):
            return None
        reasons = Counter(failure_reason(r) for r in self.failed)
        return Message("load_all_failed", {"n": len(self.results), "reason": reasons.most_common(1)[0][0]})

    def nothing_timed(self) -> Message | None:
        """Why no request of the run has a time to judge: all failed, or the rest answered with 0
        tokens (a server that ends at EOS at once); None when one has, or the lab cut the run."""
        failed = self.all_failed()
        if failed is not None or not self.results or self.timed:
            return failed
        if any(r.error == CANCELLED or r.done is None for r in self.results):
            return None
        empty = [r for r in self.finished if r.metrics is None]
        finish = ", ".join(sorted({str(r.finish_reason) for r in empty}))
        return Message("load_no_tokens", {"n": len(self.results), "empty": len(empty), "finish": finish})

    def summary(self) -> dict:
        """TTFT / TPOT / ITL / E2E percentiles (ms) over the finished requests that sent a token (a
        0-token reply has no first token to time: counted in `empty`), and throughput."""
        done = self.finished
        metrics = [r.metrics for r in self.timed]
        span = max(1e-9, (self.end or time.perf_counter()) - self.start)
        return {
            "requests": len(self.results),
            "finished": len(done),
            "empty": len(done) - len(metrics),
            "failed": len(self.failed),
            "ttft_ms": percentiles([m.ttft_ms for m in metrics]),
            "tpot_ms": percentiles([m.tpot_ms for m in metrics if m.tpot_ms is not None]),
            "itl_ms": percentiles([g for m in metrics for g in m.itl_ms]),
            "e2e_ms": percentiles([m.e2e_ms for m in metrics]),
            "requests_per_s": len(done) / span,
            "output_tokens_per_s": sum(r.num_output_tokens for r in done) / span,
            "offered_rate": self.plan.rate if self.plan.mode in ("constant", "poisson") else None,
        }


def failure_reason(r: RemoteResult) -> str:
    """A failed request's reason as the server gave it: its status and its own words, else the lab's
    sentence (a connection that failed, a stream that was cut)."""
    if r.status is not None:
        return f"{r.status} {r.reason}" if r.reason else str(r.status)
    return r.error or ""


async def run_load(
    endpoint: Endpoint,
    model: str,
    plan: LoadPlan,
    stop: Callable[[], bool] | None = None,
    on_result: Callable[[RemoteResult], None] | None = None,
    run: LoadRun | None = None,
) -> LoadRun:
    """Send the plan's requests; `on_result` sees each one as it ends (progress), `stop` is polled.
    Pass `run` to watch it fill (a page keeps it, so an interrupted run keeps what it measured)."""
    run = run or LoadRun(plan, start=time.perf_counter())
    client = endpoint.client()
    await warm(client, endpoint)
    run.start = time.perf_counter()

    async def one(i: int) -> None:
        result = RemoteResult(plan.request(i), send=time.perf_counter())
        run.results.append(result)
        await stream_one(endpoint, model, plan.request(i), client, result)
        if on_result is not None:
            on_result(result)

    sender = asyncio.create_task(_send(plan, one))
    try:
        while not sender.done():
            if (stop is not None and stop()) or time.perf_counter() - run.start > plan.max_duration_s:
                run.stopped = True
                sender.cancel()
                break
            await asyncio.sleep(0.05)
        try:
            await sender
        except asyncio.CancelledError:
            if not run.stopped:
                raise
    finally:
        run.end = time.perf_counter()
        await client.close()
    return run


async def watched_load(
    endpoint: Endpoint,
    model: str,
    run: LoadRun,
    seen: MetricsWatch,
    stop: Callable[[], bool] | None = None,
    read_metrics: bool = True,
    progress: Callable[[LoadRun], None] | None = None,
    pools: dict[str, Endpoint] | None = None,
) -> None:
    """Run `run.plan` with the server's /metrics read beside it (the cause of an SLO miss comes from
    there), and each of `pools`' (lab/remote_metrics.parse_pools), filling `run` and `seen` in place,
    so a load interrupted by its page keeps what it measured; `progress(run)` is called about every
    0.25 s."""
    done = asyncio.Event()
    watcher = asyncio.create_task(watch_all(endpoint, done, pools)) if read_metrics or pools else None
    load = asyncio.create_task(run_load(endpoint, model, run.plan, stop, run=run))
    try:
        while not load.done():
            if progress is not None:
                progress(run)
            await asyncio.wait([load], timeout=0.25)
        load.result()
    finally:
        done.set()
        if watcher is not None:
            got = await watcher
            if read_metrics:
                seen.snapshots, seen.note = got.snapshots, got.note
            seen.pools = got.pools


async def _send(plan: LoadPlan, one) -> None:
    """The plan's schedule; cancelling this cancels every request it started."""
    tasks: list[asyncio.Task] = []
    try:
        if plan.mode == "synchronous":
            for i in range(plan.max_requests):
                await one(i)
        elif plan.mode == "concurrent":
            queue = iter(range(plan.max_requests))

            async def worker() -> None:
                for i in queue:
                    await one(i)

            tasks = [asyncio.create_task(worker()) for _ in range(min(plan.concurrency, plan.max_requests))]
            await asyncio.gather(*tasks)
        else:
            start = time.perf_counter()
            for i, at in enumerate(plan.send_times()):
                await asyncio.sleep(max(0.0, start + at - time.perf_counter()))
                tasks.append(asyncio.create_task(one(i)))
            await asyncio.gather(*tasks)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


def workload_plan(tokenizer, specs: list[RequestSpec], chat: bool = False, **kwargs) -> LoadPlan:
    """A serving-lab workload as remote requests: its prompts as text (another model's tokenizer
    counts them a little differently), its output lengths, its arrival times."""
    requests = [
        RemoteRequest(
            tokenizer.decode(s.prompt_ids, skip_special_tokens=True), s.max_new_tokens, chat=chat, ignore_eos=True
        )
        for s in specs
    ]
    return LoadPlan("workload", requests, max_requests=len(specs), arrivals=[s.arrival_s for s in specs], **kwargs)


async def sweep(
    endpoint: Endpoint,
    model: str,
    requests: list[RemoteRequest],
    rates: list[float],
    per_rate: int,
    stop: Callable[[], bool] | None = None,
    **kwargs,
) -> list[LoadRun]:
    """`constant` load at each rate in turn (GuideLLM's sweep): throughput against offered rate."""
    runs = []
    for rate in rates:
        runs.append(
            await run_load(
                endpoint, model, LoadPlan("constant", requests, max_requests=per_rate, rate=rate, **kwargs), stop
            )
        )
        if runs[-1].stopped:
            break
    return runs
