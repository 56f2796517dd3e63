"""How far a claims check is and how long it has left. Each part's work is estimated in decode steps
(a prompt token costs 1/PREFILL_TOKENS_PER_DECODE_STEP of one, as in lab/sweeps.py); the pace is this
run's own, measured over the parts after the first (which pays the first forwards' one-off costs),
leaving out the parts of no countable work (the ceilings: cached, or a one-off measurement), and
re-estimated within each part as it reports how far it is."""

from __future__ import annotations

from dataclasses import dataclass

from engine.core.memory_pass import PROBE_STEP_COST
from lab import eta
from lab.claims_lanes import cache_work, hol_work
from lab.claims_leak import leak_work
from lab.claims_precision import precision_work
from lab.sweeps import PREFILL_TOKENS_PER_DECODE_STEP as P
from lab.sweeps import sweep_work

PRIOR_WORK = 50.0  # decode steps' worth of weight the expected pace keeps against the measured one
REFERENCE_STEP_S = 0.022  # a decode step of the bundled model (float32, 540 MB of weights), 2 quiet cores
REFERENCE_WEIGHT_BYTES = 540e6
LONG_CHECK_S = 60.0  # past this, the page suggests the quick check


@dataclass(frozen=True)
class ClaimsProgress:
    part: int  # parts done; the one running is part + 1 of total
    total: int
    what: str  # the running part's name ("done" at the end)
    within: float = 0.0  # how far the running part is, as it reports it
    seconds_left: float | None = None
    fraction: float = 0.0  # of the whole check's work


def part_work(what: str, s) -> float:
    """A part's work in decode steps, for the ClaimSettings `s`."""
    if what == "run A":  # the timed run, then its replay with the memory probe on
        return (1 + PROBE_STEP_COST) * (s.new_tokens + s.prompt_len / P)
    if what == "worked":
        return 3 + 9 / P
    if what == "scores":  # one eager prefill, probed: its score matrix grows with L²
        return (1 + PROBE_STEP_COST) * s.scores_len / P
    if what == "ceilings":
        return 0.0  # cached after the first time: outside the pace
    if what == "sweep":
        return sweep_work(s.sweep)
    if what == "cache":
        return sum(cache_work(s.cache_prompt_len, s.cache_new_tokens))
    if what == "hol":
        return hol_work(s.hol_streams, s.hol_long_prompt, s.hol_stream_output)
    if what == "leak":
        return leak_work(s.leak_requests, s.leak_new_tokens)
    if what == "precision":
        return precision_work(s.cache_prompt_len, s.new_tokens, s.prompt_len, s.rounds)
    raise ValueError(f"no work estimate for the claims part {what!r}")


def step_seconds(weight_bytes: int, read_bytes_per_s: float | None = None) -> float:
    """About how long a decode step takes: the weights read once at this machine's measured bandwidth
    (lab/hardware.py, when cached), else the bundled model's step on the reference machine, scaled by
    the weights' size."""
    if read_bytes_per_s:
        return weight_bytes / read_bytes_per_s + 0.002  # + the step's Python and dispatch
    return REFERENCE_STEP_S * weight_bytes / REFERENCE_WEIGHT_BYTES


def predicted_seconds(parts: list[str], s, step_s: float) -> float:
    """The whole check's time at `step_s` seconds a decode step (the one-off loads left out)."""
    return step_s * sum(part_work(what, s) for what in parts)


class ClaimsPace:
    """The progress of a check's parts, with the time left at this run's pace. With `step_s` (the
    expected seconds a decode step, lab/claims_pace.step_seconds or the last check's) the estimate
    starts from it and moves to the measured pace as work is measured (it weighs PRIOR_WORK steps), so
    the first parts' few steps do not swing it."""

    def __init__(self, parts: list[str], s, clock, step_s: float | None = None):
        self.parts, self.clock, self.step_s = parts, clock, step_s
        self.work = [part_work(what, s) for what in parts]
        self.first_done: float | None = None
        self.off_pace = 0.0  # seconds spent in parts of no countable work, after the first part
        self._running: tuple[int, float] | None = None  # (part, when it began)

    def _enter(self, part: int, now: float) -> None:
        if self._running is not None and self._running[0] != part:
            prev, began = self._running
            if prev >= 1 and prev < len(self.work) and self.work[prev] == 0:
                self.off_pace += now - began
        if self._running is None or self._running[0] != part:
            self._running = (part, now)

    def at(self, part: int, within: float = 0.0) -> ClaimsProgress:
        now = self.clock()
        self._enter(part, now)
        if part >= 1 and self.first_done is None:
            self.first_done = now
        since = 0.0
        if self.first_done is not None:
            since = now - self.first_done - self.off_pace
            if part < len(self.work) and self.work[part] == 0:
                since -= now - self._running[1]  # a part of no work is running: not the pace
        current = self.work[part] * within if part < len(self.work) else 0.0
        if part >= len(self.parts):
            left = None
        elif self.step_s is not None:
            measured = sum(self.work[1:part]) + (current if part >= 1 else 0.0)
            pace = (since + self.step_s * PRIOR_WORK) / (measured + PRIOR_WORK)
            left = pace * (sum(self.work[part:]) - current)
        else:
            left = eta.seconds_left(self.work, part, since, within)
        what = self.parts[part] if part < len(self.parts) else "done"
        fraction = min(1.0, (sum(self.work[:part]) + current) / sum(self.work)) if sum(self.work) else 1.0
        return ClaimsProgress(part, len(self.parts), what, within, left, fraction)
