"""C16's measurement: the naive Hugging Face loop that keeps appending to one cache, against the same
requests with a fresh cache (what generate() does) and through the engine.

The leak is bytes, counted: the naive loop's cache after each request, the engine's KV after each.
Whether it slows each token is a timing, and a paired one: the naive loop's last request (attending
to every earlier request's tokens) and the same request with a fresh cache take their decode steps in
turn, token by token, in alternating order, so both see the same load; the slowdown is the median of
the paired ratios with its interval (lab/pairing.py).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import torch

from lab.busy import LoadMeter
from lab.memory_lab import HF_STEP_COST, LeakPoint, engine_loop
from lab.pairing import RatioInterval, ratio_interval, round_order


@dataclass
class LeakRun:
    naive: list[LeakPoint]  # per request: the one cache's bytes afterwards
    engine: list[LeakPoint]  # per request: the engine's KV bytes afterwards
    slowdown: RatioInterval  # the naive loop's last request ÷ a fresh cache, decode step by step


def leak_work(requests: int, new_tokens: int) -> float:
    """The leak's work in decode steps: the naive loop, the fresh cache's request, the engine's loop."""
    return (requests + 1) * new_tokens * HF_STEP_COST + requests * new_tokens


class _Stepper:
    """One Hugging Face cache fed one token (or a prompt) at a time, each step timed."""

    def __init__(self, hf_model, cache) -> None:
        self.model, self.cache = hf_model, cache

    def step(self, ids: torch.Tensor) -> tuple[torch.Tensor, float]:
        start = time.perf_counter()
        logits = self.model(input_ids=ids, cache=self.cache, use_cache=True).logits
        nxt = logits[:, -1:].argmax(-1)
        return nxt, (time.perf_counter() - start) * 1e3


def _request(stepper: _Stepper, ids: torch.Tensor, new_tokens: int) -> float:
    """A whole request on the stepper's cache; its ms per token."""
    total = 0.0
    for _ in range(new_tokens):
        ids, ms = stepper.step(ids)
        total += ms
    return total / new_tokens


def _paired_last(naive: _Stepper, fresh: _Stepper, ids: torch.Tensor, new_tokens: int) -> tuple[list, list, float]:
    """The last request on the leaking cache and on a fresh one, a step of each in turn (the order
    alternating); the prompt steps are not paired (they are not decode steps). Returns both lanes'
    decode step times and the naive loop's ms per token."""
    a, b = {"naive": ids, "fresh": ids}, {"naive": [], "fresh": []}
    steppers = {"naive": naive, "fresh": fresh}
    for r in range(new_tokens):
        for name in round_order(["naive", "fresh"], r):
            a[name], ms = steppers[name].step(a[name])
            b[name].append(ms)
    return b["naive"][1:], b["fresh"][1:], sum(b["naive"]) / new_tokens


def measure_leak(
    hf_model,
    model,
    tokenizer,
    prompts: list[str],
    new_tokens: int,
    within: Callable[[float], None] | None = None,
) -> LeakRun:
    """The naive loop over `prompts` on one cache (its last request paired with a fresh cache), then the
    engine over the same prompts. within(fraction) after each request."""
    from transformers import DynamicCache

    points, total = [], len(prompts) + 2
    with torch.inference_mode():
        naive = _Stepper(hf_model, DynamicCache())
        meter = LoadMeter().start()
        for i, prompt in enumerate(prompts):
            ids = torch.tensor([tokenizer(prompt).input_ids])
            if i < len(prompts) - 1:
                ms = _request(naive, ids, new_tokens)
            else:
                mine, theirs, ms = _paired_last(naive, _Stepper(hf_model, DynamicCache()), ids, new_tokens)
            layers = naive.cache.layers
            held = sum(t.numel() * t.element_size() for layer in layers for t in (layer.keys, layer.values))
            points.append(LeakPoint(i, None, held, naive.cache.get_seq_length(), ms))
            if within:
                within((i + 1 + (i == len(prompts) - 1)) / total)
        slowdown = ratio_interval(mine, theirs, 0, meter.stop())
    engine = engine_loop(model, tokenizer, prompts, new_tokens, False)
    if within:
        within(1.0)
    return LeakRun(points, engine, slowdown)
