"""The playground's untimed second pass (memory per step, captured attention) in a thread of its own.

The timed run ends and the page draws every tab from it at once; the pass then replays the same
tokens with the probe on (engine/core/memory_pass.py) while the page stays usable. Run inside the
script, as it was, it held the page for as long again as the timed run (a 778-token prompt: 56 s
timed, then 65 s more), and any widget touched meanwhile either waited for it (a fragment's) or
stopped it (the others'). A per-step interleaved pass (a probed step after each timed step) does the
same work, so it cannot end sooner, and it holds every tab until both end: measured on the bundled
model (L = 200, 24 tokens, paired rounds), the tabs came after 16.4 s instead of 7.4 s for the same
total (interleaved ÷ after 1.03, [0.44–2.61], n = 6, not separable).

    job = prepare_pass(result)                     # after the timed run; the page draws its tabs
    start_pass(job, bundle, registry.step_lock)    # then the pass runs in a thread of its own
    job.done, job.total, job.seconds_left()        # what the Memory tab shows while it runs
    job.cancel()                                   # before the next timed run

No Streamlit here: the job keeps numbers and flags the page reads; an error is kept for the page to
word (ui/errors.py) in the session's language.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from engine.core.memory_pass import PROBE_STEP_COST
from lab.eta import seconds_left
from ui.run_driver import measure_pass, needs_pass
from ui.run_queue import RunQueue
from ui.run_state import RunResult

# How often the page redraws a running pass's progress. Each redraw is a script run in the server's
# process, and the pass's probe needs the interpreter's lock for every op it sees: redrawn twice a
# second, a 9-step pass of the default prompt took 95-115 s on a loaded 2-core machine; every 2 s,
# 14 s; alone, 1-9 s (the machine's other work varied).
POLL_S = 2.0
QUEUE_POLL_S = 0.5  # how often a queued pass looks at its turn (no script runs for it)
CANCEL_WAIT_S = 30.0  # the longest a new run waits for the old pass's current step to end


@dataclass
class PassJob:
    """One run's second pass: how far it is, and whether it ended, failed or was called off."""

    result: RunResult
    work_ms: list[float]  # the timed run's step times: the replay's steps do the same work, step for step
    done: int = 0
    waiting: bool = False  # on a public server: waiting for its turn in the run queue
    error: BaseException | None = None
    launched: bool = False  # its thread started (the page starts it once its tabs are drawn)
    first_done: float | None = None  # when its first step (the prefill, the odd one out) ended
    finished: threading.Event = field(default_factory=threading.Event)
    cancelled: threading.Event = field(default_factory=threading.Event)

    @property
    def total(self) -> int:
        return len(self.work_ms)

    @property
    def running(self) -> bool:
        """Launched or about to be, and not ended."""
        return not self.finished.is_set()

    def fraction(self) -> float:
        """How much of the pass's work is done, weighted by the timed steps' times (a long prefill is
        most of a short run's work)."""
        whole = sum(self.work_ms)
        return sum(self.work_ms[: self.done]) / whole if whole > 0 else self.done / max(1, self.total)

    def seconds_left(self, now: float | None = None) -> float | None:
        """The rest at the pace the pass keeps after its first step (lab/eta.py); before that pace
        is known, the timed run's own times at the probe's usual cost (PROBE_STEP_COST)."""
        if not self.running or self.waiting:
            return None
        now = time.perf_counter() if now is None else now
        if self.first_done is not None and self.done >= 2:
            measured = seconds_left(self.work_ms, self.done, now - self.first_done)
            if measured is not None:
                return measured
        return PROBE_STEP_COST * sum(self.work_ms[self.done :]) / 1e3

    def cancel(self, wait_s: float = CANCEL_WAIT_S) -> None:
        """Call the pass off and wait for its current step to end (so it takes no step from the next
        timed run); the run it measured keeps no readings from it."""
        self.cancelled.set()
        if not self.launched:
            self.result.pass_pending = False
            self.finished.set()
        self.finished.wait(wait_s)


def _take_turn(job: PassJob, queue: RunQueue, present: Callable[[], bool]) -> object | None:
    """A place in the public run queue, waited for like any run's; None when called off or its
    visitor gone meanwhile."""
    ticket = queue.join()
    job.waiting = True
    while queue.wait(ticket, QUEUE_POLL_S):
        if job.cancelled.is_set() or not present():
            queue.leave(ticket)
            return None
    job.waiting = False
    return ticket


def _work(job: PassJob, bundle, lock, queue: RunQueue | None, present: Callable[[], bool]) -> None:
    ticket = None
    try:
        if queue is not None:
            ticket = _take_turn(job, queue, present)
            if ticket is None:
                return
        for done, _total in measure_pass(bundle, job.result, lock):
            job.done = done
            if done == 1:
                job.first_done = time.perf_counter()
            if job.cancelled.is_set() or not present():
                return  # the replay stops between steps; its readings are copied only at its end
    except Exception as exc:  # noqa: BLE001 - kept for the page to show, in its language
        job.error = exc
    finally:
        if ticket is not None:
            queue.leave(ticket)
        job.result.pass_pending = False
        job.finished.set()


def prepare_pass(result: RunResult) -> PassJob | None:
    """The second pass a finished timed run asks for, not started yet (the page draws its tabs
    first: a pass started at once would take the cores from that drawing); None when the run asks
    for none (no probe, no capture, or nothing to replay)."""
    if not needs_pass(result):
        result.pass_pending = False
        return None
    result.pass_pending = True
    return PassJob(result, [s.ms for s in result.steps])


def start_pass(
    job: PassJob, bundle, lock=None, queue: RunQueue | None = None, present: Callable[[], bool] = lambda: True
) -> None:
    """Run the pass in a daemon thread. queue: a public server's run queue, where the pass waits for
    its turn as a run would; present: whether its visitor is still there (a pass whose browser has
    closed gives its place up, waiting or running, as the closed browser's run did)."""
    job.launched = True
    args = (job, bundle, lock, queue, present)
    threading.Thread(target=_work, args=args, name="pdlab-second-pass", daemon=True).start()
