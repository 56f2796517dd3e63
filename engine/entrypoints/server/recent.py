"""The server's own timing of its last finished requests, for GET /pdlab/requests: each request's
queue, prefill and decode time (from the engine's records), observed into /metrics' histograms as
it is kept. Written by the engine thread, read by the routes: guarded by a lock."""

from __future__ import annotations

import collections
import threading

from engine.entrypoints.server.prometheus import ServerMetrics
from engine.entrypoints.server.submission import Submission
from engine.observe.trace import RequestRecord

FINISH = {"eos": "stop", "length": "length"}  # the engine's finish reasons as OpenAI says them
RECENT_MAX = 1024  # finished requests kept (a server runs for days)


class RecentRequests:
    def __init__(self, metrics: ServerMetrics):
        self.metrics = metrics
        self._views: collections.deque[dict] = collections.deque(maxlen=RECENT_MAX)
        self._lock = threading.Lock()

    def views(self) -> list[dict]:
        """The last finished requests' timing, newest last."""
        with self._lock:
            return list(self._views)

    def observe(self, sub: Submission, record: RequestRecord) -> None:
        """One finished request: into the latency histograms, and kept for GET /pdlab/requests."""
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
        with self._lock:
            self._views.append(view)
