"""Run one workload under the scheduling policies the page compares, on the real engine, and what
the page keeps of it. No Streamlit here: the page passes its callbacks and stores the result in
session state.

The policies race (lab/serving_race.py): each policy's engine a lane over the same requests, a step
each in turn, every lane on its own clock, so both see the same seconds of the machine; rounds repeat
the race and pair the policies' statistics round by round. Each step holds the registry's step lock:
another session's step never runs inside one of ours (and its time is off every lane's clock).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum

from app_pages.serving.workload import pool_needs
from engine import EngineConfig, EngineEvent
from engine.errors import LabError
from engine.observe.trace import StepRecord, Trace
from lab.busy import MachineLoad
from lab.serving_race import LaneRun, RaceRounds, race_rounds
from lab.workload import RequestSpec, summarize

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
# Five rounds: the fewest pairs whose interval can exclude 1 (lab/pairing.py). The small head-of-line
# workload is about 80 decode steps and 670 prompt tokens a policy, ~2 s on 2 quiet cores: five
# rounds of two policies ~20 s, the busiest small preset (random-mix) ~35 s.
DEFAULT_ROUNDS, MAX_ROUNDS = 5, 50
PROMPT_TOKENS_PER_STEP = 20  # a decode step costs about as much as 20 prompt tokens (lab/claims_pace.py)
WHOLE_PROMPT_BUDGET = 8192  # the engine's default step budget, for policies that do not chunk


@dataclass(frozen=True)
class ServingSettings:
    policy_a: str = "continuous"
    policy_b: str = "chunked"
    max_num_seqs: int = DEFAULT_BATCH  # batch limit: sequences running at once
    chunk_budget: int = DEFAULT_BUDGET  # tokens per step, with chunked prefill
    block_size: int = 16
    pool_blocks: int | None = None  # None: enough blocks for every request at full length at once
    rounds: int = DEFAULT_ROUNDS  # races of the policies over the workload: the pairs behind each ratio

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
        if self.rounds is None or not 1 <= self.rounds <= MAX_ROUNDS:
            raise LabError(f"Race the policies between 1 and {MAX_ROUNDS} times, not {self.rounds}.")

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
    """What the page keeps in session state: plain records only. `runs` is the first round, the runs
    the timeline, blocks and goodput show; `rounds` every round kept, the first included, whose
    statistics pair round by round."""

    model: str
    preset: str
    settings: ServingSettings
    num_requests: int
    kv_bytes_per_token: int
    runs: dict[str, PolicyRun] = field(default_factory=dict)
    status: ServingStatus = ServingStatus.RUNNING
    error: str | None = None
    load: MachineLoad | None = None  # the busiest round: other processes' CPU use while the policies raced
    specs: list[RequestSpec] = field(default_factory=list)  # the workload, for judging every policy on it
    rounds: list[dict[str, PolicyRun]] = field(default_factory=list)
    loads: list[MachineLoad] = field(default_factory=list)  # each kept round's, in order
    retaken: int = 0  # rounds raced again because other work took the machine meanwhile


def step_work(step: StepRecord | None) -> float:
    """A step's work in decode steps: a decoded token is one, a prompt token 1/PROMPT_TOKENS_PER_STEP."""
    if step is None:
        return 0.0
    return sum(q.num_tokens / PROMPT_TOKENS_PER_STEP if q.phase == "prefill" else q.num_tokens for q in step.seqs)


def workload_work(specs: list[RequestSpec]) -> float:
    """One policy's work over the workload, in decode steps (step_work's units; prefix hits make it less)."""
    return sum(len(s.prompt_ids) / PROMPT_TOKENS_PER_STEP + s.max_new_tokens for s in specs)


@dataclass
class Progress:
    """How far a race is, for the progress bar: its work done against all its rounds' work."""

    rounds: int
    total_work: float
    round: int = 1
    work: float = 0.0
    steps: int = 0

    def add(self, event: EngineEvent) -> None:
        self.steps += 1
        self.work += step_work(event.step)

    @property
    def fraction(self) -> float:
        return min(1.0, self.work / self.total_work) if self.total_work else 0.0


def lane_configs(bundle, specs: list[RequestSpec], settings: ServingSettings, policies: dict[str, str]):
    """The engine settings of each lane ({lane: policy}) on this workload."""
    per_token = bundle.model.config.kv_bytes_per_token(bundle.model.dtype.itemsize)
    return {lane: settings.engine_config(policy, specs, per_token) for lane, policy in policies.items()}


def policy_run(bundle, specs, settings: ServingSettings, slot: str, policy: str, lane: LaneRun) -> PolicyRun:
    """One lane's round as the page keeps it."""
    config = lane_configs(bundle, specs, settings, {slot: policy})[slot]
    return PolicyRun(
        slot=slot,
        policy=policy,
        trace=lane.trace,
        labels=lane.labels,
        seconds=lane.seconds,
        num_blocks=settings.pool(specs)[0],
        block_size=settings.block_size,
        step_budget=config.max_num_batched_tokens,
        chunked=config.chunked_prefill,
        context_len=bundle.model.config.max_position,
    )


def race_policies(
    bundle,
    specs: list[RequestSpec],
    settings: ServingSettings,
    policies: dict[str, str],
    rounds: int,
    lock: threading.Lock | None = None,
    on_step: Callable[[str, EngineEvent], None] | None = None,
    on_round: Callable[[list[dict[str, PolicyRun]], RaceRounds], None] | None = None,
    deadline: float | None = None,
) -> tuple[list[dict[str, PolicyRun]], RaceRounds]:
    """The workload under every policy ({lane: policy}), raced `rounds` times; on_round(rounds so far,
    the race's record) after each kept round. Returns every round's runs and the race's record."""
    kept: list[dict[str, PolicyRun]] = []

    def landed(race: RaceRounds) -> None:
        i = len(kept)
        kept.append(
            {lane: policy_run(bundle, specs, settings, lane, p, race.runs[lane][i]) for lane, p in policies.items()}
        )
        if on_round is not None:
            on_round(kept, race)

    configs = lane_configs(bundle, specs, settings, policies)
    race = race_rounds(
        bundle.model, bundle.tokenizer, specs, configs, rounds, on_step, landed, lock, deadline
    )  # fmt: skip
    return kept, race


def run_policy(
    bundle, specs: list[RequestSpec], settings: ServingSettings, slot: str, lock: threading.Lock | None = None
) -> PolicyRun:
    """The workload under the policy in `slot` ("a" or "b") alone, once."""
    kept, _ = race_policies(bundle, specs, settings, {slot: settings.policies[slot]}, 1, lock)
    return kept[0][slot]
