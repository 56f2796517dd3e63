"""How much other work shared the machine while something was timed: the CPU time the whole machine
spent busy (psutil's system-wide CPU times) minus this process's own (os.times), per second of wall
time, in cores.

A load average would count the lab's own threads (a 2-thread decode alone reads as load 2 on 2 cores);
this counts only what other processes took. A timing measured while they took a real share of the
cores says more about them than about the model: pages then call it unreliable instead of judging.

    with LoadMeter() as meter:
        ...timed work...
    meter.load.busy, meter.load.other_cores
"""

from __future__ import annotations

import math
import os
import time
from dataclasses import dataclass

import psutil

from engine.observe.fields import Float, Int
from engine.observe.other_work import is_busy, machine_busy_s


@dataclass(frozen=True)
class MachineLoad:
    # average cores other processes kept busy; None where the system does not say
    other_cores: Float(lo=0.0, hi=1 << 16) | None
    cores: Int(lo=1, hi=1 << 16)
    seconds: Float(lo=0.0)

    @property
    def busy(self) -> bool:
        return is_busy(self.other_cores, self.cores)

    def to_dict(self) -> dict:
        return {"other_cores": self.other_cores, "cores": self.cores, "seconds": self.seconds}


def free_threads(load: MachineLoad | None, threads: int) -> int:
    """The threads a timing can run on without sharing a core with other work: all of them where the
    machine was not busy, else the cores the other work leaves free (at least one). Threads that share
    a core with another process wait on it, each kernel in its own way, and the timing measures that."""
    if load is None or not load.busy:  # busy: other_cores was read
        return threads
    return max(1, min(threads, load.cores - math.ceil(load.other_cores - 0.25)))


def busiest(loads: list[MachineLoad | None]) -> MachineLoad | None:
    """The load of the run timed on the busiest machine: one busy timing makes its comparisons unreliable."""
    known = [load for load in loads if load is not None]
    return max(known, key=lambda load: load.other_cores or 0.0, default=None)


def _own_s(also: tuple[int, ...] = (), children: bool = False) -> float:
    """CPU seconds of this process, of the processes in `also` (those that are gone add nothing) and,
    with `children`, of its child processes that have ended (a server a bench started and stopped)."""
    t = os.times()
    total = t.user + t.system + ((t.children_user + t.children_system) if children else 0.0)
    for pid in also:
        try:
            c = psutil.Process(pid).cpu_times()
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            continue
        total += c.user + c.system
    return total


def _adopt_orphans() -> None:
    """Make this process the parent of its descendants' orphans (Linux's child subreaper). Chromium's
    helper processes outlive their parent: without this they end as init's children and their CPU
    time, never added to ours, read as other work (0.9 of a core while a page drew, measured)."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
    except (OSError, AttributeError):
        pass  # not Linux: orphans are not counted, as before


def _reap_orphans(grace_s: float = 2.0) -> None:
    """Wait for adopted orphans that have ended (so their CPU time joins ours); those still ending get
    up to `grace_s`, and live ones are left alone."""
    deadline = time.monotonic() + grace_s
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return  # no children left
        if pid == 0:
            if time.monotonic() > deadline:
                return
            time.sleep(0.05)


class LoadMeter:
    """Measures other processes' CPU use between start() and stop() (or over a with-block).
    `ours`: processes that belong to the measurement (a local server under load) and are not
    other work; `children`: so are this process's descendants once they have ended (they are waited
    for at stop(), orphans too). Use it where the measured work has ended by stop(), as a bench's does."""

    def __init__(self, ours: tuple[int, ...] = (), children: bool = False) -> None:
        self.load: MachineLoad | None = None
        self.ours, self.children = ours, children
        self._start: tuple[float | None, float, float] | None = None

    def start(self) -> LoadMeter:
        if self.children:
            _adopt_orphans()
        self._start = (machine_busy_s(), _own_s(self.ours, self.children), time.perf_counter())
        return self

    def stop(self) -> MachineLoad:
        if self.children:
            _reap_orphans()
        machine0, own0, wall0 = self._start
        machine1, own1, wall = machine_busy_s(), _own_s(self.ours, self.children), time.perf_counter() - wall0
        other = None
        if machine0 is not None and machine1 is not None and wall > 0:
            other = max(0.0, (machine1 - machine0) - (own1 - own0)) / wall
        self.load = MachineLoad(other, os.cpu_count() or 1, wall)
        return self.load

    def __enter__(self) -> LoadMeter:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


def local_server_pids(base_url: str) -> tuple[int, ...]:
    """The processes listening on a loopback URL's port (a server on this machine: its CPU is the
    measurement's, not other work); () for another host or when the system does not say."""
    from urllib.parse import urlsplit

    parts = urlsplit(base_url)
    if parts.hostname not in ("127.0.0.1", "localhost", "::1"):
        return ()
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        conns = psutil.net_connections(kind="tcp")
    except (psutil.AccessDenied, OSError):
        return ()
    return tuple({c.pid for c in conns if c.pid and c.laddr and c.laddr.port == port and c.status == "LISTEN"})
