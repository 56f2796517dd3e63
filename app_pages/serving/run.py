"""Run one workload under a scheduling policy on the real engine, and what the page keeps of it.
No Streamlit here: the page passes a progress callback and stores the result in session state.

Each run holds the registry's step lock from its first step to its last: it is a timing
experiment (TTFT, ITL, throughput), and another session's steps interleaved with it would show
up as latency that no policy caused.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum

from app_pages.serving.workload import pool_needs
from engine import EngineConfig, EngineEvent
from engine.errors import LabError
from engine.observe.trace import Trace
from lab.busy import MachineLoad
from lab.workload import RequestSpec, run_workload, summarize

JUDGED_POLICIES = ("sequential", "static", "continuous", "chunked")  # the four the SLO table compares

# The policies the pickers offer: a scheduler policy plus the two switches on top of it.
POLICIES: dict[str, dict] = {
    "sequential": dict(policy="sequential"),
    "static": dict(policy="static"),
    "continuous": dict(policy="continuous"),
    "chunked": dict(policy="continuous", chunked_prefill=True),
    "prefix": dict(policy="continuous", prefix_caching=True),
    "chunked-prefix": dict(policy="continuous", chunked_prefill=True, prefix_caching=True),
}
# What each preset is about, as the two policies it compares by default, and its batch limit.
PRESET_POLICIES = {
    "head-of-line": ("continuous", "chunked"),
    "shared-prefix": ("continuous", "prefix"),
    "random-mix": ("static", "continuous"),
    "custom": ("continuous", "chunked"),
}
PRESET_BATCH = {"random-mix": 4}  # fewer slots than requests, so static and continuous differ
DEFAULT_BATCH, DEFAULT_BUDGET, FULL_BUDGET = 8, 64, 128
WHOLE_PROMPT_BUDGET = 8192  # the engine's default step budget, for policies that do not chunk


@dataclass(frozen=True)
class ServingSettings:
    policy_a: str = "continuous"
    policy_b: str = "chunked"
    max_num_seqs: int = DEFAULT_BATCH  # batch limit: sequences running at once
    chunk_budget: int = DEFAULT_BUDGET  # tokens per step, with chunked prefill
    block_size: int = 16
    pool_blocks: int | None = None  # None: enough blocks for every request at full length at once

    def __post_init__(self):
        for p in (self.policy_a, self.policy_b):
            if p not in POLICIES:
                raise LabError(f"Unknown policy {p!r}; choose one of {', '.join(POLICIES)}.")
        if self.max_num_seqs is None or self.max_num_seqs < 1:
            raise LabError("The batch limit must be at least 1 sequence.")
        if self.chunk_budget is None or self.chunk_budget < 1:
            raise LabError(
                "The per-step token budget must be at least 1 token: with 0, no step could process anything."
            )
        if self.block_size < 1:
            raise LabError("The block size must be at least 1 token.")
        if self.pool_blocks is not None and self.pool_blocks < 1:
            raise LabError("The KV pool needs at least 1 block (leave it empty for automatic).")

    @property
    def policies(self) -> dict[str, str]:
        return {"a": self.policy_a, "b": self.policy_b}

    def pool(self, specs: list[RequestSpec]) -> tuple[int, int]:
        """(blocks in the pool, max_model_len) for this workload; ValueError if the pool is too small.

        max_model_len is the longest request, not the model's context: the engine sizes its pool to
        hold one max_model_len sequence at least, and the block chart should show this workload's pool."""
        longest, everything = pool_needs(specs, self.block_size)
        blocks = self.pool_blocks or everything
        if blocks < longest:
            raise LabError(
                f"A KV pool of {blocks} blocks cannot hold the longest request, which needs {longest} "
                f"blocks of {self.block_size} tokens; give the pool at least {longest} blocks."
            )
        return blocks, max(len(s.prompt_ids) + s.max_new_tokens for s in specs)

    def engine_config(self, policy: str, specs: list[RequestSpec], kv_bytes_per_token: int) -> EngineConfig:
        num_blocks, max_len = self.pool(specs)
        switches = POLICIES[policy]
        # Without chunking a prompt goes into one step whole (vLLM needs the budget >= max_model_len then)
        budget = self.chunk_budget if switches.get("chunked_prefill") else max(WHOLE_PROMPT_BUDGET, max_len)
        return EngineConfig(
            probe_memory=False,
            block_size=self.block_size,
            max_num_seqs=self.max_num_seqs,
            max_num_batched_tokens=budget,
            max_model_len=max_len,
            kv_cache_bytes=num_blocks * self.block_size * kv_bytes_per_token,
            **switches,
        )


@dataclass
class PolicyRun:
    """One finished run: the engine's own trace and labels, and the numbers the charts need."""

    slot: str  # "a" or "b"
    policy: str
    trace: Trace
    labels: dict[int, str]  # seq_id -> request label
    seconds: float
    num_blocks: int
    block_size: int
    step_budget: int
    chunked: bool
    context_len: int  # the model's context: what contiguous max-length preallocation reserves

    def summary(self, only: set[int] | None = None) -> dict:
        return summarize(self.trace, only)

    @property
    def num_preemptions(self) -> int:
        return sum(r.num_preemptions for r in self.trace.requests)


class ServingStatus(str, Enum):
    RUNNING = "running"
    DONE = "done"
    STOPPED = "stopped"  # Stop (or any rerun) cut the comparison short
    FAILED = "failed"


@dataclass
class ServingResult:
    """What the page keeps in session state: plain records only."""

    model: str
    preset: str
    settings: ServingSettings
    num_requests: int
    kv_bytes_per_token: int
    runs: dict[str, PolicyRun] = field(default_factory=dict)
    status: ServingStatus = ServingStatus.RUNNING
    error: str | None = None
    load: MachineLoad | None = None  # other processes' CPU use while the policies ran
    specs: list[RequestSpec] = field(default_factory=list)  # the workload, for judging every policy on it


@dataclass
class Progress:
    """How far one run is, for the progress bar."""

    steps: int = 0
    finished: int = 0
    tokens: int = 0
    total_requests: int = 0
    total_tokens: int = 0

    @property
    def fraction(self) -> float:
        return min(1.0, self.tokens / self.total_tokens) if self.total_tokens else 0.0


def run_policy(
    bundle,
    specs: list[RequestSpec],
    settings: ServingSettings,
    slot: str,
    lock: threading.Lock | None = None,
    on_progress: Callable[[Progress], None] | None = None,
) -> PolicyRun:
    """Run the workload under the policy in `slot` ("a" or "b"), arrivals in real time."""
    policy = settings.policies[slot]
    elem_bytes = bundle.model.dtype.itemsize
    config = settings.engine_config(policy, specs, bundle.model.config.kv_bytes_per_token(elem_bytes))
    progress = Progress(total_requests=len(specs), total_tokens=sum(s.max_new_tokens for s in specs))

    def on_event(event: EngineEvent) -> None:
        progress.steps += 1
        progress.finished += len(event.finished)
        progress.tokens += len(event.tokens)
        if on_progress:
            on_progress(progress)

    with lock or threading.Lock():
        start = time.perf_counter()
        trace, labels = run_workload(bundle.model, bundle.tokenizer, specs, config, on_event=on_event)
        seconds = time.perf_counter() - start
    return PolicyRun(
        slot=slot,
        policy=policy,
        trace=trace,
        labels=labels,
        seconds=seconds,
        num_blocks=settings.pool(specs)[0],
        block_size=settings.block_size,
        step_budget=config.max_num_batched_tokens,
        chunked=config.chunked_prefill,
        context_len=bundle.model.config.max_position,
    )
