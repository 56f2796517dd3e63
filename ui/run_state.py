"""What one playground run keeps in `st.session_state`: plain records, never tensors or models.

The engine's own records (StepRecord, TokenEvent, RequestRecord) are kept as they are, with the
captured attention moved out of the StepRecords into float16 numpy arrays.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from enum import Enum

import numpy as np
import torch

from engine import EngineConfig, SamplingParams
from engine.core.speculative import SpeculativeConfig
from engine.observe.request_metrics import RequestMetrics
from engine.observe.trace import RequestRecord, StepRecord, TokenEvent
from lab.busy import MachineLoad
from lab.schema import Bool, Float, Int, OneOf, Text
from ui.tokens import Piece

CAPTURE_BYTES = 24 << 20  # attention kept per run: enough for every layer of a few-hundred-token prompt
MAX_PROMPT_CHARS = 1 << 20  # the longest prompt a saved run may hold
Count = Int(lo=1, hi=1 << 24)
Name = Text(4096)


class RunStatus(str, Enum):
    RUNNING = "running"
    DONE = "done"
    STOPPED = "stopped"  # interrupted by Stop (or any rerun) before it finished
    FAILED = "failed"


@dataclass
class RunSettings:
    """Everything the controls set for one run. The field types are also what a saved run's settings
    are checked against when it is read back (app_pages/playground/trace_file.py)."""

    prompt: Text(MAX_PROMPT_CHARS)
    chat: Bool = False
    max_new_tokens: Int(lo=1, hi=1 << 20) = 32
    temperature: Float(lo=0.0, hi=100.0) = 0.0
    top_k: Int() = 0
    top_p: Float(lo=0.0, hi=1.0) = 1.0
    seed: Int() | None = None
    attention: OneOf(("sdpa", "eager")) = "sdpa"
    kv_cache: Bool = True
    probe_memory: Bool = True
    speculative_k: Int(lo=0, hi=32) = 0  # prompt-lookup speculative decoding: tokens drafted per step (0: off)

    def sampling(self) -> SamplingParams:
        return SamplingParams(
            max_new_tokens=int(self.max_new_tokens),
            temperature=float(self.temperature),
            top_k=int(self.top_k),
            top_p=float(self.top_p),
            seed=self.seed,
        )

    def engine_config(self) -> EngineConfig:
        """The instruments these settings ask for; the timed run drops them (ui/run_driver.py).
        kv_cache_bytes=0: the pool holds exactly one max-length sequence, all a single prompt needs."""
        return EngineConfig(
            attention=self.attention,
            kv_cache=self.kv_cache,
            kv_cache_bytes=0,
            probe_memory=self.probe_memory,
            capture_attention=self.attention == "eager",
            capture_max_bytes=CAPTURE_BYTES,
            speculative=SpeculativeConfig(num_tokens=self.speculative_k) if self.speculative_k else None,
        )


@dataclass(frozen=True)
class ModelInfo:
    """The model's numbers the page shows (formulas, shapes), detached from the weights; its field
    types are also what a saved run's model is checked against."""

    name: Name
    source: Name
    num_layers: Count
    hidden_size: Count
    num_heads: Count
    num_kv_heads: Count
    head_dim: Count
    vocab_size: Count
    max_position: Count
    num_params: Int()
    weight_bytes: Int()
    dtype: Name
    elem_bytes: Int(lo=1, hi=8)
    device: Name

    @property
    def kv_bytes_per_token(self) -> int:
        return 2 * self.num_layers * self.num_kv_heads * self.head_dim * self.elem_bytes

    @classmethod
    def from_bundle(cls, bundle) -> ModelInfo:
        model, c = bundle.model, bundle.model.config
        return cls(
            name=bundle.name,
            source=bundle.source,
            num_layers=c.num_layers,
            hidden_size=c.hidden_size,
            num_heads=c.num_heads,
            num_kv_heads=c.num_kv_heads,
            head_dim=c.head_dim,
            vocab_size=c.vocab_size,
            max_position=c.max_position,
            num_params=c.num_params,
            weight_bytes=model.weight_bytes,
            dtype=str(model.dtype).removeprefix("torch."),
            elem_bytes=torch.empty((), dtype=model.dtype).element_size(),
            device=str(model.device),
        )


@dataclass
class RunResult:
    settings: RunSettings
    model: ModelInfo
    block_size: int
    prompt: list[Piece]
    arrival: float
    steps: list[StepRecord] = field(default_factory=list)
    tokens: list[TokenEvent] = field(default_factory=list)
    pieces: list[Piece] = field(default_factory=list)  # one per output token
    attention: list[dict[int, np.ndarray]] = field(default_factory=list)  # per step: layer -> (H, rows, C)
    request: RequestRecord | None = None
    status: RunStatus = RunStatus.RUNNING
    error: str | None = None
    loaded_from: str | None = None  # the file's name when this run was loaded from a saved trace
    memory_pass: str | None = None  # "replay": the memory readings come from the untimed second pass
    pass_pending: bool = False  # timed run done, its untimed second pass (memory, attention) still to run
    started: float = field(default_factory=time.time)  # wall clock, for download names
    load: MachineLoad | None = None  # other processes' CPU use during the timed pass (lab/busy.py)
    rejected: dict[int, list[Piece]] = field(default_factory=dict)  # step -> drafted tokens it rejected

    @property
    def num_prompt_tokens(self) -> int:
        return len(self.prompt)

    @property
    def text(self) -> str:
        return self.request.text if self.request else "".join(t.text for t in self.tokens)

    @property
    def metrics(self) -> RequestMetrics | None:
        """TTFT, TPOT, ITL, E2E from the tokens so far (a stopped run has metrics too)."""
        if not self.tokens:
            return None
        return RequestMetrics.from_times(self.arrival, [t.time for t in self.tokens])

    @property
    def has_attention(self) -> bool:
        return any(self.attention)

    def latencies_ms(self) -> list[float]:
        """Per output token: TTFT for the first, then the gap since the previous one (ITL)."""
        times = [self.arrival] + [t.time for t in self.tokens]
        return [(b - a) * 1e3 for a, b in zip(times, times[1:])]
