"""How much load a server carries within an SLO: short loads at rising concurrency, or at a rising
request rate, judged by goodput (lab/slo.py), bracketing the largest load whose attainment reaches
the target. No Streamlit: the remote page, the CLI and the bench run the same search.

A load is a level n on a scale (`Scale`): n requests in flight (concurrency: a closed loop, each
finished request replaced by the next), or n × step requests sent per second whatever the server
does (rate: an open loop, as users arrive). The search doubles the level from 1 until a load misses
the target, then bisects between the last level that met it and the first that did not, until they
are neighbours. It stops early at the time budget (it does not start a load it expects to overrun
it, and a server's load ends where the budget does: a load cut short is not judged), at `max_load`,
or when `stop()` says so, and keeps every load it measured. A load whose requests all failed stops
it too: the answer says "all N requests failed" with the server's status and words, and judges
nothing against the SLO (nor does a load whose replies all came back without a token: nothing was
timed). Each load keeps how busy other processes kept the machine meanwhile (lab/busy.py); it is
judged by lab/slo.slo_verdict: other work only slows a server down, so a load that held, held, and
where the first load that missed ran beside other work, where the server breaks is "not separable
here", and the answer says so with that work. Each load on a server is
watched through its /metrics, and the first load that missed says why (lab/slo_cause.py).

The answer is a code and its numbers (`Capacity.message()`); lab/catalogues.word says it in a language.
("Capacity" here is load: the KV cache's capacity is the precision page's.)
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from engine.errors import LabError
from lab.busy import LoadMeter, MachineLoad, local_server_pids
from lab.catalogues import Joined, Message
from lab.remote_client import Endpoint, RemoteRequest
from lab.remote_load import LoadPlan, LoadRun, watched_load
from lab.remote_metrics import MetricsWatch
from lab.slo import SLO, Goodput, judge_load
from lab.slo_cause import Cause, explain

MIN_REQUESTS = 10  # per load: a 90 % target over fewer requests is decided by one or two of them
RATE_LOAD_S = 6.0  # a rate load sends this many seconds of arrivals (at least MIN_REQUESTS requests)
SCALES = ("concurrency", "rate")


@dataclass(frozen=True)
class Scale:
    """What level n of a load means: n requests in flight, or n × `step` requests per second."""

    by: str = "concurrency"
    step: float = 1.0  # requests per second per level (rate)

    def __post_init__(self):
        if self.by not in SCALES:
            raise LabError(f"A capacity search runs over {' or '.join(SCALES)}, not {self.by!r}.")
        if not 0 < self.step <= 100:
            raise LabError(f"The rate step must be in (0, 100] requests per second, got {self.step:g}.")

    def value(self, level: int) -> float:
        """The load of a level: requests in flight, or requests per second."""
        return level if self.by == "concurrency" else round(level * self.step, 6)

    def levels(self, highest: float) -> int:
        """The level of the highest load asked for (at least 1)."""
        return max(1, int(highest / self.step + 1e-9)) if self.by == "rate" else max(1, int(highest))

    def load(self, kind: str, level: int) -> Message:
        """A load as the answer names it: kind "holds", "at_least", "at" or "lowest"."""
        return Message(f"search_{kind}_{self.by}", {"v": f"{self.value(level):g}"})


CONCURRENCY = Scale()  # the default scale: requests in flight


@dataclass
class Point:
    load: int  # the level: requests in flight, or the rate step's multiple (Scale)
    verdict: Goodput
    seconds: float
    machine: MachineLoad | None = None  # how busy other processes kept the machine meanwhile
    run: LoadRun | None = None  # the load itself, when it came from a server
    seen: MetricsWatch | None = None  # the server's /metrics over the load, when it came from a server
    # every request failed ("all N requests failed: …"), or none got a token: nothing to judge
    failure: Message | None = None
    cut: bool = False  # ended early (the budget or a stop) before its requests were done: not judged

    @property
    def busy(self) -> bool:
        return self.machine is not None and self.machine.busy


@dataclass
class Capacity:
    slo: SLO
    points: dict[int, Point] = field(default_factory=dict)
    good: int | None = None  # the largest load that met the target
    bad: int | None = None  # the smallest load above it that did not
    stopped: str | None = None  # "budget", "cancelled", "max load", "failed", or None when bracketed
    seconds: float = 0.0
    scale: Scale = CONCURRENCY
    failed: Point | None = None  # the load whose requests all failed, which ended the search

    @property
    def bracketed(self) -> bool:
        """The answer is exact: `good` met the target and `good + 1` did not."""
        return self.bad is not None and self.bad - (self.good or 0) == 1

    @property
    def busy(self) -> bool:
        return any(p.busy for p in self.points.values())

    @property
    def separable(self) -> bool:
        """Where it breaks is the server's own: the first load that missed ran on a quiet machine."""
        return self.bad is None or not self.points[self.bad].busy

    @property
    def limiting(self) -> str | None:
        """The objective that broke first at the first load that missed the target."""
        return self.points[self.bad].verdict.limiting if self.bad is not None else None

    @property
    def cause(self) -> Cause | None:
        """Why it broke there, from the server's own metrics over that load."""
        if self.bad is None:
            return None
        in_flight = self.bad if self.scale.by == "concurrency" else None  # a rate keeps no fixed number in flight
        return explain(self.points[self.bad].seen, self.limiting, in_flight=in_flight)

    def why(self) -> Message | str:
        """What follows "breaks first": the cause, or a note that the server gave no reason."""
        if self.bad is None or self.points[self.bad].seen is None:
            return ""
        cause = self.cause
        return Message("search_why", {"cause": cause.message()}) if cause is not None else Message("search_no_cause")

    def dropped(self) -> tuple[Message, str] | None:
        """What the requests went without (vLLM's extensions the server refused) and the refusal, or None."""
        runs = [p.run for p in (*self.points.values(), self.failed) if p is not None and p.run is not None]
        return next((m for m in (run.dropped() for run in runs) if m is not None), None)

    def message(self) -> Message:
        """The answer as a person would give it, as a code and its numbers (lab/catalogues.word words it)."""
        if self.failed is not None:
            at = self.scale.load("holds", self.failed.load)
            return Message("search_answer_failed", {"load": at, "failed": self.failed.failure})
        if not self.points:
            kind = "nothing"
        elif self.good is None:
            kind = "none"
        elif self.bad is None:
            kind = "unbroken"
        else:
            kind = "bracketed" if self.bracketed else "open"
        objectives = (
            Message("search_slo_threshold", {"name": n.upper(), "ms": v}) for n, v in self.slo.thresholds.items()
        )
        values = dict(
            slo=Joined(tuple(objectives), by="slo_and"),
            share=100 * self.slo.target,
            holds=self.scale.load("holds", self.good or 1),
            at_least=self.scale.load("at_least", self.good or 1),
            at=self.scale.load("at", self.bad or 1),
            lowest=self.scale.load("lowest", 1),
            limit=(self.limiting or "").upper(),
            stopped=Message("search_stop_" + self.stopped.replace(" ", "_")) if self.stopped else "",
            why=self.why(),
        )
        if not self.separable:  # other work may have broken it: what held stands, where it breaks does not
            kind = "busy_none" if self.good is None else "busy_miss"
            machine = self.points[self.bad].machine
            values |= dict(other=machine.other_cores, cores=machine.cores)
        return Message(f"search_answer_{kind}", values)


