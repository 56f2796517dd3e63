"""How long the rest of a measured series should take, from the pace of what is already measured:
each item has a work estimate (any unit), and the pace is the seconds per unit of the items done
after the first (the first pays one-off costs: new shapes, allocator growth)."""

from __future__ import annotations


def seconds_left(work: list[float], done: int, since_first_s: float) -> float | None:
    """The remaining items' work at the pace of items 2..done (`since_first_s` is the time since item 1
    finished). None until a pace is known (two items done)."""
    measured = sum(work[1:done])
    if done < 2 or measured <= 0:
        return None
    return since_first_s * sum(work[done:]) / measured
