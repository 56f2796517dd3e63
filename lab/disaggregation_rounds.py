"""The three set-ups of lab/disaggregation.py compared by the lab's one rule (lab/pairing.py): they
run the same workload in rounds, their order alternating (whole, chunked, pd, then pd, chunked,
whole, ...), and each number a set-up gave is paired with the colocated whole-prompt server's number of
the same round; the answer is the median of those ratios with its interval and n, and a verdict only
where the interval excludes 1. A round run while other work took the machine is run again, within a
budget of re-takes and a deadline. The set-ups are server processes, so a round is a whole workload:
they cannot take a step each in turn.

An SLO can be calibrated on this machine first (`calibrate`): one chat alone and one long prompt alone
on the whole-prompt server give the solo TPOT and TTFT, and the SLO is a multiple of each (DistServe
states its SLOs so, as multiples of the solo latency), so that its verdicts compare the set-ups
instead of the machine's speed.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from engine.errors import LabError
from lab.busy import LoadMeter, MachineLoad, busiest
from lab.disaggregation import SETUPS, SetupRun, Summary, run_setup, summarize
from lab.pairing import RatioInterval, ratio_interval, round_order
from lab.slo import SLO, Goodput, merged
from lab.workload import RequestSpec

BASE = "whole"  # every set-up is paired with the colocated whole-prompt server
COMPARED = ("chat_gap_ms", "chat_tpot_ms", "long_ttft_ms", "goodput")  # what the page sets side by side
TTFT_FACTOR, TPOT_FACTOR = 4.0, 2.0  # a calibrated SLO: this many times the solo TTFT and TPOT


@dataclass
class SetupRounds:
    """Every kept round: rounds[i][setup] is round i of that set-up."""

    rounds: list[dict[str, SetupRun]] = field(default_factory=list)
    loads: list[MachineLoad] = field(default_factory=list)
    retaken: int = 0

    @property
    def load(self) -> MachineLoad | None:
        return busiest(self.loads)


def run_rounds(
    urls: dict[str, str],
    specs: list[RequestSpec],
    tokenizer,
    model: str,
    rounds: int,
    ours: tuple[int, ...] = (),
    on_setup: Callable[[int, str], None] | None = None,
    on_round: Callable[[SetupRounds], None] | None = None,
    deadline: float | None = None,
    out: SetupRounds | None = None,
) -> SetupRounds:
    """The workload on every set-up, `rounds` times, in lab.pairing.round_order; `ours`: the servers'
    processes (their CPU time is the measurement's, not other work). on_setup(round, set-up) before each
    run, on_round(result) after each kept round; a busy round is run again at most rounds // 2 times and
    not past `deadline` (a time.perf_counter() value). `out` collects the rounds as they land."""
    if rounds < 1:
        raise LabError(f"Run the set-ups at least once, not {rounds} times.")
    out = out if out is not None else SetupRounds()
    names = [n for n in SETUPS if n in urls]
    while len(out.rounds) < rounds:
        kept, meter = {}, LoadMeter(ours).start()
        for name in round_order(names, len(out.rounds) + out.retaken):
            if on_setup is not None:
                on_setup(len(out.rounds), name)
            kept[name] = run_setup(name, urls[name], specs, tokenizer, model)
        load = meter.stop()
        in_time = deadline is None or time.perf_counter() < deadline
        if load.busy and out.retaken < rounds // 2 and in_time:
            out.retaken += 1
            continue
        out.rounds.append({name: kept[name] for name in names})
        out.loads.append(load)
        if on_round is not None:
            on_round(out)
    return out


def value(s: Summary, what: str) -> float:
    """One of COMPARED from a round's summary (goodput: requests per second that met the SLO)."""
    return s.goodput.goodput if what == "goodput" else getattr(s, what)


def paired(
    summaries: list[dict[str, Summary]], setup: str, what: str, base: str = BASE, retaken: int = 0, load=None
) -> RatioInterval | None:
    """setup ÷ base of one number, round by round; None where no round gives a pair (a base of 0)."""
    rows = [r for r in summaries if setup in r and base in r]
    values, bases = [value(r[setup], what) for r in rows], [value(r[base], what) for r in rows]
    if not any(b > 0 and v >= 0 for v, b in zip(values, bases)):
        return None
    return ratio_interval(values, bases, retaken, load)


def goodput_over_rounds(runs: list[SetupRun], slo: SLO) -> Goodput:
    """One set-up's goodput over every round: their requests, met and seconds added up."""
    return merged([summarize(sr, slo).goodput for sr in runs])


@dataclass(frozen=True)
class Calibration:
    """An SLO made from this machine's own solo latencies."""

    solo_ttft_ms: float  # a long prompt alone on the whole-prompt server
    solo_tpot_ms: float  # a chat alone there
    slo: SLO


def calibrate(url: str, specs: list[RequestSpec], tokenizer, model: str, target: float = 0.9) -> Calibration:
    """One chat, then one long prompt, each alone on the server at `url`; the SLO is TTFT_FACTOR times
    the long prompt's TTFT and TPOT_FACTOR times the chat's TPOT."""
    chat = next((s for s in specs if not s.label.startswith("long")), None)
    long = next((s for s in specs if s.label.startswith("long")), None)
    if chat is None or long is None:
        raise LabError("Calibrating the SLO needs a chat and a long prompt in the workload.")
    alone = [run_setup(BASE, url, [RequestSpec(0.0, s.prompt_ids, s.max_new_tokens, s.label)], tokenizer, model)
             for s in (chat, long)]  # fmt: skip
    tpot = alone[0].run.timed[0].metrics.tpot_ms or 0.0
    ttft = alone[1].run.timed[0].metrics.ttft_ms
    if tpot <= 0 or ttft <= 0:
        raise LabError("The solo run gave no TTFT or TPOT to calibrate the SLO by.")
    slo = SLO(ttft_ms=round(TTFT_FACTOR * ttft), tpot_ms=round(TPOT_FACTOR * tpot, 1), target=target)
    return Calibration(ttft, tpot, slo)