def search(
    measure: Callable[[int], Point],
    slo: SLO,
    budget_s: float = 120.0,
    max_load: int = 64,
    stop: Callable[[], bool] | None = None,
    on_point: Callable[[Point, Capacity], None] | None = None,
    clock: Callable[[], float] = time.perf_counter,
    scale: Scale = CONCURRENCY,
) -> Capacity:
    """Bracket the largest load that meets the SLO's target; `measure(level)` runs and judges one load.
    `max_load` is the highest level (on a rate scale, the highest rate ÷ the step)."""
    if not 0 < budget_s <= 3600 or not 1 <= max_load <= 256:
        raise LabError("The capacity search needs a budget of (0, 3600] s and at most 1-256 load levels.")
    result = Capacity(slo, scale=scale)
    start, load, last_cost = clock(), 1, 0.0
    while True:
        elapsed = clock() - start
        if stop is not None and stop():
            result.stopped = "cancelled"
            break
        if result.points and elapsed + last_cost > budget_s:
            result.stopped = "budget"
            break
        began = clock()
        point = measure(load)
        last_cost = clock() - began
        ended = _ends_unjudged(result, point, stop)
        if not ended:
            _judge(result, point)
        if on_point is not None:
            on_point(point, result)
        if ended:
            break
        if result.bad is None:
            if load >= max_load:
                result.stopped = "max load"
                break
            load = min(2 * load, max_load)
        elif result.bracketed or result.bad == 1:
            break
        else:
            load = ((result.good or 0) + result.bad) // 2
    result.seconds = clock() - start
    return result


