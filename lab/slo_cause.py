"""Why a load broke its SLO, in terms of prefill and decode, from what the server itself published
during the load (lab/remote_metrics.py: vLLM's names, which our own server uses too).

    TTFT broke:           requests waited in the queue longer than their prefill took → "queue";
                          otherwise prefill itself took the time → "prefill" (or "prefill_alone"
                          when no other request was running: the SLO is beyond one request)
    TPOT or ITL broke:    the KV cache filled (usage ≥ 98 %) → "kv_full"; otherwise each decode
                          step slowed as more requests shared it → "decode" (or "decode_alone")
    E2E broke:            as TTFT when queue + prefill took longer than decode, else as TPOT

Means come from the latency histograms over the load (sum / count between the first and the last
scrape); the running, waiting and KV-usage gauges give the peaks. A server without these metrics
gives no cause, and the answer says that the server did not say why. A cause is a code and its
numbers (`Cause.message()`); lab/catalogues.word says it in a language.
"""

from __future__ import annotations

from dataclasses import dataclass

from lab.catalogues import Message
from lab.remote_metrics import MetricsWatch

KV_FULL = 0.98  # a usage gauge this high: new blocks were scarce


@dataclass(frozen=True)
class Cause:
    key: str  # "queue", "prefill", "prefill_alone", "decode", "decode_alone", "kv_full"
    queue_ms: float | None = None  # mean per request over the load
    prefill_ms: float | None = None
    decode_ms: float | None = None
    running: int | None = None  # peaks of the gauges over the load
    waiting: int | None = None
    kv_usage: float | None = None  # 0..1

    def message(self) -> Message:
        """The cause, with the gauges' peaks when the reads caught them."""
        said = Message(
            f"slo_cause_{self.key}",
            dict(
                queue_ms=self.queue_ms or 0.0,
                prefill_ms=self.prefill_ms or 0.0,
                decode_ms=self.decode_ms or 0.0,
                kv=100 * (self.kv_usage or 0.0),
            ),
        )
        if not self.running or self.waiting is None:  # the reads every 0.5 s fell between the requests
            return said
        if self.key == "queue" and self.waiting == 0:  # the histograms saw waits shorter than the reads' gap
            return Message("slo_cause_peak_running", {"cause": said, "running": self.running})
        return Message("slo_cause_peaks", {"cause": said, "running": self.running, "waiting": self.waiting})


def explain(seen: MetricsWatch | None, limiting: str | None, in_flight: int | None = None) -> Cause | None:
    """The cause of `limiting` ("ttft", "tpot", "itl", "e2e") breaking during the load `seen` watched;
    `in_flight`: the requests the load kept in flight, when it kept a fixed number (else the running
    gauge's peak decides whether a request was ever alone, which a short load can slip between reads)."""
    if seen is None or not seen.snapshots or limiting is None:
        return None
    means = {}
    for name in ("queue", "prefill", "decode"):
        h = seen.over_run(name)
        means[name] = 1000 * h.total / h.count if h is not None and h.count > 0 else None
    peaks = {name: max((v for _, v in seen.series(name)), default=None) for name in ("running", "waiting", "kv_usage")}
    found = dict(
        queue_ms=means["queue"],
        prefill_ms=means["prefill"],
        decode_ms=means["decode"],
        running=None if peaks["running"] is None else int(peaks["running"]),
        waiting=None if peaks["waiting"] is None else int(peaks["waiting"]),
        kv_usage=peaks["kv_usage"],
    )
    first_token = None if means["queue"] is None or means["prefill"] is None else means["queue"] + means["prefill"]
    alone = in_flight == 1 if in_flight is not None else found["running"] == 1  # nothing shared a step with it
    if limiting == "ttft" or (limiting == "e2e" and first_token is not None and first_token >= (means["decode"] or 0)):
        if first_token is None:
            return None
        if means["queue"] >= means["prefill"]:
            return Cause("queue", **found)
        return Cause("prefill_alone" if alone else "prefill", **found)
    if peaks["kv_usage"] is not None and peaks["kv_usage"] >= KV_FULL:
        return Cause("kv_full", **found)
    if means["decode"] is None:
        return None
    return Cause("decode_alone" if alone else "decode", **found)
