"""Prometheus metrics in vLLM's names (its docs' "Production Metrics"), so a dashboard or the lab's
remote page reads our server as it reads vLLM: the batch (running, waiting, KV cache usage) as
gauges, and per request the latency histograms TTFT, ITL, E2E, queue, prefill and decode time,
with prompt and generation token counters, and the process's own (resident memory, CPU seconds).
With speculative decoding, vLLM's spec-decode counters: drafts, drafted and accepted tokens, and
accepted tokens per draft position (acceptance rate = accepted ÷ drafted tokens; mean accepted
length = 1 + accepted ÷ drafts). A disaggregated worker adds its KV hand-offs: bytes sent (prefill)
or received (decode), and on the decode side each hand-off's transfer time, from the prefill
worker's packing to this worker holding every byte.
One registry per server (tests run several)."""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, ProcessCollector, generate_latest

from engine.observe.request_metrics import RequestMetrics
from engine.observe.trace import SeqStep

LATENCY_BUCKETS = (
    0.001,
    0.005,
    0.01,
    0.02,
    0.04,
    0.06,
    0.08,
    0.1,
    0.25,
    0.5,
    0.75,
    1.0,
    2.5,
    5.0,
    7.5,
    10.0,
    20.0,
    40.0,
    80.0,
    160.0,
    640.0,
    2560.0,
)  # vLLM's TTFT buckets, used for every latency here


class ServerMetrics:
    def __init__(self, model_name: str, speculative: bool = False):
        self.registry = r = CollectorRegistry()
        self.model_name = model_name
        labels = ["model_name"]
        ProcessCollector(registry=r)  # process_resident_memory_bytes & co., as vLLM's /metrics has them

        def gauge(name: str, doc: str) -> Gauge:
            return Gauge(name, doc, labels, registry=r).labels(model_name)

        def histogram(name: str, doc: str) -> Histogram:
            return Histogram(name, doc, labels, buckets=LATENCY_BUCKETS, registry=r).labels(model_name)

        self.running = gauge("vllm:num_requests_running", "Requests in the engine's running batch.")
        self.waiting = gauge("vllm:num_requests_waiting", "Requests waiting to be scheduled.")
        self.kv_usage = gauge("vllm:kv_cache_usage_perc", "Fraction of KV cache blocks in use (1 = full).")
        self.ttft = histogram("vllm:time_to_first_token_seconds", "Time to first token.")
        self.itl = histogram("vllm:inter_token_latency_seconds", "Gap between successive output tokens.")
        self.e2e = histogram("vllm:e2e_request_latency_seconds", "Arrival to last token.")
        self.queue = histogram("vllm:request_queue_time_seconds", "Arrival to first scheduled.")
        self.prefill = histogram("vllm:request_prefill_time_seconds", "First scheduled to first token.")
        self.decode = histogram("vllm:request_decode_time_seconds", "First token to last token.")
        self.prompt_tokens = Counter("vllm:prompt_tokens", "Prompt tokens processed.", labels, registry=r).labels(
            model_name
        )
        self.generation_tokens = Counter("vllm:generation_tokens", "Tokens generated.", labels, registry=r).labels(
            model_name
        )
        self.transfer_bytes = Counter(
            "pdlab:kv_transfer_bytes",
            "KV hand-off bytes, sent by a prefill worker or received by a decode worker.",
            [*labels, "direction"],
            registry=r,
        )
        for direction in ("sent", "received"):  # at 0 from the start: a scrape before any hand-off reads them
            self.transfer_bytes.labels(model_name, direction)
        self.transfer = histogram(
            "pdlab:kv_transfer_seconds", "A hand-off's transfer: packed on the prefill worker to received here."
        )
        self.spec = None
        if speculative:

            def counter(name: str, doc: str) -> Counter:
                return Counter(name, doc, labels, registry=r).labels(model_name)

            self.spec = (
                counter("vllm:spec_decode_num_drafts", "Drafts verified (one per sequence and step)."),
                counter("vllm:spec_decode_num_draft_tokens", "Tokens drafted."),
                counter("vllm:spec_decode_num_accepted_tokens", "Drafted tokens the model accepted."),
            )
            self.accepted_per_pos = Counter(
                "vllm:spec_decode_num_accepted_tokens_per_pos",
                "Accepted drafted tokens by their position in the draft (0 first).",
                [*labels, "position"],
                registry=r,
            )

    def set_load(self, running: int, waiting: int, kv_usage: float) -> None:
        self.running.set(running)
        self.waiting.set(waiting)
        self.kv_usage.set(kv_usage)

    def observe_request(
        self, m: RequestMetrics, queue_s: float, prefill_s: float, decode_s: float, prompt_tokens: int
    ) -> None:
        self.ttft.observe(m.ttft_ms / 1e3)
        for gap in m.itl_ms:
            self.itl.observe(gap / 1e3)
        self.e2e.observe(m.e2e_ms / 1e3)
        self.queue.observe(max(0.0, queue_s))
        self.prefill.observe(max(0.0, prefill_s))
        self.decode.observe(max(0.0, decode_s))
        self.prompt_tokens.inc(prompt_tokens)
        self.generation_tokens.inc(m.num_output_tokens)

    def observe_transfer(self, direction: str, nbytes: int, seconds: float | None = None) -> None:
        self.transfer_bytes.labels(self.model_name, direction).inc(nbytes)
        if seconds is not None:
            self.transfer.observe(max(0.0, seconds))

    def observe_drafts(self, seqs: list[SeqStep]) -> None:
        """One step's verified drafts (speculative decoding)."""
        if self.spec is None:
            return
        drafts, draft_tokens, accepted = self.spec
        for s in (s for s in seqs if s.drafted):
            drafts.inc()
            draft_tokens.inc(s.drafted)
            accepted.inc(s.accepted)
            for pos in range(s.accepted):
                self.accepted_per_pos.labels(self.model_name, str(pos)).inc()

    def exposition(self) -> bytes:
        return generate_latest(self.registry)
