"""One HTTP request as the engine thread sees it (Submission), and the messages the thread sends
back on its queue: Accepted or Rejected first, then a Delta per token (or HandedOff for a prefill
worker), then Finished or Rejected. A Rejected carries the HTTP status it is answered with: 400 for
a request the engine refuses, 500 for an engine failure on it, 503 while the server stops."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field

from engine.sampling_params import SamplingParams
from engine.sched.sequence import Sequence


@dataclass
class Accepted:
    num_prompt_tokens: int
    at: float = 0.0  # wall clock (time.time) when the engine took it: a hand-off's admission


@dataclass
class Rejected:
    message: str  # the engine's own words: why the request cannot run, or why it ended
    status: int = 400


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
        try:
            self.loop.call_soon_threadsafe(self.events.put_nowait, item)
        except RuntimeError:  # the event loop has closed (the server stopped): nobody is waiting
            pass
