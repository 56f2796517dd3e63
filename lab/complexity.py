"""Complexity lab (C12-C15): generation with and without the KV cache, measured and counted;
fitted scaling exponents; where attention FLOPs overtake the linear layers; and the worked
example's tensor shapes for any model, computed by arithmetic (no weights needed).

Per decode step t (context C = L + t), per the cost model (the LM head's FLOPs left out):
  with the cache     FLOPs = lin + a C                           -> total ~ N lin + a (N L + N^2 / 2)
  without the cache  FLOPs = C lin - (C - 1) tail + a C (C + 1)/2 -> total ~ N L lin + a N (L + N)^2 / 2
where lin = linear FLOPs per token through every layer, tail = the last layer's output product and
MLP for one token (only the sampled token goes through them) and a = 4 x layers x heads x head_dim.
The attention term overtakes the linear one only past C* = 2 (lin - tail) / a tokens of context
(C* = lin / a with the cache).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from engine.config import ModelConfig
from engine.core.llm_engine import Engine, EngineConfig
from engine.errors import LabError
from engine.observe.costmodel import SeqWork, last_layer_tail_flops, linear_flops_per_token, step_cost
from engine.sampling_params import SamplingParams


def attention_flops_per_key(c: ModelConfig) -> int:
    """a: FLOPs of Q K^T and P V for one query against one key, over all layers and heads."""
    return 4 * c.num_layers * c.num_heads * c.head_dim


def crossover_context(c: ModelConfig, kv_cache: bool = True) -> int:
    """Context length past which a step's attention FLOPs exceed its linear-layer FLOPs.

    With the cache a step is one token: lin vs a C. Without it, C tokens: C (lin - tail) + tail vs
    a C (C + 1) / 2, so about 2 (lin - tail) / a.
    """
    lin, a = linear_flops_per_token(c), attention_flops_per_key(c)
    return math.ceil(lin / a) if kv_cache else math.ceil(2 * (lin - last_layer_tail_flops(c)) / a)


def fit_exponent(x: list[float], y: list[float]) -> float:
    """Slope of log y against log x (least squares): y ~ x^slope."""
    lx, ly = np.log(np.asarray(x, dtype=float)), np.log(np.asarray(y, dtype=float))
    return float(np.polyfit(lx, ly, 1)[0])


@dataclass
class CacheRun:
    """One generation: per decode step, measured time and counted FLOPs."""

    kv_cache: bool
    tokens: list[int]
    step_ms: list[float]  # decode steps only (the prefill is the same with or without the cache)
    flops_linear: list[float]
    flops_attention: list[float]

    @property
    def cumulative_ms(self) -> list[float]:
        return list(np.cumsum(self.step_ms))

    @property
    def cumulative_flops(self) -> list[float]:
        return list(np.cumsum(np.add(self.flops_linear, self.flops_attention)))


def seconds_left(
    prefill_ms: float | None, on_ms: list[float], off_ms: list[float], prompt_len: int, max_new_tokens: int
) -> float | None:
    """The rest of both runs' time, at t(step) = t_step + (rows − 1) × t_row: t_step is a cached decode
    step (one row), and a step without the cache computes all L + i rows of its context. t_row comes
    from the no-cache steps measured so far, or before them from the prefill (L rows at once, the same
    kind of work). None until a cached step and one of those are measured."""
    if not on_ms:
        return None
    t_step = float(np.median(on_ms))
    rows = [prompt_len + i for i in range(max_new_tokens)]  # rows − 1 of each no-cache decode step
    if len(off_ms) >= 3:
        t_row = (sum(off_ms) - len(off_ms) * t_step) / max(sum(rows[: len(off_ms)]), 1)
    elif prefill_ms is not None and prompt_len > 1:
        t_row = (prefill_ms - t_step) / (prompt_len - 1)
    else:
        return None
    t_row = max(t_row, 0.0)
    left_on = (max_new_tokens - len(on_ms)) * t_step
    left_off = sum(t_step + r * t_row for r in rows[len(off_ms) :])
    return (left_on + left_off) / 1e3


def run_with_and_without_cache(
    model, tokenizer, prompt_ids: list[int], max_new_tokens: int, progress=None, finished=None
) -> dict[bool, CacheRun]:
    """Greedy generation of max_new_tokens twice, KV cache on and off. progress(fraction, seconds
    left or None) after each step; finished(run) as each of the two runs ends (its curve can be drawn)."""
    runs, prefill_ms, times = {}, None, {True: [], False: []}
    total = 2 * max_new_tokens
    for n, kv in enumerate((True, False)):
        engine = Engine(model, tokenizer, EngineConfig(kv_cache=kv, probe_memory=False))
        engine.add_request(prompt_ids, SamplingParams(max_new_tokens=max_new_tokens, ignore_eos=True))
        for i, event in enumerate(engine.stream()):
            if event.step is not None and event.step.phase == "decode":
                times[kv].append(event.step.ms)
            elif event.step is not None and kv:
                prefill_ms = event.step.ms
            if progress:
                progress(
                    (n * max_new_tokens + i + 1) / total,
                    seconds_left(prefill_ms, times[True], times[False], len(prompt_ids), max_new_tokens),
                )
        decode = [s for s in engine.trace.steps if s.phase == "decode"]
        runs[kv] = CacheRun(
            kv,
            engine.trace.requests[0].output_token_ids,
            [s.ms for s in decode],
            [s.flops_linear for s in decode],
            [s.flops_attention for s in decode],
        )
        if finished:
            finished(runs[kv])
    return runs


def theory_sums(prompt_len: int, num_steps: int) -> tuple[list[int], list[int]]:
    """Cumulative Σ(L+t) and Σ(L+t)² for t = 1..N: the document's with/without-cache curves."""
    ctx = np.arange(prompt_len + 1, prompt_len + num_steps + 1, dtype=np.int64)
    return list(np.cumsum(ctx)), list(np.cumsum(ctx**2))