def _ends_unjudged(result: Capacity, point: Point, stop: Callable[[], bool] | None) -> bool:
    """A load with nothing an SLO can judge (every request failed, or cut short by the budget or a
    stop) ends the search, and says why."""
    if point.failure is None and not point.cut:
        return False
    result.failed = point if point.failure is not None else None
    if point.failure is not None:
        result.stopped = "failed"
    else:
        result.stopped = "cancelled" if stop is not None and stop() else "budget"
    return True


def _judge(result: Capacity, point: Point) -> None:
    result.points[point.load] = point
    if point.verdict.holds:
        result.good = max(result.good or 0, point.load)
    else:
        result.bad = point.load if result.bad is None else min(result.bad, point.load)


def server_measure(
    endpoint: Endpoint,
    model: str,
    requests: list[RemoteRequest],
    slo: SLO,
    per_load: Callable[[int], int] | None = None,
    max_duration_s: float = 60.0,
    stop: Callable[[], bool] | None = None,
    scale: Scale = CONCURRENCY,
    budget_s: float | None = None,
) -> Callable[[int], Point]:
    """`measure` for a server: `per_load(level)` requests at that level's load, judged by the SLO. By
    default 3 per request in flight, or RATE_LOAD_S seconds of arrivals; MIN_REQUESTS at least.
    `budget_s`: the search's, counted from the first load: no load runs past it (one cut short is
    returned with `cut` set, and the search does not judge it)."""

    ours = local_server_pids(endpoint.base_url)  # a server on this machine is measured, not other work
    started: list[float] = []  # when the first load began: the budget's start

    def default_count(level: int) -> int:
        if scale.by == "rate":
            return max(MIN_REQUESTS, math.ceil(RATE_LOAD_S * scale.value(level)))
        return max(MIN_REQUESTS, 3 * level)

    count = per_load or default_count

    def time_limit() -> float:
        started[:] = started or [time.perf_counter()]
        if budget_s is None:
            return max_duration_s
        return max(0.01, min(max_duration_s, budget_s - (time.perf_counter() - started[0])))

    def measure(load: int) -> Point:
        limit = time_limit()
        if scale.by == "rate":
            plan = LoadPlan(
                "constant", requests, max_requests=count(load), rate=scale.value(load), max_duration_s=limit
            )
        else:
            plan = LoadPlan("concurrent", requests, max_requests=count(load), concurrency=load, max_duration_s=limit)
        with LoadMeter(ours) as meter:
            run, seen = LoadRun(plan, start=time.perf_counter()), MetricsWatch()
            asyncio.run(watched_load(endpoint, model, run, seen, stop))
        verdict = judge_run(slo, run, expected=plan.max_requests)
        cut = run.stopped and limit < max_duration_s  # the budget ended it, not the load's own limit
        untimed = None if cut else run.nothing_timed()
        return Point(load, verdict, run.seconds, meter.load, run, seen, untimed, cut)

    return measure


def judge_run(slo: SLO, run: LoadRun, expected: int | None = None) -> Goodput:
    """A load's goodput: its timed requests over its wall time; every other request it sent (or,
    given `expected`, was meant to send) missed, a 0-token reply too (it served no token)."""
    return judge_load(slo, [r.metrics for r in run.timed], run.seconds, expected or len(run.results))
