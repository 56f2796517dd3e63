"""The engine behind the HTTP server: one Engine with continuous batching, stepped by one thread.

The engine is not thread-safe, so the HTTP handlers (on uvicorn's event loop) never touch it: they
put requests and cancellations on a queue, and the engine thread takes them between steps, steps
while any request is unfinished (one step serves every running request) and hands each token to
its request's asyncio queue through the event loop (`call_soon_threadsafe`).

A failure is as small as it can be: a request whose sampling fails is failed alone (the engine
drops it and steps the others on); a step that fails fails the requests in it and the loop keeps
serving; anything else that escapes the loop ends it, every waiting request is answered 503 and
`on_death` tells the server to exit, so a supervisor restarts the process rather than a live one
answering nothing. When the server stops, `close` answers every request in flight (503) first.
"""

from __future__ import annotations

import asyncio
import collections
import logging
import queue
import threading
import time
from collections.abc import Callable

from engine.core.kv_transfer import adopt, prefill
from engine.core.llm_engine import Engine
from engine.entrypoints.server.prometheus import ServerMetrics
from engine.entrypoints.server.recent import FINISH, RECENT_MAX, RecentRequests
from engine.entrypoints.server.submission import Accepted, Delta, Finished, HandedOff, Rejected, Submission
from engine.errors import LabError
from engine.observe.trace import StepRecord
from engine.sampling_params import SamplingParams

__all__ = ["RECENT_MAX", "Accepted", "Delta", "EngineLoop", "Finished", "HandedOff", "Rejected", "Submission"]

log = logging.getLogger("pdlab.server")


