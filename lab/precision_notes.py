"""What the precision lab says beside a bfloat16 row: whether this CPU has a fast bfloat16 kernel (its
instruction set, engine/observe/machine.py), and what a GPU would show instead (lab/projection.py).

A bfloat16 weight is half a float32 one, so a memory-bound decode step should take about half the
time. On a CPU that holds only while the matrix products have a bfloat16 kernel: torch computes
them with oneDNN where the CPU has AVX-512 (BW, VL, DQ; or Arm's BF16), in hardware where it also
has AVX512-BF16 or AMX-BF16; without AVX-512 it falls back to converting every element, and a step
costs several float32 steps (measured: 528.5 ms against 53.7 ms). A GPU's tensor cores take
bfloat16 natively: there the step is the bytes' ratio.
"""

from __future__ import annotations

import platform
from dataclasses import dataclass

from engine.config import ModelConfig
from engine.observe.machine import cpu_flags, cpu_model
from lab.projection import GPU_PRESETS, predict_tpot

NATIVE = "native"  # bfloat16 dot products in hardware
CONVERTED = "converted"  # AVX-512 kernels that widen bfloat16 to float32 in registers
NONE = "none"  # no fast kernel: torch's fallback
UNKNOWN = "unknown"  # the system does not report its instruction set
BF16_FLAGS = ("avx512_bf16", "amx_bf16")
AVX512_CORE = ("avx512bw", "avx512vl", "avx512dq")
GPU = "H100 SXM"


def this_cpu() -> tuple[str, str]:
    """(this CPU's model name, its instruction-set flags) as the kernel reports them."""
    return cpu_model(), cpu_flags()


def bf16_kernel(flags: str, machine: str | None = None) -> tuple[str, list[str]]:
    """(which kernel a bfloat16 matrix product gets on a CPU with these flags, the flags that say so)."""
    have = set(flags.split())
    machine = machine or platform.machine()
    if not have:
        return UNKNOWN, []
    if machine.lower() in ("aarch64", "arm64"):
        return (NATIVE, ["bf16"]) if "bf16" in have else (NONE, [])
    native = [f for f in BF16_FLAGS if f in have]
    if native:
        return NATIVE, native
    if all(f in have for f in AVX512_CORE):
        return CONVERTED, list(AVX512_CORE)
    return NONE, sorted(f for f in have if f.startswith("avx"))[-1:]


@dataclass(frozen=True)
class GpuProjection:
    gpu: str
    float32_ms: float
    bfloat16_ms: float

    @property
    def ratio(self) -> float:
        return self.bfloat16_ms / self.float32_ms


def gpu_projection(model: ModelConfig, context: int, gpu: str = GPU) -> GpuProjection:
    """The projected decode step (batch 1) of this model on a GPU in float32 and in bfloat16 (weights
    and KV), at the default efficiency: memory-bound there, so about the bytes' ratio."""
    g = GPU_PRESETS[gpu]

    def ms(dtype_bytes: int) -> float:
        p = predict_tpot(model, 1, max(1, context), g.peak_flops_per_s, g.bytes_per_s, dtype_bytes, dtype_bytes)
        return p.seconds * 1e3

    return GpuProjection(g.name, ms(4), ms(2))


def is_bfloat16(weights: str) -> bool:
    """A configuration whose activations (and so its matrix products) run in bfloat16."""
    return "bfloat16" in weights
