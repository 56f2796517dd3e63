"""Turns on the one engine, for a server shared by strangers (public mode; ui/queue_wait.py shows them).

FairLock: the step lock, granted in arrival order. A plain threading.Lock lets the thread that
just released it take it straight back, so one session's loop of steps can starve another's.

RunQueue: runs wait here, in order, until one of `slots` places is free; a waiting run can ask
how many are ahead of it and can leave (Cancel, or its browser closed).

RateLimit: the starts of one visitor's runs in the last minute.
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