class EngineLoop:
    def __init__(self, engine: Engine, metrics: ServerMetrics, on_death: Callable[[], None] | None = None):
        self.engine = engine
        self.metrics = metrics
        self.on_death = on_death  # called from the engine thread if the loop ends by an error
        self.dead: str | None = None  # why the loop ended by an error
        self._closing: str | None = None  # why the server takes no more requests (it is stopping)
        self._inbox: queue.Queue = queue.Queue()
        self._live: dict[int, Submission] = {}  # seq_id -> its submission
        self._stopping = threading.Event()
        self._recent = RecentRequests(metrics)
        self._parked: collections.deque[Submission] = collections.deque()  # hand-offs waiting for blocks
        self._thread = threading.Thread(target=self._run, name="engine-loop", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stopping.set()
        self._inbox.put(None)
        self._thread.join(timeout=5)  # a step still running after that is left to the daemon thread

    @property
    def is_serving(self) -> bool:
        """The engine thread is running and takes requests (not dead, not stopping)."""
        return self._thread.is_alive() and self.dead is None and self._closing is None

    def close(self, message: str) -> None:
        """The server is stopping: every request in flight or waiting ends with `message` (503), and
        any that comes later is refused with it."""
        self._closing = message
        self._inbox.put(("drain", None))

    def submit(self, prompt_ids: list[int], params: SamplingParams, response_id: str = "") -> Submission:
        sub = Submission(prompt_ids, params, asyncio.Queue(), asyncio.get_running_loop(), response_id)
        return self._enqueue("add", sub)

    def submit_prefill(self, prompt_ids: list[int], params: SamplingParams, response_id: str = "") -> Submission:
        """A prefill worker's request: the prompt's prefill and first token, answered with a HandedOff."""
        sub = Submission(prompt_ids, params, asyncio.Queue(), asyncio.get_running_loop(), response_id)
        return self._enqueue("prefill", sub)

    def submit_handoff(self, handoff, response_id: str = "") -> Submission:
        """A decode worker's request: continue from a prefill worker's hand-off (its tokens as Deltas)."""
        sub = Submission(
            list(handoff.prompt_ids), handoff.params, asyncio.Queue(), asyncio.get_running_loop(), response_id
        )
        sub.handoff, sub.arrival = handoff, time.perf_counter()
        return self._enqueue("adopt", sub)

    def _enqueue(self, kind: str, sub: Submission) -> Submission:
        self._inbox.put((kind, sub))
        refusal = self._refusal()
        if refusal is not None:  # checked after the put: a loop that died meanwhile has drained its inbox
            sub.send(refusal)
        return sub

    def _refusal(self) -> Rejected | None:
        if self.dead is not None:
            return Rejected(f"The engine stopped ({self.dead}); this server is exiting to be restarted.", 503)
        if self._closing is not None:
            return Rejected(self._closing, 503)
        return None

    def recent(self) -> list[dict]:
        """The server's own timing of its last finished requests, newest last."""
        return self._recent.views()

    def cancel(self, sub: Submission) -> None:
        """The client went away: the engine drops the request before its next step."""
        self._inbox.put(("cancel", sub))

    # --- the engine thread ----------------------------------------------------------------------
    def _run(self) -> None:
        try:
            while not self._stopping.is_set():
                self._take_inbox(block=not self.engine.has_unfinished and not self._parked)
                self._admit_parked()
                if self.engine.has_unfinished:
                    try:
                        self._step()
                    except Exception as exc:  # noqa: BLE001 - fail the requests in flight, keep serving
                        ids = [sub.response_id for sub in self._live.values()]
                        log.exception("the engine step failed; failing requests %s", ", ".join(ids))
                        self._fail_all(type(exc).__name__)
        except BaseException as exc:  # noqa: BLE001 - the loop itself broke: answer everyone, then exit
            self._die(exc)

    def _die(self, exc: BaseException) -> None:
        log.critical("the engine loop stopped; the server exits", exc_info=exc)
        self.dead = type(exc).__name__
        refusal = self._refusal()
        waiting = [*self._live.values(), *self._parked]
        while True:
            try:
                item = self._inbox.get_nowait()
            except queue.Empty:
                break
            if item is not None and item[0] in ("add", "prefill", "adopt"):
                waiting.append(item[1])
        for sub in waiting:
            sub.send(refusal)
        if self.on_death is not None:
            self.on_death()

    def _fail_all(self, error: str) -> None:
        for sub in list(self._live.values()):
            self._drop(sub)
            sub.send(Rejected(failed(error, sub), 500))
        self._live.clear()
        self._publish_load()

    def _drop(self, sub: Submission) -> None:
        """End a live request early (its client left, it failed, the server stops): the engine frees
        its slot, and the tokens it made are counted as generated all the same."""
        self.metrics.generation_tokens.inc(sub.seq.num_output_tokens)
        self.engine.abort(sub.seq)

    def _take_inbox(self, block: bool) -> None:
        try:
            item = self._inbox.get(timeout=0.5) if block else self._inbox.get_nowait()
            while item is not None:
                self._handle_one(*item)
                item = self._inbox.get_nowait()
        except queue.Empty:
            pass

    def _handle_one(self, kind: str, sub: Submission | None) -> None:
        """One message from the event loop; a failure taking a request fails that request alone."""
        try:
            self._handle(kind, sub)
        except Exception as exc:  # noqa: BLE001 - logged whole, answered in one line
            log.exception("taking request %s (%s) failed", getattr(sub, "response_id", ""), kind)
            if sub is not None and kind != "cancel":
                sub.send(Rejected(failed(type(exc).__name__, sub), 500))

    def _drain(self) -> None:
        refusal = self._refusal()
        for sub in [*self._live.values(), *self._parked]:
            if sub.seq is not None:
                self._drop(sub)
            sub.send(refusal)
        self._live.clear()
        self._parked.clear()
        self._publish_load()

    def _handle(self, kind: str, sub: Submission | None) -> None:
        if kind == "drain":
            self._drain()
            return
        if kind == "cancel" and sub in self._parked:
            self._parked.remove(sub)
            self._publish_load()
            return
        if kind == "cancel":
            if sub.seq is not None and sub.seq.seq_id in self._live:
                self._drop(sub)
                del self._live[sub.seq.seq_id]
                self._publish_load()
            return
        if self._refusal() is not None:  # taken after the server began to stop
            sub.send(self._refusal())
            return
        if kind == "prefill":
            self._prefill(sub)
            return
        if kind == "adopt" and (self._parked or not self._fits(sub)):
            self._park(sub)
            return
        self._add(kind, sub)

    def _add(self, kind: str, sub: Submission) -> None:
        try:
            if kind == "adopt":
                sub.seq = adopt(self.engine, sub.handoff)
            else:
                sub.seq = self.engine.add_request(sub.prompt_ids, sub.params, arrival=sub.arrival)
        except LabError as e:
            sub.send(Rejected(str(e)))
            return
        self._live[sub.seq.seq_id] = sub
        sub.send(Accepted(len(sub.prompt_ids), time.time()))

    def _need(self, sub: Submission) -> int:
        return self.engine.kv.pool.blocks_for(sub.handoff.num_tokens + 1)

    def _fits(self, sub: Submission) -> bool:
        return self.engine.kv.pool.can_allocate(self._need(sub))

    def _park(self, sub: Submission) -> None:
        """A decode worker admits a hand-off only when its blocks are free: until then it waits here,
        in arrival order, counted among the waiting requests."""
        pool = self.engine.kv.pool
        if self._need(sub) > pool.num_blocks:
            sub.send(
                Rejected(f"This request needs {self._need(sub)} KV blocks; the decode worker has {pool.num_blocks}.")
            )
            return
        self._parked.append(sub)
        self._publish_load()

    def _admit_parked(self) -> None:
        admitted = False
        while self._parked and (self._fits(self._parked[0]) or not self.engine.has_unfinished):
            self._add("adopt", self._parked.popleft())
            admitted = True
        if admitted:
            self._publish_load()

    def _prefill(self, sub: Submission) -> None:
        """Run one hand-off to completion here, between steps (a prefill worker decodes nothing)."""
        if self.engine.has_unfinished:
            sub.send(
                Rejected("This server is running other requests: hand-offs need a server started with --role prefill.")
            )
            return
        started = time.time()
        pool = self.engine.scheduler.pool
        self.metrics.set_load(1, self._inbox.qsize(), pool.num_used / pool.num_blocks)  # this one, those queued
        try:
            handoff = prefill(self.engine, sub.prompt_ids, sub.params)
        except LabError as e:
            sub.send(Rejected(str(e)))
            return
        except Exception as exc:  # noqa: BLE001 - this request's failure, not the loop's
            log.exception("the prefill of request %s failed", sub.response_id)
            for seq in [*self.engine.scheduler.running, *self.engine.scheduler.waiting]:
                self.engine.abort(seq)  # a prefill worker runs this request alone: leave nothing behind
            self._publish_load()
            sub.send(Rejected(failed(type(exc).__name__, sub), 500))
            return
        handoff.timing = {"p_arrival": sub.arrived_at, "p_start": started, "p_end": time.time()}
        self.engine.trace.clear()
        self._publish_load()
        sub.send(HandedOff(handoff))

    def _step(self) -> None:
        event = self.engine.step()
        if event.step is not None:
            self._note_scheduled(event.step)
            self.metrics.observe_drafts(event.step.seqs)
        self._publish_load()  # before any client hears of this step: one that reads /metrics on its
        for tok in event.tokens:  # last token sees its blocks freed and its request observed
            sub = self._live.get(tok.seq_id)
            if sub is not None:
                sub.send(Delta("" if tok.token_id in self.engine.eos_ids else tok.text, tok.token_id))
        for seq_id, exc in event.failed.items():  # the engine dropped these alone; the others went on
            sub = self._live.pop(seq_id, None)
            if sub is not None:
                log.error("request %s failed in the engine", sub.response_id, exc_info=exc)
                self.metrics.generation_tokens.inc(sub.seq.num_output_tokens)
                sub.send(Rejected(failed(type(exc).__name__, sub), 500))
        for record in event.finished:
            sub = self._live.pop(record.seq_id, None)
            if sub is not None:
                self._recent.observe(sub, record)
                sub.send(
                    Finished(
                        FINISH.get(record.finish_reason, "stop"),
                        len(record.prompt_token_ids),
                        len(record.output_token_ids),
                    )
                )
        self.engine.trace.clear()  # a server runs for days: keep no history

    def _publish_load(self) -> None:
        sched = self.engine.scheduler
        waiting = len(sched.waiting) + len(self._parked)
        self.metrics.set_load(len(sched.running), waiting, sched.pool.num_used / sched.pool.num_blocks)

    def _note_scheduled(self, step: StepRecord) -> None:
        for s in step.seqs:
            sub = self._live.get(s.seq_id)
            if sub is not None and sub.first_scheduled is None:
                sub.first_scheduled = step.start


def failed(error: str, sub: Submission) -> str:
    return f"The engine failed ({error}) on request {sub.response_id}; the server's log has the details."
