"""Serving workloads: requests with arrival times, run through the engine in real time, and the
latency/throughput summary of the result (C17, C21-C24).

Presets:
  head-of-line   short chats are decoding when one long prompt arrives (C21: it blocks them
                 unless its prefill is chunked, C22)
  shared-prefix  requests that share a long system prompt (prefix caching reuses its blocks)
  random-mix     prompt and output lengths drawn uniformly, Poisson arrivals
Prompts are real English text cut to the requested token length.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass

from engine.core.llm_engine import Engine, EngineConfig, EngineEvent
from engine.errors import LabError
from engine.observe.request_metrics import percentiles
from engine.observe.trace import Trace
from engine.sampling_params import SamplingParams

CORPUS = (
    "The river rose slowly through the spring, and the town built its walls a little higher every year. "
    "Engineers argued about the best way to measure the flow, while farmers watched the sky and planted late. "
    "In the library a student read about bridges, about the stone arches of old empires and the steel spans "
    "of the modern age, and wondered how much weight a single beam could carry before it bent. "
    "Markets opened at dawn; bakers sold bread still warm, and the smell of coffee drifted across the square. "
)
QUESTIONS = [
    "What is a transformer?",
    "Explain the KV cache.",
    "Why is decoding slow?",
    "Name three rivers.",
    "Write a haiku about rain.",
    "What is 17 times 23?",
    "Summarise the story.",
    "Translate 'hello'.",
]
PRESET_NAMES = ("head-of-line", "shared-prefix", "random-mix")


@dataclass
class RequestSpec:
    arrival_s: float  # seconds after the workload starts
    prompt_ids: list[int]
    max_new_tokens: int
    label: str = ""


def text_tokens(tokenizer, num_tokens: int, offset: int = 0) -> list[int]:
    """Real text of exactly num_tokens tokens (the corpus repeated, starting offset tokens in)."""
    ids = tokenizer(CORPUS * (2 + (num_tokens + offset) // 60)).input_ids
    return ids[offset : offset + num_tokens]


def head_of_line(
    tokenizer, num_streams: int = 8, long_prompt: int = 2048, stream_output: int = 96, long_arrival_s: float = 0.4
) -> list[RequestSpec]:
    chats = [
        RequestSpec(0.0, text_tokens(tokenizer, 32 + 4 * i, offset=i), stream_output, f"chat {i + 1}")
        for i in range(num_streams)
    ]
    return chats + [RequestSpec(long_arrival_s, text_tokens(tokenizer, long_prompt), 16, "long prompt")]


def shared_prefix(
    tokenizer, num_requests: int = 8, system_tokens: int = 256, output: int = 32, gap_s: float = 0.15
) -> list[RequestSpec]:
    system = text_tokens(tokenizer, system_tokens)
    return [
        RequestSpec(
            i * gap_s, system + tokenizer(" " + QUESTIONS[i % len(QUESTIONS)]).input_ids, output, f"user {i + 1}"
        )
        for i in range(num_requests)
    ]


def random_mix(
    tokenizer,
    num_requests: int = 32,
    prompt_range: tuple[int, int] = (32, 512),
    output_range: tuple[int, int] = (16, 128),
    rate_per_s: float | None = None,
    seed: int = 0,
) -> list[RequestSpec]:
    """rate_per_s None: everything arrives at once (a throughput test)."""
    rng = random.Random(seed)
    t, specs = 0.0, []
    for i in range(num_requests):
        if rate_per_s:
            t += rng.expovariate(rate_per_s)
        specs.append(
            RequestSpec(
                t,
                text_tokens(tokenizer, rng.randint(*prompt_range), offset=rng.randint(0, 50)),
                rng.randint(*output_range),
                f"req {i + 1}",
            )
        )
    return specs


def preset(name: str, tokenizer, **kwargs) -> list[RequestSpec]:
    builders = {"head-of-line": head_of_line, "shared-prefix": shared_prefix, "random-mix": random_mix}
    if name not in builders:
        raise LabError(f"Unknown workload preset {name!r}; choose one of {', '.join(PRESET_NAMES)}.")
    return builders[name](tokenizer, **kwargs)


def run_workload(
    model,
    tokenizer,
    specs: list[RequestSpec],
    config: EngineConfig,
    on_event: Callable[[EngineEvent], None] | None = None,
    should_stop: Callable[[], bool] | None = None,
    on_add: Callable[[int, RequestSpec], None] | None = None,
) -> tuple[Trace, dict[int, str]]:
    """Add each request at its arrival time (wall clock) and step until all finish, or until
    should_stop() says so (the trace then holds what ran). on_add(seq_id, spec) reports each request
    as it enters the engine. Returns the trace and a map from sequence id to the request's label."""
    if not specs:
        raise LabError("The workload has no requests.")
    engine = Engine(model, tokenizer, config)
    pending = sorted(specs, key=lambda s: s.arrival_s)
    labels: dict[int, str] = {}
    t0 = time.perf_counter()
    while pending or engine.has_unfinished:
        if should_stop and should_stop():
            break
        now = time.perf_counter() - t0
        while pending and pending[0].arrival_s <= now:
            spec = pending.pop(0)
            params = SamplingParams(max_new_tokens=spec.max_new_tokens, ignore_eos=True)
            seq = engine.add_request(spec.prompt_ids, params, arrival=t0 + spec.arrival_s)
            labels[seq.seq_id] = spec.label or f"req {seq.seq_id}"
            if on_add:
                on_add(seq.seq_id, spec)
        if not engine.has_unfinished:
            time.sleep(max(0.0, pending[0].arrival_s - now))
            continue
        event = engine.step()
        if on_event:
            on_event(event)
    return engine.trace, labels


def summarize(trace: Trace, only: set[int] | None = None) -> dict:
    """P50/P90/P99 of TTFT, TPOT, ITL and E2E (ms), and output-token throughput (tokens/s)."""
    reqs = [r for r in trace.requests if only is None or r.seq_id in only]
    if not reqs:
        raise LabError("No finished requests to summarise.")
    metrics = [r.metrics for r in reqs]
    start = min(r.arrival for r in reqs)
    end = max(r.finish_time for r in reqs)
    tokens = sum(m.num_output_tokens for m in metrics)
    return {
        "ttft_ms": percentiles([m.ttft_ms for m in metrics]),
        "tpot_ms": percentiles([m.tpot_ms for m in metrics if m.tpot_ms is not None]),
        "itl_ms": percentiles([x for m in metrics for x in m.itl_ms]),
        "e2e_ms": percentiles([m.e2e_ms for m in metrics]),
        "throughput_tok_s": tokens / (end - start) if end > start else float("nan"),
        "num_requests": len(reqs),
        "output_tokens": tokens,
    }
