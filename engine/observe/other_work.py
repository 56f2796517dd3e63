"""How many cores other processes kept busy while this process timed something: the CPU time the
whole machine spent busy (psutil's system-wide CPU times) minus this process's own (os.times), per
second of wall time; and the one rule that calls that share busy (lab/busy.py builds its meter on it).

A measurement that is kept for later (the kernel plan, the decode step's path) is kept only when it
was timed on a machine other work left alone: timed beside other work it is used for this load and
measured again at the next.

    with OtherWork() as work:
        ...timed work...
    work.busy, work.other_cores
"""

from __future__ import annotations

import os
import time

import psutil

BUSY_SHARE = 0.25  # other processes on a quarter of the cores or more: timings are not the model's own
BUSY_MIN_CORES = 0.5
_NOT_BUSY = ("idle", "iowait", "guest", "guest_nice")  # waiting; guest time is already inside user


def is_busy(other_cores: float | None, cores: int) -> bool:
    """Whether other processes took a busy share of the machine's cores (None: the system did not say)."""
    return other_cores is not None and other_cores >= max(BUSY_MIN_CORES, BUSY_SHARE * cores)


def machine_busy_s() -> float | None:
    """Seconds of CPU time the whole machine has spent busy since boot (all cores)."""
    try:
        times = psutil.cpu_times()
    except (OSError, NotImplementedError):
        return None
    return sum(getattr(times, name) for name in times._fields if name not in _NOT_BUSY)


def own_s() -> float:
    t = os.times()
    return t.user + t.system


class OtherWork:
    """The cores other processes kept busy while the `with` block ran (None where the system does not say)."""

    def __enter__(self) -> OtherWork:
        self.other_cores: float | None = None
        self._start = (time.perf_counter(), machine_busy_s(), own_s())
        return self

    def __exit__(self, *exc) -> None:
        wall0, machine0, own0 = self._start
        wall, machine = time.perf_counter() - wall0, machine_busy_s()
        if machine0 is not None and machine is not None and wall > 0:
            self.other_cores = max(0.0, (machine - machine0) - (own_s() - own0)) / wall

    @property
    def busy(self) -> bool:
        return is_busy(self.other_cores, psutil.cpu_count() or 1)
