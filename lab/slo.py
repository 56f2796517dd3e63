"""Service-level objectives and goodput: the one place that judges a load by the operator's question,
"how many requests were served well enough?". No Streamlit here: the serving lab, the remote lab,
the CLI and the benches all judge through `judge`.

A request meets an SLO when each of its own values is within its threshold (vLLM's per-request rule,
`vllm bench serve --goodput`): TTFT, TPOT (a single-token reply has none and passes it, as vLLM's
TPOT of 0 does), E2E, and ITL, where every one of its gaps must be within the threshold. Goodput is
the requests that met it per second of the run (DistServe, OSDI '24); attainment is their share of
every request sent, failed ones included; the SLO holds when attainment reaches its target.

    slo = SLO.parse("ttft=500,tpot=100", target=0.9)
    verdict = judge(slo, [r.metrics for r in finished], seconds=run_seconds, failed=2)
    verdict.goodput, verdict.attainment, verdict.holds, verdict.missed
    slo_verdict(verdict, load)   # holds / does not hold / not separable here, by the load beside it

Other work on the machine only slows a server down. So a target met while it was busy was met, and a
target missed while it was busy is not separable from that work ("not separable here", with the load
beside it): never the opposite of what a quiet machine would say (lab/pairing.py's rule, for a
verdict against a threshold rather than a paired ratio).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from engine.errors import LabError
from engine.observe.request_metrics import RequestMetrics
from lab.busy import MachineLoad
from lab.verdicts import FAILS, HOLDS, NOT_SEPARABLE

METRICS = ("ttft", "tpot", "itl", "e2e")
ALIASES = {"e2el": "e2e"}  # vLLM's spelling of end-to-end latency
DEFAULT_TARGET = 0.9


@dataclass(frozen=True)
class SLO:
    """Thresholds in ms (None: not part of the objective) and the share of requests that must meet
    all of them."""

    ttft_ms: float | None = None
    tpot_ms: float | None = None
    itl_ms: float | None = None
    e2e_ms: float | None = None
    target: float = DEFAULT_TARGET

    def __post_init__(self) -> None:
        for name, value in self.thresholds.items():
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < math.inf:
                raise LabError(f"The {name.upper()} objective should be a positive number of ms, got {value!r}.")
        if not self.thresholds:
            raise LabError("An SLO needs at least one threshold: TTFT, TPOT, ITL or E2E (ms).")
        if isinstance(self.target, bool) or not isinstance(self.target, (int, float)) or not 0 < self.target <= 1:
            raise LabError(f"The SLO's target share should be above 0 and at most 100 %, got {self.target!r}.")

    @property
    def thresholds(self) -> dict[str, float]:
        """The objective's thresholds by metric name ("ttft", ...), in METRICS order."""
        values = {name: getattr(self, f"{name}_ms") for name in METRICS}
        return {name: v for name, v in values.items() if v is not None}

    @classmethod
    def parse(cls, text: str, target: float = DEFAULT_TARGET) -> SLO:
        """ "ttft=500,tpot=100" (or vLLM's "ttft:500 tpot:100 e2el:2000") -> SLO."""
        values: dict[str, float] = {}
        for part in (p for p in re.split(r"[,\s]+", text.strip()) if p):
            m = re.fullmatch(r"([a-zA-Z0-9]+)[=:]([^=:]+)", part)
            name = ALIASES.get(m.group(1).lower(), m.group(1).lower()) if m else None
            if name not in METRICS:
                raise LabError(
                    f"Cannot read {part!r} as an objective: write name=ms with a name among ttft, tpot, itl, e2e."
                )
            try:
                values[f"{name}_ms"] = float(m.group(2))
            except ValueError:
                raise LabError(f"Cannot read {part!r}: {m.group(2)!r} is not a number of ms.") from None
        return cls(**values, target=target)

    def misses(self, m: RequestMetrics) -> list[str]:
        """The objectives this request missed (empty: it met the SLO)."""
        own = {
            "ttft": m.ttft_ms,
            "tpot": m.tpot_ms,  # None (one token): nothing to miss
            "itl": max(m.itl_ms) if m.itl_ms else None,  # every gap within the threshold
            "e2e": m.e2e_ms,
        }
        return [name for name, limit in self.thresholds.items() if own[name] is not None and own[name] > limit]


@dataclass(frozen=True)
class Goodput:
    slo: SLO
    requests: int  # every request sent, failed ones included
    met: int  # finished and within every threshold
    seconds: float  # the run's wall time: the goodput's denominator
    missed: dict[str, int] = field(default_factory=dict)  # per objective, the finished requests that missed it
    finished: int = 0  # requests that finished, whether or not they met the SLO

    @property
    def attainment(self) -> float:
        return self.met / self.requests if self.requests else math.nan

    @property
    def goodput(self) -> float:
        """Requests that met the SLO, per second of the run."""
        return self.met / self.seconds if self.seconds > 0 else math.nan

    @property
    def throughput(self) -> float:
        """Finished requests per second of the run, met or not: where goodput parts from it, requests
        still finish but too slowly to count."""
        return self.finished / self.seconds if self.seconds > 0 else math.nan

    @property
    def holds(self) -> bool:
        return self.requests > 0 and self.attainment >= self.slo.target

    @property
    def limiting(self) -> str | None:
        """The objective missed by the most requests (the one that breaks first), or None."""
        worst = max(self.missed.items(), key=lambda kv: kv[1], default=None)
        return worst[0] if worst and worst[1] else None


def judge(slo: SLO, finished: list[RequestMetrics], seconds: float, failed: int = 0) -> Goodput:
    """Judge a run: its finished requests' metrics, its wall time, and how many requests failed."""
    if failed < 0 or seconds < 0:
        raise LabError("A run has no negative failures or duration.")
    missed = dict.fromkeys(slo.thresholds, 0)
    met = 0
    for m in finished:
        misses = slo.misses(m)
        met += not misses
        for name in misses:
            missed[name] += 1
    return Goodput(slo, len(finished) + failed, met, seconds, missed, len(finished))


def judge_load(slo: SLO, finished: list[RequestMetrics], seconds: float, expected: int) -> Goodput:
    """A load's goodput: its finished requests over its wall time; every other request it was meant to
    serve (`expected` in all) missed. The serving lab's runs and every remote load are judged so."""
    return judge(slo, finished, seconds, failed=max(0, expected - len(finished)))


def slo_verdict(g: Goodput, load: MachineLoad | None = None) -> str:
    """HOLDS where the target was met; FAILS where it was missed on a quiet machine; NOT_SEPARABLE
    where it was missed while other processes kept the machine busy (they can only have slowed it)."""
    if g.holds:
        return HOLDS
    return NOT_SEPARABLE if load is not None and load.busy else FAILS


def merged(goodputs: list[Goodput]) -> Goodput:
    """Several runs of one set-up judged as one: their requests, met, seconds and misses added up."""
    if not goodputs:
        raise LabError("No runs to judge together.")
    missed: dict[str, int] = {}
    for g in goodputs:
        for name, n in g.missed.items():
            missed[name] = missed.get(name, 0) + n
    return Goodput(
        goodputs[0].slo,
        sum(g.requests for g in goodputs),
        sum(g.met for g in goodputs),
        sum(g.seconds for g in goodputs),
        missed,
        sum(g.finished for g in goodputs),
    )