@dataclass
class ShapeRow:
    step: int
    phase: str
    tokens_in: int  # T
    context: int  # C, keys attended = KV length after the step
    embedding: list[int]
    q: list[int]
    k: list[int]
    v: list[int]
    scores: list[int]
    scores_per_head: list[int]
    kv_cache: list[int]
    hidden_out: list[int]
    last_position: list[int]
    logits: list[int]


def shape_table(c: ModelConfig, prompt_len: int, max_new_tokens: int, kv_cache: bool = True) -> list[ShapeRow]:
    """Every tensor shape of the worked example, step by step, by arithmetic (batch 1)."""
    if prompt_len <= 0 or max_new_tokens <= 0:
        raise LabError("The prompt and max_new_tokens must both be at least 1.")
    rows = []
    for step in range(max_new_tokens):
        context = prompt_len + step
        T = context if (step == 0 or not kv_cache) else 1
        rows.append(
            ShapeRow(
                step=step,
                phase="prefill" if step == 0 else "decode",
                tokens_in=T,
                context=context,
                embedding=[1, T, c.hidden_size],
                q=[1, c.num_heads, T, c.head_dim],
                k=[1, c.num_kv_heads, context, c.head_dim],
                v=[1, c.num_kv_heads, context, c.head_dim],
                scores=[1, c.num_heads, T, context],
                scores_per_head=[T, context],
                kv_cache=[c.num_layers, 2, context, c.num_kv_heads, c.head_dim],
                hidden_out=[1, T, c.hidden_size],
                last_position=[1, c.hidden_size],
                logits=[1, c.vocab_size],
            )
        )
    return rows


def step_flops_split(c: ModelConfig, context: int, kv_cache: bool) -> tuple[float, float]:
    """(linear, attention) FLOPs of the decode step that ends with `context` tokens in the cache."""
    # the cost model's own count (FLOPs do not depend on the element size passed): one token against the
    # cache, or the whole context fed again, its last token sampled
    cost = step_cost(c, [SeqWork(1 if kv_cache else context, context)], dtype_bytes=4)
    return cost.flops_linear, cost.flops_attention
