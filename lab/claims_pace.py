"""How far a claims check is and how long it has left. Each part's work is estimated in decode steps
(a prompt token costs 1/PREFILL_TOKENS_PER_DECODE_STEP of one, as in lab/sweeps.py); the pace is this
run's own, measured over the parts after the first (the ceilings, cached or a one-off measurement)."""

from __future__ import annotations

from dataclasses import dataclass

from lab import eta
from lab.memory_lab import HF_STEP_COST
from lab.sweeps import PREFILL_TOKENS_PER_DECODE_STEP as P
from lab.sweeps import sweep_plan


@dataclass(frozen=True)
class ClaimsProgress:
    part: int  # parts done; the one running is part + 1 of total
    total: int
    what: str  # the running part's name ("done" at the end)
    within: float = 0.0  # how far the running part is, when it reports it (the sweep does)
    seconds_left: float | None = None

    @property
    def fraction(self) -> float:
        return min(1.0, (self.part + self.within) / self.total)


def part_work(what: str, s) -> float:
    """A part's work in decode steps, for the ClaimSettings `s`."""
    if what == "ceilings":
        return 0.0  # outside the pace: the first part
    if what == "run A":  # the timed run and its untimed memory replay
        return 2 * (s.new_tokens + s.prompt_len / P)
    if what == "scores":  # one eager prefill; its score matrix grows with L², so at least twice sdpa's cost
        return 2 * s.scores_len / P
    if what == "worked":
        return 3 + 4 / P
    if what == "sweep":
        return sum(n + L / P for _, _, L, n in sweep_plan(s.sweep)) + s.sweep.prompt_new_tokens  # + warm-up
    if what == "cache":  # with the cache, then every step recomputing the whole sequence
        L, n = s.cache_prompt_len, s.cache_new_tokens
        return n + L / P + sum(max(1.0, (L + i) / P) for i in range(n))
    if what == "hol":  # without and with chunked prefill: the chats' steps and the long prompt's tokens
        chats = sum(32 + 4 * i for i in range(s.hol_streams))
        return 2 * (s.hol_stream_output + 16 + (s.hol_long_prompt + chats) / P)
    if what == "leak":  # the naive loop, then the engine
        return s.leak_requests * s.leak_new_tokens * (HF_STEP_COST + 1)
    if what == "precision":  # float32 and int8: warm-up, then two repeats of a decode and a long prefill
        return 2 * (2 + 2 * (s.cache_new_tokens + 1 + s.hol_long_prompt / P))
    raise ValueError(f"no work estimate for the claims part {what!r}")


class ClaimsPace:
    """The progress of measure_all's parts, with the time left at this run's pace."""

    def __init__(self, parts: list[str], s, clock):
        self.parts, self.clock = parts, clock
        self.work = [part_work(what, s) for what in parts]
        self.first_done: float | None = None

    def at(self, part: int, within: float = 0.0) -> ClaimsProgress:
        if part >= 1 and self.first_done is None:
            self.first_done = self.clock()
        since = self.clock() - self.first_done if self.first_done is not None else 0.0
        left = eta.seconds_left(self.work, part, since, within) if part < len(self.parts) else None
        what = self.parts[part] if part < len(self.parts) else "done"
        return ClaimsProgress(part, len(self.parts), what, within, left)
