"""The precision lab's configurations (weights × KV cache dtype) and the arithmetic of what each stores
and reads; lab/precision_run.py measures them (timed against float32, lab/precision_timing.py, and
scored against it, lab/precision.py).

    bytes read per decode step = weights as stored + batch × context × KV bytes per token
    KV bytes per token         = 2 × layers × kv_heads × head_dim × element bytes (+ int8's scales)
    tokens that fit            = (memory budget − weights) / KV bytes per token

These counts are exact: they are the claim's work (bytes per token), which no load on the machine
changes; the measured times stand beside them.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from engine import Engine, EngineConfig, SamplingParams
from engine.config import ModelConfig
from engine.errors import LabError
from engine.layers.kv_cache import kv_bytes_per_token, kv_storage
from engine.observe.costmodel import SeqWork, StepCost, step_cost
from lab.pairing import RatioInterval
from lab.precision import Agreement
from lab.precision_timing import Timing

GGUF_CHOICE = "gguf Q4_1 (as stored)"  # the bundled file's own 4-bit blocks, never de-quantised
WEIGHT_CHOICES = ("float32", "bfloat16", "float16", "int8 + float32", "int8 + bfloat16", "w8a8", GGUF_CHOICE)
KV_CHOICES = ("auto", "bfloat16", "float16", "float8_e4m3fn", "int8")


def parse_weights(choice: str) -> tuple[str, str]:
    """A page choice -> (activation dtype, weight format)."""
    table = {
        "float32": ("float32", "native"),
        "bfloat16": ("bfloat16", "native"),
        "float16": ("float16", "native"),
        "int8 + float32": ("float32", "int8"),
        "int8 + bfloat16": ("bfloat16", "int8"),
        "w8a8": ("float32", "w8a8"),
        GGUF_CHOICE: ("float32", "gguf"),
    }
    if choice not in table:
        raise LabError(f"Unknown weights {choice!r}; choose one of {', '.join(table)}.")
    return table[choice]


@dataclass(frozen=True)
class FormatConfig:
    weights: str  # one of WEIGHT_CHOICES
    kv_dtype: str = "auto"

    @property
    def name(self) -> str:
        return self.weights if self.kv_dtype == "auto" else f"{self.weights}, KV {self.kv_dtype}"

    @property
    def is_reference(self) -> bool:
        return self.weights == "float32" and self.kv_dtype in ("auto", "float32")


@dataclass
class FormatResult:
    config: FormatConfig
    weight_bytes: int  # held
    weight_elem_bytes: float  # per linear weight element, as a forward reads it
    act_bytes: int  # activations' element size
    kv_token_bytes: int
    timing: Timing  # its TPOT and prefill, and their ratios to float32 measured beside it
    text: Agreement | None = None
    greedy: Agreement | None = None
    sample: str = ""  # greedy continuation of PROMPTS[0]
    decode_kernels: tuple[str, ...] = ()  # what its matrix products ran on in a decode step (engine/layers)

    @property
    def tpot_ms(self) -> float:
        return self.timing.tpot_ms

    @property
    def prefill_ms(self) -> float:
        return self.timing.prefill_ms

    @property
    def decode_ratio(self) -> RatioInterval | None:
        """TPOT ÷ float32's, paired step by step; None for float32 itself (1 by definition)."""
        return self.timing.decode

    @property
    def prefill_ratio(self) -> RatioInterval | None:
        return self.timing.prefill


def decode_step_cost(
    model: ModelConfig, act_bytes: int, weight_elem_bytes: int, kv_token: int, context: int, batch: int
) -> StepCost:
    """One decode step of `batch` sequences at this context, weights and KV as stored (engine/costmodel)."""
    return step_cost(
        model, [SeqWork(1, context)] * batch, act_bytes, weight_dtype_bytes=weight_elem_bytes, kv_token_bytes=kv_token
    )


def format_cost(model: ModelConfig, r: FormatResult, context: int, batch: int) -> StepCost:
    return decode_step_cost(model, r.act_bytes, r.weight_elem_bytes, r.kv_token_bytes, context, batch)


def read_bytes(model: ModelConfig, r: FormatResult, context: int, batch: int) -> float:
    """Bytes one decode step reads at this context and batch: the weights, then the KV of the context."""
    cost = format_cost(model, r, context, batch)
    return cost.weight_bytes + cost.kv_read_bytes


def kv_token_bytes(model: ModelConfig, kv_dtype: str, act: torch.dtype = torch.float16) -> int:
    """KV bytes per token of a dtype ("auto": the activations' own)."""
    return kv_bytes_per_token(model, kv_storage(kv_dtype, act))


@dataclass
class Capacity:
    name: str
    kv_token_bytes: int
    tokens: int  # KV tokens that fit beside the weights
    sequences: int  # of `context` tokens each


def capacity(
    model: ModelConfig, weight_bytes: float, budget_bytes: float, kv_token: int, context: int, name: str
) -> Capacity:
    room = max(0.0, budget_bytes - weight_bytes)
    tokens = int(room // kv_token)
    return Capacity(name, kv_token, tokens, tokens // max(1, context))


def mha_twin(model: ModelConfig) -> ModelConfig:
    """The same model with one KV head per query head (multi-head attention): GQA's saving undone."""
    from dataclasses import replace

    return replace(model, num_kv_heads=model.num_heads)


def timed_request(model, tokenizer, ids: list[int], new_tokens: int, **config) -> tuple[float, float]:
    """(TTFT ms, TPOT ms) of one greedy request, memory probe off (the engine's own token times);
    `config`: more EngineConfig fields (kv_dtype, attention, ...)."""
    engine = Engine(model, tokenizer, EngineConfig(probe_memory=False, **config))
    engine.add_request(ids, SamplingParams(max_new_tokens=new_tokens, ignore_eos=True))
    for _ in engine.stream():
        pass
    m = engine.trace.requests[0].metrics
    return m.ttft_ms, m.tpot_ms or 0.0
