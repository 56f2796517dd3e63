"""Kernels chosen by measurement: each linear shape of the model, timed with each candidate kernel at
decode size and at prefill size on this machine, and the fastest used (engine/layers/linear.py runs
the plan, engine/layers/kernel_plan.py holds it).

Decode-sized calls (1 row) stream the weight from memory, so they are timed over enough copies of
it to overflow the caches, as 30 layers of weights do in a real step; prefill-sized calls
(PREFILL_ROWS rows) are GEMMs and are timed on one copy. A kernel within TIE of the best is taken
when it lets the shape keep one copy of its weight. The choice is measured once per machine (CPU,
ISA, threads, torch, dtype, shape) and cached as JSON beside the converted models
(engine/paths.py says where).

A cached choice that lacks a candidate runnable now (one added since, or a C compiler installed since:
engine/kernels/native.py) is measured again.

PDLAB_KERNELS=linear, =packed or =gemv forces one kernel on float weights (tests check each against
HF); =int8pack, =dequant or =int8gemv, on int8 weights (engine/layers/quant.py), which choose among those
the same way. A kernel of one family leaves the other's weights to the measurement.
"""

from __future__ import annotations

import os
import statistics
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

import torch

from engine.errors import LabError
from engine.kernels import native
from engine.layers.kernel_plan import PREFILL_ROWS, KernelPlan, ShapeChoice
from engine.layers.linear import KERNELS, PREPARE, pack, run_kernel
from engine.layers.quant import INT8_KERNELS, int8_kernel, pack_int8, quantize_int8
from engine.observe.machine import machine_key, read_cache, write_cache
from engine.observe.other_work import OtherWork

FORCE_ENV = "PDLAB_KERNELS"
STREAM_BYTES = 96 << 20  # decode timing reads at least this much per pass: beyond the caches
MAX_COPIES = 64  # tiny weights: the caches hold a tiny model whole anyway
TIE = 0.05
REPEATS = 5
GIVE_UP = 2.0  # a candidate this many times slower than the fastest on its first timed call is out


def _call_ms(fn) -> float:
    start = time.perf_counter()
    fn()
    return (time.perf_counter() - start) * 1e3


def _race(calls: dict[str, Callable[[], object]], repeats: int) -> dict[str, float]:
    """ms per call of each candidate. Each gets a warm-up and one timed call; only those within
    GIVE_UP of the fastest go on to a median of `repeats` (a kernel twice behind needs no median to
    lose, and the slow ones are where the time goes: int8 dequant on the LM head takes seconds)."""
    first = {}
    for name, fn in calls.items():
        fn()  # warm-up: oneDNN builds its primitive, the caches fill
        first[name] = _call_ms(fn)
    best = min(first.values())
    return {
        name: first[name]
        if first[name] > GIVE_UP * best
        else statistics.median([first[name]] + [_call_ms(fn) for _ in range(repeats - 1)])
        for name, fn in calls.items()
    }


def _pack_int8(weight: torch.Tensor):
    return pack_int8(*quantize_int8(weight), weight.dtype)


def _candidates(fmt: str) -> dict[str, tuple[Callable, Callable]]:
    """Kernel name -> (prepare(weight) -> what it runs on or None, run(x, prepared))."""
    if fmt == "int8":
        return {
            k: (_pack_int8, lambda x, w: native.gemv(x, w))
            if k == "int8gemv"
            else (quantize_int8, lambda x, qs, k=k: int8_kernel(k, x, *qs))
            for k in sorted(INT8_KERNELS)
        }
    return {k: (PREPARE[k], lambda x, w, k=k: run_kernel(k, x, w, None)) for k in KERNELS}


def runnable(dtype: torch.dtype, fmt: str = "native") -> set[str]:
    """The candidates that can run here on weights of this dtype and format."""
    probe = torch.ones(16, 16, dtype=dtype)
    return {k for k, (prepare, _) in _candidates(fmt).items() if prepare(probe) is not None}


