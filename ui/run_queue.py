"""Turns on the one engine, for a server shared by strangers (public mode; ui/queue_wait.py shows them).

FairLock: the step lock, granted in arrival order. A plain threading.Lock lets the thread that
just released it take it straight back, so one session's loop of steps can starve another's.

RunQueue: runs wait here, in order, until one of `slots` places is free; a waiting run can ask
how many are ahead of it and can leave (Cancel, or its browser closed).

RateLimit: the starts of one visitor's runs in the last minute; ClientLimits: one per client (its
address, ui/public_client.py), so that a visitor's new tab or browser session starts no more.
"""

from __future__ import annotations

import threading
import time
from collections import deque


class FairLock:
    """A lock handed to waiters first come, first served."""

    def __init__(self):
        self._cond = threading.Condition()
        self._waiting: deque[object] = deque()
        self._held = False

    def acquire(self) -> bool:
        me = object()
        with self._cond:
            self._waiting.append(me)
            while self._held or self._waiting[0] is not me:
                self._cond.wait()
            self._waiting.popleft()
            self._held = True
        return True

    def release(self) -> None:
        with self._cond:
            if not self._held:
                raise RuntimeError("release of an unheld FairLock")
            self._held = False
            self._cond.notify_all()

    def locked(self) -> bool:
        return self._held

    def __enter__(self) -> FairLock:
        self.acquire()
        return self

    def __exit__(self, *exc) -> None:
        self.release()


class RunQueue:
    """At most `slots` runs at once; the others wait in arrival order."""

    def __init__(self, slots: int = 1):
        self.slots = slots
        self._cond = threading.Condition()
        self._waiting: deque[object] = deque()
        self._active: set[object] = set()

    def join(self) -> object:
        ticket = object()
        with self._cond:
            self._waiting.append(ticket)
        return ticket

    def wait(self, ticket: object, timeout: float) -> int:
        """Wait up to `timeout` seconds for a place: 0 once the run holds one, else how many are ahead."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                if ticket in self._active:
                    return 0
                ahead = self._waiting.index(ticket)  # ValueError: a ticket that left or never joined
                if ahead == 0 and len(self._active) < self.slots:
                    self._waiting.popleft()
                    self._active.add(ticket)
                    return 0
                left = deadline - time.monotonic()
                if left <= 0:
                    return ahead + len(self._active)  # the runs before it, running or waiting
                self._cond.wait(left)

    def leave(self, ticket: object) -> None:
        """The run finished, was cancelled or its browser went away: the next in line may go."""
        with self._cond:
            self._active.discard(ticket)
            if ticket in self._waiting:
                self._waiting.remove(ticket)
            self._cond.notify_all()

    def counts(self) -> tuple[int, int]:
        """(running, waiting)."""
        with self._cond:
            return len(self._active), len(self._waiting)


class RateLimit:
    """One visitor's run starts: at most `per_minute` in any 60 s."""

    def __init__(self, per_minute: int, clock=time.monotonic):
        self.per_minute, self._clock, self._starts = per_minute, clock, deque()

    def wait_s(self) -> float:
        """Seconds until another run may start (0: now)."""
        now = self._clock()
        while self._starts and now - self._starts[0] >= 60:
            self._starts.popleft()
        return 0.0 if len(self._starts) < self.per_minute else 60 - (now - self._starts[0])

    def start(self) -> None:
        self._starts.append(self._clock())

    def busy(self) -> bool:
        """Any start within the last minute (wait_s() has dropped the older ones)."""
        return bool(self._starts)


class ClientLimits:
    """Each client's RateLimit, shared by all of its sessions. A client idle for a minute is
    forgotten (its window is empty), and at most `max_clients` are kept: the longest idle go first."""

    def __init__(self, per_minute: int, max_clients: int = 10_000, clock=time.monotonic):
        self.per_minute, self.max_clients, self._clock = per_minute, max_clients, clock
        self._lock = threading.Lock()
        self._clients: dict[str, RateLimit] = {}  # in order of their latest start

    def try_start(self, client: str) -> float:
        """Start a run for `client` if its last minute allows one (0.0), else the seconds until it may."""
        with self._lock:
            rate = self._clients.pop(client, None) or RateLimit(self.per_minute, self._clock)
            self._clients[client] = rate  # now the most recent
            wait = rate.wait_s()
            if wait == 0:
                rate.start()
            self._forget_idle()
            return wait

    def _forget_idle(self) -> None:
        """Drop, least recently seen first, the clients with no start in the last minute and any
        beyond max_clients (the order is by latest visit, so the first busy one ends the walk)."""
        for client in list(self._clients):
            rate = self._clients[client]
            rate.wait_s()  # drops the starts older than a minute
            if rate.busy() and len(self._clients) <= self.max_clients:
                break
            del self._clients[client]

    def __len__(self) -> int:
        return len(self._clients)
