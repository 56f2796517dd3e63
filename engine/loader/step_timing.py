"""Which path an all-decode step takes on this machine, measured on the loaded model: the one-call C
step against the torch forward with each layer on the kernel that won its own timing
(engine/models/decode_path.py). Timing each layer alone cannot decide it: a torch kernel that wins a
layer by a few microseconds sends every token through the torch forward, which pays milliseconds of
Python and dispatch that the one-call step does not.

The two paths run interleaved, a step each in turn (the order alternating), on one sequence at a
context of CONTEXT tokens, so both see the same load; the faster median is kept (the one-call step on
a tie). Measured once per machine and model shape, and cached beside the kernel plan."""

from __future__ import annotations

import statistics
import time
from dataclasses import asdict
from pathlib import Path

import torch

from engine.kernels import native
from engine.layers.kernel_plan import KernelPlan, StepChoice
from engine.layers.kv_cache import KVCache
from engine.models.decode_path import C_KERNEL, STEP_PRODUCTS, use_path
from engine.models.llama import ForwardBatch, Segment
from engine.observe.machine import machine_key, read_cache, write_cache

CONTEXT = 128  # the keys each timed step attends to: a short chat's
ROUNDS = 12  # timed steps of each path (after WARMUP of each)
WARMUP = 2
BLOCK_SIZE = 16


def can_choose(plan: KernelPlan | None, dtype: torch.dtype, device: torch.device, fmt: str) -> bool:
    """Whether there are two paths to choose between: a measured plan (not forced: PDLAB_KERNELS says
    which kernel, and so which path), float32 on the CPU, a format with a torch path, the C kernels built."""
    return (
        plan is not None
        and plan.source in ("measured", "cached")
        and device.type == "cpu"
        and dtype == torch.float32
        and fmt in C_KERNEL
        and native.library() is not None
    )


def step_key(config, plan: KernelPlan, dtype: torch.dtype, fmt: str) -> str:
    """The cache key of a choice: machine, dtype, format, C build, the model's shape and its layers' own
    decode kernels (a new per-layer plan asks the question again)."""
    own = " ".join(f"{name}:{plan.kernels(shape)[0]}" for name, shape in zip(STEP_PRODUCTS, product_shapes(config)))
    flags = native.extra_flags()
    build = f" | cc {' '.join(flags)}" if flags else ""
    c = config
    shape = f"{c.num_layers} layers {c.hidden_size} h{c.num_heads}/{c.num_kv_heads}x{c.head_dim} ffn {c.ffn_size}"
    return f"{machine_key('cpu')} | {str(dtype).removeprefix('torch.')} | {fmt}{build} | decode step | {shape} | {own}"


def product_shapes(config) -> list[tuple[int, int]]:
    """(out, in) of a layer's qkv, o, gate_up and down products, in STEP_PRODUCTS' order."""
    c = config
    return [(c.q_size + 2 * c.kv_size, c.hidden_size), (c.hidden_size, c.q_size), (2 * c.ffn_size, c.hidden_size),
            (c.hidden_size, c.ffn_size)]  # fmt: skip


def cached_choice(cache: Path | None, key: str) -> StepChoice | None:
    entry = read_cache(cache).get(key) if cache else None
    try:
        return StepChoice(**{**entry, "source": "cached"}) if entry else None
    except (TypeError, ValueError):  # an older or damaged entry: measure again
        return None


def store_choice(cache: Path | None, key: str, choice: StepChoice) -> None:
    if cache:
        stored = read_cache(cache)
        stored[key] = {k: v for k, v in asdict(choice).items() if k != "source"}
        write_cache(cache, stored)


def _one_decode_step(model, context: int) -> tuple[ForwardBatch, KVCache]:
    """A batch of one decode token at position context - 1, its context in a KV cache of its own."""
    blocks = -(-context // BLOCK_SIZE)
    kv = KVCache(model.config, blocks, BLOCK_SIZE, model.dtype, model.device)
    kv.data.normal_()
    dev = model.device
    batch = ForwardBatch(
        input_ids=torch.tensor([1], device=dev),
        positions=torch.tensor([context - 1], device=dev),
        write_slots=torch.tensor([context - 1], device=dev),
        write_start=context - 1,
        segments=[Segment(0, 1, context, 0, None)],
        logits_rows=torch.tensor([0], device=dev),
        max_position=context - 1,
    )
    return batch, kv


def time_paths(model, context: int = CONTEXT, rounds: int = ROUNDS) -> StepChoice:
    """Both paths' median step time (ms), interleaved; the model is left on the one-call step."""
    batch, kv = _one_decode_step(model, context)

    def step_ms(path: str) -> float:
        use_path(model, path)
        start = time.perf_counter()
        model.forward(batch, kv, "sdpa")
        return (time.perf_counter() - start) * 1e3

    for path in ("fused", "layers") * WARMUP:
        step_ms(path)
    times = {"fused": [], "layers": []}
    for r in range(rounds):
        for path in ("fused", "layers") if r % 2 == 0 else ("layers", "fused"):
            times[path].append(step_ms(path))
    use_path(model, "fused")
    fused, layers = statistics.median(times["fused"]), statistics.median(times["layers"])
    return StepChoice("fused" if fused <= layers else "layers", fused, layers, rounds, context)
