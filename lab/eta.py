"""How long the rest of a measured series should take, from the pace of what is already measured:
each item has a work estimate (any unit), and the pace is the seconds per unit of the items done
after the first (the first pays one-off costs: new shapes, allocator growth)."""

from __future__ import annotations

import time


def seconds_left(work: list[float], done: int, since_first_s: float, within: float = 0.0) -> float | None:
    """The remaining items' work at the pace of items 2..done (`since_first_s` is the time since item 1
    finished); `within`: how far item done+1 is, for an item long enough to report its own progress.
    None until a pace is known."""
    current = work[done] * within if 1 <= done < len(work) else 0.0
    measured = sum(work[1:done]) + current
    if done < 1 or measured <= 0:
        return None
    return since_first_s * (sum(work[done:]) - current) / measured


class Pace:
    """Time left for a run whose progress is a fraction of its work, at the pace it has kept since its
    first progress above 0 (what came before, loading and warm-up, says nothing of the pace)."""

    def __init__(self, clock=time.perf_counter):
        self._clock = clock
        self._origin: tuple[float, float] | None = None  # (time, fraction) at the first progress

    def seconds_left(self, fraction: float) -> float | None:
        """None until the run has moved at least 2 % past its first report and 1 s has passed, and once
        it is done."""
        now = self._clock()
        if self._origin is None:
            if fraction > 0:  # reports at 0 come from set-up: the pace starts with the work
                self._origin = (now, fraction)
            return None
        t0, f0 = self._origin
        if fraction >= 1.0 or fraction - f0 < 0.02 or now - t0 < 1.0:
            return None
        return (now - t0) * (1.0 - fraction) / (fraction - f0)
