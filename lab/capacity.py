"""How much load a server carries within an SLO: short loads at rising concurrency, or at a rising
request rate, judged by goodput (lab/slo.py), bracketing the largest load whose attainment reaches
the target. No Streamlit: the remote page, the CLI and the bench run the same search.

A load is a level n on a scale (`Scale`): n requests in flight (concurrency: a closed loop, each
finished request replaced by the next), or n × step requests sent per second whatever the server
does (rate: an open loop, as users arrive). The search doubles the level from 1 until a load misses
the target, then bisects between the last level that met it and the first that did not, until they
are neighbours. It stops early at the
time budget (it does not start a load it expects to overrun it), at `max_load`, or when `stop()`
says so, and keeps every load it measured. A load measured while other processes kept the machine
busy (lab/busy.py) makes the answer unreliable, and the answer says so. Each load on a server is
watched through its /metrics, and the first load that missed says why (lab/capacity_cause.py).
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from engine.errors import LabError
from lab.busy import LoadMeter, local_server_pids
from lab.capacity_cause import Cause, explain
from lab.remote_client import Endpoint, RemoteRequest
from lab.remote_load import LoadPlan, LoadRun, watched_load
from lab.remote_metrics import MetricsWatch
from lab.slo import SLO, Goodput, judge_load

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

    def words(self, key: str, level: int, lang: str = "en") -> str:
        """A load in words for the sentences (`key` in LOAD_WORDS)."""
        return LOAD_WORDS[self.by][key][0 if lang == "en" else 1].format(v=f"{self.value(level):g}")


CONCURRENCY = Scale()  # the default scale: requests in flight

LOAD_WORDS = {
    "concurrency": {
        "holds": ("a concurrency of {v}", " {v} 个并发请求"),
        "at_least": ("a concurrency of at least {v}", "至少 {v} 个并发请求"),
        "at": ("{v}", " {v} 个"),
        "lowest": ("one request at a time", "一次只处理 1 个请求"),
    },
    "rate": {
        "holds": ("a rate of {v} requests/s", "每秒 {v} 个请求"),
        "at_least": ("a rate of at least {v} requests/s", "至少每秒 {v} 个请求"),
        "at": ("{v} requests/s", "每秒 {v} 个"),
        "lowest": ("{v} requests/s", "每秒只发 {v} 个请求"),
    },
}


@dataclass
class Point:
    load: int  # the level: requests in flight, or the rate step's multiple (Scale)
    verdict: Goodput
    seconds: float
    busy: bool = False  # other processes kept the machine busy meanwhile
    run: LoadRun | None = None  # the load itself, when it came from a server
    seen: MetricsWatch | None = None  # the server's /metrics over the load, when it came from a server


@dataclass
class Capacity:
    slo: SLO
    points: dict[int, Point] = field(default_factory=dict)
    good: int | None = None  # the largest load that met the target
    bad: int | None = None  # the smallest load above it that did not
    stopped: str | None = None  # "budget", "cancelled", "max load", or None when bracketed
    seconds: float = 0.0
    scale: Scale = CONCURRENCY

    @property
    def bracketed(self) -> bool:
        """The answer is exact: `good` met the target and `good + 1` did not."""
        return self.bad is not None and self.bad - (self.good or 0) == 1

    @property
    def busy(self) -> bool:
        return any(p.busy for p in self.points.values())

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

    def why(self, lang: str = "en") -> str:
        """ ": <the cause>" after "breaks first", or a note that the server gave no reason."""
        if self.bad is None or self.points[self.bad].seen is None:
            return ""
        cause = self.cause
        i = 0 if lang == "en" else 1
        return (": ", "：")[i] + cause.sentence(lang) if cause is not None else SENTENCES["no_cause"][i]

    def sentence(self, lang: str = "en") -> str:
        """The answer as a person would give it, in English ("en") or Chinese ("zh")."""
        i = 0 if lang == "en" else 1
        join = (" and ", " 且 ")[i]
        slo = join.join(f"{n.upper()} ≤ {v:g} ms" for n, v in self.slo.thresholds.items())
        words = self.scale.words
        values = dict(
            slo=slo,
            share=100 * self.slo.target,
            holds=words("holds", self.good or 1, lang),
            at_least=words("at_least", self.good or 1, lang),
            at=words("at", self.bad or 1, lang),
            lowest=words("lowest", 1, lang),
            limit=(self.limiting or "").upper(),
            stopped=STOP_WORDS.get(self.stopped or "", ("", ""))[i],
            why=self.why(lang),
        )
        if not self.points:
            key = "nothing"
        elif self.good is None:
            key = "none"
        elif self.bad is None:
            key = "unbroken"
        else:
            key = "bracketed" if self.bracketed else "open"
        text = SENTENCES[key][i].format(**values)
        return SENTENCES["busy"][i] + text if self.busy else text


STOP_WORDS = {
    "budget": ("the time budget ran out", "时间预算用完"),
    "cancelled": ("stopped by hand", "被手动停止"),
    "max load": ("the maximum load was reached", "已达最大负载"),
}
SENTENCES = {
    "nothing": ("Nothing was measured ({stopped}).", "什么也没测到（{stopped}）。"),
    "none": (
        "Not even {lowest} meets {slo} for {share:.0f} % of requests: {limit} breaks first{why}.",
        "即使{lowest}，也无法让 {share:.0f} % 的请求满足 {slo}：{limit} 最先失守{why}。",
    ),
    "unbroken": (
        "Holds {holds} with {slo} for {share:.0f} % of requests; no load measured broke it ({stopped}).",
        "可承载{holds}，且 {share:.0f} % 的请求满足 {slo}；测过的负载都没有失守（{stopped}）。",
    ),
    "bracketed": (
        "Holds {holds} with {slo} for {share:.0f} % of requests; at {at}, {limit} breaks first{why}.",
        "可承载{holds}，且 {share:.0f} % 的请求满足 {slo}；到{at}时，{limit} 最先失守{why}。",
    ),
    "open": (
        "Holds {at_least} with {slo} for {share:.0f} % of requests; at {at}, {limit} breaks first{why}; between "
        "them is not measured ({stopped}).",
        "可承载{at_least}，且 {share:.0f} % 的请求满足 {slo}；到{at}时，{limit} 最先失守{why}；两者之间未测（{stopped}）。",
    ),
    "no_cause": (" (the server published no metrics that say why)", "（服务器没有公布能说明原因的指标）"),
    "busy": (
        "Unreliable, the machine was busy during the search: ",
        "结果不可靠，搜索期间机器正忙：",
    ),
}


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
        result.points[load] = point
        if point.verdict.holds:
            result.good = max(result.good or 0, load)
        else:
            result.bad = load if result.bad is None else min(result.bad, load)
        if on_point is not None:
            on_point(point, result)
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


def server_measure(
    endpoint: Endpoint,
    model: str,
    requests: list[RemoteRequest],
    slo: SLO,
    per_load: Callable[[int], int] | None = None,
    max_duration_s: float = 60.0,
    stop: Callable[[], bool] | None = None,
    scale: Scale = CONCURRENCY,
) -> Callable[[int], Point]:
    """`measure` for a server: `per_load(level)` requests at that level's load, judged by the SLO. By
    default 3 per request in flight, or RATE_LOAD_S seconds of arrivals; MIN_REQUESTS at least."""

    ours = local_server_pids(endpoint.base_url)  # a server on this machine is measured, not other work

    def default_count(level: int) -> int:
        if scale.by == "rate":
            return max(MIN_REQUESTS, math.ceil(RATE_LOAD_S * scale.value(level)))
        return max(MIN_REQUESTS, 3 * level)

    count = per_load or default_count

    def measure(load: int) -> Point:
        if scale.by == "rate":
            plan = LoadPlan(
                "constant", requests, max_requests=count(load), rate=scale.value(load), max_duration_s=max_duration_s
            )
        else:
            plan = LoadPlan(
                "concurrent", requests, max_requests=count(load), concurrency=load, max_duration_s=max_duration_s
            )
        with LoadMeter(ours) as meter:
            run, seen = LoadRun(plan, start=time.perf_counter()), MetricsWatch()
            asyncio.run(watched_load(endpoint, model, run, seen, stop))
        verdict = judge_run(slo, run, expected=plan.max_requests)
        return Point(load, verdict, run.seconds, meter.load.busy, run, seen)

    return measure


def judge_run(slo: SLO, run: LoadRun, expected: int | None = None) -> Goodput:
    """A load's goodput: its timed requests over its wall time; every other request it sent (or,
    given `expected`, was meant to send) missed, a 0-token reply too (it served no token)."""
    return judge_load(slo, [r.metrics for r in run.timed], run.seconds, expected or len(run.results))
