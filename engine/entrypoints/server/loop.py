"""The engine behind the HTTP server: one Engine with continuous batching, stepped by one thread.

The engine is not thread-safe, so the HTTP handlers (on uvicorn's event loop) never touch it: they
put requests and cancellations on a queue, and the engine thread takes them between steps, steps
while any request is unfinished (one step serves every running request) and hands each token to
its request's asyncio queue through the event loop (`call_soon_threadsafe`).
"""

from __future__ import annotations

import asyncio
import collections
import logging
import queue
import threading
import time
from dataclasses import dataclass, field

from engine.core.kv_transfer import adopt, prefill
from engine.core.llm_engine import Engine
from engine.entrypoints.server.prometheus import ServerMetrics
from engine.errors import LabError
from engine.observe.trace import RequestRecord, StepRecord
from engine.sampling_params import SamplingParams
from engine.sched.sequence import Sequence


@dataclass
class Accepted:
    num_prompt_tokens: int
    at: float = 0.0  # wall clock (time.time) when the engine took it: a hand-off's admission


@dataclass
class Rejected:
    message: str  # the engine's own words: why the request cannot run


@dataclass
class HandedOff:
    handoff: object  # engine.core.kv_transfer.KVHandoff: the prefill worker's answer


@dataclass
class Delta:
    text: str  # what this token adds to the text ("" while a character is incomplete, and for EOS)
    token_id: int | None = None


@dataclass
class Finished:
    finish_reason: str  # "stop" or "length", as OpenAI says it
    num_prompt_tokens: int
    num_output_tokens: int


@dataclass(eq=False)  # one request is itself only: `in` and `remove` go by identity
class Submission:
    """One HTTP request as the engine thread sees it."""

    prompt_ids: list[int]
    params: SamplingParams
    events: asyncio.Queue
    loop: asyncio.AbstractEventLoop
    response_id: str = ""  # the id every chunk of its response carries
    arrival: float = field(default_factory=time.perf_counter)
    arrived_at: float = field(default_factory=time.time)  # wall clock: comparable across the workers
    seq: Sequence | None = None
    first_scheduled: float | None = None
    handoff: object | None = None  # a decode worker's request: the KVHandoff it continues from

    def send(self, item) -> None:
        self.loop.call_soon_threadsafe(self.events.put_nowait, item)


log = logging.getLogger("pdlab.server")

FINISH = {"eos": "stop", "length": "length"}
RECENT_MAX = 1024  # finished requests kept for GET /pdlab/requests (a server runs for days)


class EngineLoop:
    def __init__(self, engine: Engine, metrics: ServerMetrics):
        self.engine = engine
        self.metrics = metrics
        self._inbox: queue.Queue = queue.Queue()
        self._live: dict[int, Submission] = {}  # seq_id -> its submission
        self._stopping = threading.Event()
        self._recent: collections.deque[dict] = collections.deque(maxlen=RECENT_MAX)
        self._recent_lock = threading.Lock()
        self._parked: collections.deque[Submission] = collections.deque()  # hand-offs waiting for blocks
        self._thread = threading.Thread(target=self._run, name="engine-loop", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stopping.set()
        self._inbox.put(None)
        self._thread.join(timeout=10)

    def submit(self, prompt_ids: list[int], params: SamplingParams, response_id: str = "") -> Submission:
        sub = Submission(prompt_ids, params, asyncio.Queue(), asyncio.get_running_loop(), response_id)
        self._inbox.put(("add", sub))
        return sub

    def submit_prefill(self, prompt_ids: list[int], params: SamplingParams, response_id: str = "") -> Submission:
        """A prefill worker's request: the prompt's prefill and first token, answered with a HandedOff."""
        sub = Submission(prompt_ids, params, asyncio.Queue(), asyncio.get_running_loop(), response_id)
        self._inbox.put(("prefill", sub))
        return sub

    def submit_handoff(self, handoff, response_id: str = "") -> Submission:
        """A decode worker's request: continue from a prefill worker's hand-off (its tokens as Deltas)."""
        sub = Submission(
            list(handoff.prompt_ids), handoff.params, asyncio.Queue(), asyncio.get_running_loop(), response_id
        )
        sub.handoff, sub.arrival = handoff, time.perf_counter()
        self._inbox.put(("adopt", sub))
        return sub

    def recent(self) -> list[dict]:
        """The server's own timing of its last finished requests, newest last."""
        with self._recent_lock:
            return list(self._recent)

    def cancel(self, sub: Submission) -> None:
        """The client went away: the engine drops the request before its next step."""
        self._inbox.put(("cancel", sub))

    # --- the engine thread ----------------------------------------------------------------------
    def _run(self) -> None:
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

    def _fail_all(self, error: str) -> None:
        for sub in list(self._live.values()):
            self.engine.abort(sub.seq)
            sub.send(
                Rejected(f"The engine failed ({error}) on request {sub.response_id}; the server's log has the details.")
            )
        self._live.clear()
        self._publish_load()

    def _take_inbox(self, block: bool) -> None:
        try:
            item = self._inbox.get(timeout=0.5) if block else self._inbox.get_nowait()
            while item is not None:
                self._handle(*item)
                item = self._inbox.get_nowait()
        except queue.Empty:
            pass

    def _handle(self, kind: str, sub: Submission) -> None:
        if kind == "cancel" and sub in self._parked:
            self._parked.remove(sub)
            self._publish_load()
            return
        if kind == "cancel":
            if sub.seq is not None and sub.seq.seq_id in self._live:
                self.engine.abort(sub.seq)
                del self._live[sub.seq.seq_id]
                self._publish_load()
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
        for record in event.finished:
            sub = self._live.pop(record.seq_id, None)
            if sub is not None:
                self._observe(sub, record)
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

    def _observe(self, sub: Submission, record: RequestRecord) -> None:
        scheduled = sub.first_scheduled if sub.first_scheduled is not None else record.arrival
        m = record.metrics
        queue_s, prefill_s = scheduled - record.arrival, record.token_times[0] - scheduled
        decode_s = record.token_times[-1] - record.token_times[0]
        self.metrics.observe_request(
            m, queue_s=queue_s, prefill_s=prefill_s, decode_s=decode_s, prompt_tokens=len(record.prompt_token_ids)
        )
        view = {
            "id": sub.response_id,
            "prompt_tokens": len(record.prompt_token_ids),
            "output_tokens": m.num_output_tokens,
            "finish_reason": FINISH.get(record.finish_reason, "stop"),
            "ttft_ms": m.ttft_ms,
            "tpot_ms": m.tpot_ms,
            "e2e_ms": m.e2e_ms,
            "queue_ms": 1e3 * max(0.0, queue_s),
            "prefill_ms": 1e3 * max(0.0, prefill_s),
            "decode_ms": 1e3 * decode_s,
        }
        with self._recent_lock:
            self._recent.append(view)