def time_shape(out_features: int, in_features: int, dtype: torch.dtype, fmt: str = "native") -> ShapeChoice:
    """Time every candidate on random weights of this shape; pick per regime."""
    weight = torch.randn(out_features, in_features, dtype=dtype)
    stored_bytes = weight.numel() * (1 if fmt == "int8" else weight.element_size())
    copies = min(MAX_COPIES, max(1, -(-STREAM_BYTES // stored_bytes)))
    stream = [weight] + [torch.randn_like(weight) for _ in range(copies - 1)]
    one, many = torch.randn(1, in_features, dtype=dtype), torch.randn(PREFILL_ROWS, in_features, dtype=dtype)
    decode_calls, prefill_calls, prepared = {}, {}, {}
    for kernel, (prepare, run) in _candidates(fmt).items():
        if prepare not in prepared:  # int8pack and dequant run on the same quantised weights
            prepared[prepare] = [prepare(w) for w in stream]
        ws = prepared[prepare]
        if any(w is None for w in ws):
            continue  # oneDNN or the C kernel cannot take this dtype here
        decode_calls[kernel] = lambda run=run, ws=ws: [run(one, w) for w in ws]
        prefill_calls[kernel] = lambda run=run, ws=ws: run(many, ws[0])
    decode_ms = {k: ms / copies for k, ms in _race(decode_calls, REPEATS).items()}
    prefill_ms = _race(prefill_calls, 3)
    decode, prefill = _best(decode_ms), _best(prefill_ms)
    if decode != prefill:  # one copy of the weight if either regime can have the other's kernel for ~free
        if decode_ms[prefill] <= (1 + TIE) * decode_ms[decode]:
            decode = prefill
        elif prefill_ms[decode] <= (1 + TIE) * prefill_ms[prefill]:
            prefill = decode
    return ShapeChoice(out_features, in_features, decode, prefill, decode_ms, prefill_ms)


def _best(ms: dict[str, float]) -> str:
    return min(ms, key=ms.get)


# --- the plan of one model, cached per machine -------------------------------------------------------


def _key(shape: tuple[int, int], dtype: torch.dtype, fmt: str = "native") -> str:
    weights = "" if fmt == "native" else f" | {fmt}"  # native keys stay as earlier caches wrote them
    flags = native.extra_flags()
    build = f" | cc {' '.join(flags)}" if flags else ""  # another build, other timings
    return f"{machine_key('cpu')} | {str(dtype).removeprefix('torch.')}{weights}{build} | {shape[0]}x{shape[1]}"


def forced_kernel(fmt: str = "native") -> str | None:
    """The kernel PDLAB_KERNELS forces on weights of this format; a kernel of the other family (int8's
    on float weights, or the reverse) forces nothing here."""
    value = os.environ.get(FORCE_ENV, "").strip().lower()
    if value in ("", "auto"):
        return None
    if value not in KERNELS + INT8_KERNELS:
        raise LabError(
            f"{FORCE_ENV}={value!r}: choose auto, {' or '.join(KERNELS)} (float weights), or "
            f"{' or '.join(INT8_KERNELS)} (int8 weights)."
        )
    return value if value in (INT8_KERNELS if fmt == "int8" else KERNELS) else None


def plan_kernels(
    shapes: list[tuple[int, int]],
    dtype: torch.dtype,
    device: torch.device,
    cache: Path | None = None,
    force: str | None = None,
    fmt: str = "native",
) -> KernelPlan:
    """The kernel of every shape: forced, cached for this machine in `cache`, or measured now (0.2-2.5 s
    per shape on a 2-core CPU, up to 8 s for int8; kept only when other work left the machine alone). `fmt`: the weight format (engine/layers/quant.py); w8a8
    has one kernel."""
    if fmt == "w8a8":
        return KernelPlan("default", {}, "fbgemm")
    force = force or forced_kernel(fmt)
    if force:
        return KernelPlan("forced", {}, force)
    probe = torch.empty(1, 1, dtype=dtype, device=device)
    if device.type != "cpu" or (fmt == "native" and pack(probe) is None):
        return KernelPlan("default", {}, None if fmt == "native" else "dequant")
    stored, measured, choices = read_cache(cache) if cache else {}, False, {}
    here = runnable(dtype, fmt)
    with OtherWork() as work:  # timed beside other work, a choice is used now and measured again next load
        for shape in dict.fromkeys(tuple(s) for s in shapes):
            entry = stored.get(_key(shape, dtype, fmt))
            if entry and not here <= set(entry.get("decode_ms", {})):
                entry = None  # measured before a candidate could run here (a new kernel, a compiler since)
            try:
                choices[shape] = ShapeChoice(**entry) if entry else None
            except TypeError:  # an older cache format
                choices[shape] = None
            if choices[shape] is None:
                choices[shape] = time_shape(*shape, dtype, fmt)
                stored[_key(shape, dtype, fmt)] = asdict(choices[shape])
                measured = True
    if measured and cache and not work.busy:
        write_cache(cache, stored)
    return KernelPlan("measured" if measured else "cached", choices)


# --- int8 weights: the activation dtype that decodes fastest here -----------------------------------

INT8_ACTIVATIONS = (torch.bfloat16, torch.float32)


@dataclass(frozen=True)
class ActivationChoice:
    dtype: torch.dtype
    decode_ms: dict[str, float]  # activation dtype -> the model's int8 matmuls of one decode token (ms)

    def describe(self) -> str:
        times = ", ".join(f"{ms:.1f} ms in {name}" for name, ms in self.decode_ms.items())
        return f"int8 weights with {str(self.dtype).removeprefix('torch.')} activations, measured fastest here ({times} per token's matmuls)"


def int8_activations(counts: dict[tuple[int, int], int], cache: Path | None = None) -> ActivationChoice:
    """For int8 weights on the CPU: each activation dtype's int8 kernel plan (measured once per machine,
    cached), its decode time summed over the model's matmuls (`counts`: shape -> how many a token
    runs), and the faster dtype. bfloat16 wins where the CPU computes in it natively (AVX-512 BF16,
    AMX); float32 can win where it does not."""
    cpu = torch.device("cpu")
    totals = {}
    for dtype in INT8_ACTIVATIONS:
        plan = plan_kernels(list(counts), dtype, cpu, cache, fmt="int8")
        if plan.forced:  # one kernel for both: nothing was timed, keep the exact dtype
            return ActivationChoice(torch.float32, {})
        totals[str(dtype).removeprefix("torch.")] = sum(
            n * plan.choices[shape].decode_ms[plan.choices[shape].decode] for shape, n in counts.items()
        )
    best = min(totals, key=totals.get)
    return ActivationChoice(getattr(torch, best), totals)
