"""The records the UI shows: per step, per token, per request. Plain dataclasses, JSON-able
(except captured attention, which stays as tensors beside the step).

Shapes follow the source document's conventions: input [batch, T, hidden]; Q [batch, heads, T,
head_dim]; K, V [batch, kv_heads, C, head_dim]; scores [batch, heads, T, C]; the KV cache
[layers, 2, C, kv_heads, head_dim]. Every layer has the same shapes, so they are stored once.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

import torch

from engine.config import ModelConfig
from engine.observe.request_metrics import RequestMetrics


@dataclass
class LayerShapes:
    input: list[int]
    q: list[int]
    k: list[int]
    v: list[int]
    scores: list[int]
    kv_cache: list[int]

    @classmethod
    def for_step(cls, c: ModelConfig, num_tokens: int, context_len: int) -> LayerShapes:
        T, C = num_tokens, context_len
        return cls(
            input=[1, T, c.hidden_size],
            q=[1, c.num_heads, T, c.head_dim],
            k=[1, c.num_kv_heads, C, c.head_dim],
            v=[1, c.num_kv_heads, C, c.head_dim],
            scores=[1, c.num_heads, T, C],
            kv_cache=[c.num_layers, 2, C, c.num_kv_heads, c.head_dim],
        )


@dataclass
class SeqStep:
    """What one sequence did in one step."""

    seq_id: int
    phase: str  # "prefill" or "decode"
    num_tokens: int  # T, new tokens fed
    context_len: int  # C, keys attended = its KV tokens after the step
    recompute: bool  # KV cache off: the whole context went through again
    shapes: LayerShapes
    token_id: int | None = None  # the (last) token this step produced for it, if any
    token_text: str | None = None  # the text of every token it produced
    drafted: int = 0  # speculative decoding: tokens drafted and verified in this step
    accepted: int = 0  # of them, those the target model agreed with (it also emits one of its own)
    draft: list[int] = field(default_factory=list)  # the drafted token ids: accepted ones first, then rejected


@dataclass
class StepRecord:
    step: int
    start: float  # perf_counter seconds
    ms: float  # wall time of schedule + forward + sample (device synchronised)
    seqs: list[SeqStep]
    kv_tokens: int
    kv_bytes: int
    kv_blocks: int
    kv_reserved_bytes: int
    kv_wasted_slots: int
    kv_free_blocks: int
    flops: float
    flops_linear: float
    flops_attention: float
    bytes_moved: float
    peak_bytes: int | None  # transient memory above the step's start; None when not probed
    peak_by_label: dict[str, int] | None = None  # CPU probe: bytes alive at the peak, e.g. "attention scores"
    attention: dict[int, torch.Tensor] | None = field(default=None, repr=False)  # layer -> (H, T, C), seq 0
    block_tables: dict[int, list[int]] = field(default_factory=dict)  # who owns which blocks after the step
    cached_free_blocks: list[int] = field(default_factory=list)  # free, but holding a reusable prefix
    prefix_hit_tokens: int = 0  # prompt tokens served from the prefix cache so far in this engine
    num_waiting: int = 0  # requests queued after the step

    @property
    def num_tokens(self) -> int:
        return sum(s.num_tokens for s in self.seqs)

    @property
    def phase(self) -> str:
        phases = {s.phase for s in self.seqs}
        return phases.pop() if len(phases) == 1 else "mixed"

    def to_dict(self) -> dict:
        d = asdict(self)
        d.pop("attention")
        d.update(phase=self.phase, num_tokens=self.num_tokens)
        return d


@dataclass
class TokenEvent:
    seq_id: int
    index: int  # 0 for the first output token
    token_id: int
    text: str  # the text this token adds (may be empty while a UTF-8 character is incomplete)
    phase: str
    step: int
    time: float


@dataclass
class RequestRecord:
    seq_id: int
    prompt_token_ids: list[int]
    output_token_ids: list[int]
    text: str
    arrival: float
    token_times: list[float]
    finish_reason: str | None
    num_preemptions: int = 0

    @property
    def finish_time(self) -> float:
        return self.token_times[-1]

    @property
    def metrics(self) -> RequestMetrics:
        return RequestMetrics.from_times(self.arrival, self.token_times)

    def to_dict(self) -> dict:
        return asdict(self) | {"metrics": asdict(self.metrics)}


@dataclass
class Trace:
    """Everything one run produced: the requests, every step and every token, in order."""

    model: str
    settings: dict
    requests: list[RequestRecord] = field(default_factory=list)
    steps: list[StepRecord] = field(default_factory=list)
    tokens: list[TokenEvent] = field(default_factory=list)

    def clear(self) -> None:
        """Forget everything recorded so far (a long-lived engine, such as a server's, keeps no history)."""
        self.requests.clear(), self.steps.clear(), self.tokens.clear()

    def to_dict(self) -> dict:
        return {
            "model": self.model,
            "settings": self.settings,
            "requests": [r.to_dict() for r in self.requests],
            "steps": [s.to_dict() for s in self.steps],
            "tokens": [asdict(t) for t in self.tokens],
        }
