"""The records the UI shows: per step, per token, per request. Plain dataclasses, JSON-able
(except captured attention, which stays as tensors beside the step), whose field types
(engine/observe/fields.py) are also what a saved trace is checked against when it is read back.

Shapes follow the source document's conventions: input [batch, T, hidden]; Q [batch, heads, T,
head_dim]; K, V [batch, kv_heads, C, head_dim]; scores [batch, heads, T, C]; the KV cache
[layers, 2, C, kv_heads, head_dim]. Every layer has the same shapes, so they are stored once.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Annotated, Any

import torch

from engine.config import ModelConfig
from engine.observe.fields import NOT_SAVED, Bool, Float, Int, ListOf, OneOf, Parsed, Text
from engine.observe.request_metrics import RequestMetrics

PHASES = ("prefill", "decode")
MAX_TEXT = 32 << 20  # characters of one request's output text: as many as a trace file may hold
Shape = ListOf(Int(), 8)  # a tensor's dimensions


def _seq_key(key: object) -> int:
    """A sequence id as a JSON object's key, which is text: "3" for sequence 3."""
    if not (isinstance(key, str) and key.isdigit() and len(key) < 16):
        raise ValueError(key)
    return int(key)


SeqKey = Parsed(int, _seq_key, "a sequence id (digits)")


@dataclass
class LayerShapes:
    input: Shape
    q: Shape
    k: Shape
    v: Shape
    scores: Shape
    kv_cache: Shape

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

    seq_id: Int()
    phase: OneOf(PHASES)
    num_tokens: Int()  # T, new tokens fed
    context_len: Int()  # C, keys attended = its KV tokens after the step
    recompute: Bool  # KV cache off: the whole context went through again
    shapes: LayerShapes
    token_id: Int() | None = None  # the (last) token this step produced for it, if any
    token_text: Text() | None = None  # the text of every token it produced
    # speculative decoding (traces saved before it have none of these three)
    drafted: Int() = 0  # tokens drafted and verified in this step
    accepted: Int() = 0  # of them, those the target model agreed with (it also emits one of its own)
    draft: ListOf(Int(), 64) = field(default_factory=list)  # the drafted token ids: accepted first, then rejected


@dataclass
class StepRecord:
    step: Int()
    start: Float()  # perf_counter seconds
    ms: Float(lo=0.0)  # wall time of schedule + forward + sample (device synchronised)
    seqs: ListOf(SeqStep, 4096)
    kv_tokens: Int()
    kv_bytes: Int()
    kv_blocks: Int()
    kv_reserved_bytes: Int()
    kv_wasted_slots: Int()
    kv_free_blocks: Int()
    flops: Float(lo=0.0)
    flops_linear: Float(lo=0.0)
    flops_attention: Float(lo=0.0)
    bytes_moved: Float(lo=0.0)
    peak_bytes: Int() | None = None  # transient memory above the step's start; None when not probed
    peak_by_label: dict[str, Int()] | None = None  # CPU probe: bytes alive at the peak, e.g. "attention scores"
    # layer -> (H, T, C), seq 0; never saved with the step (a playground trace keeps it apart, as float16)
    attention: Annotated[dict[int, torch.Tensor] | None, NOT_SAVED] = field(default=None, repr=False)
    block_tables: dict[SeqKey, ListOf(Int())] = field(default_factory=dict)  # who owns which blocks after the step
    cached_free_blocks: ListOf(Int()) = field(default_factory=list)  # free, but holding a reusable prefix
    prefix_hit_tokens: Int() = 0  # prompt tokens served from the prefix cache so far in this engine
    num_waiting: Int() = 0  # requests queued after the step

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
    seq_id: Int()
    index: Int()  # 0 for the first output token
    token_id: Int()
    text: Text()  # the text this token adds (may be empty while a UTF-8 character is incomplete)
    phase: OneOf(PHASES)
    step: Int()
    time: Float()


@dataclass
class RequestRecord:
    seq_id: Int()
    prompt_token_ids: ListOf(Int())
    output_token_ids: ListOf(Int())
    text: Text(MAX_TEXT)
    arrival: Float()
    token_times: ListOf(Float())
    finish_reason: Text(64) | None = None
    num_preemptions: Int() = 0

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

    model: Text(4096)
    settings: dict[str, Any]
    requests: ListOf(RequestRecord) = field(default_factory=list)
    steps: ListOf(StepRecord) = field(default_factory=list)
    tokens: ListOf(TokenEvent) = field(default_factory=list)

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
