"""Projected TTFT, TPOT and KV capacity of any ModelConfig on a GPU (or any device with two ceilings).

Formulas (shown on the roofline page next to the numbers), with e_c and e_b the efficiency factors
(achievable / datasheet peak) for compute and bandwidth:
  TTFT(L)      = FLOPs(prefill of L) / (e_c x peak FLOP/s) + weight bytes / (e_b x bandwidth)
  TPOT(B, C)   = max(bytes(decode step) / (e_b x bandwidth), FLOPs(decode step) / (e_c x peak FLOP/s))
                 for B sequences each attending to C keys; bytes = weights + B C KV + B new KV
  KV capacity  = floor((memory x usable fraction - weights) / (C x KV bytes per token))
                 KV bytes per token = 2 x layers x kv_heads x head_dim x KV dtype bytes
Prefill streams the weights once while its GEMMs run near the compute roof, so its time is the
compute time plus one weight read; decode is a max because its reads and FLOPs overlap.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.config import ModelConfig
from engine.errors import LabError
from engine.observe.costmodel import decode_cost, layer_weight_bytes, prefill_cost

TERA, GIGA = 1e12, 1e9


@dataclass(frozen=True)
class GpuSpec:
    name: str
    peak_flops_per_s: float  # dense FP16/BF16 tensor-core rate (no 2:4 sparsity)
    bytes_per_s: float  # memory bandwidth
    memory_bytes: float
    source: str


# Datasheet numbers (dense, i.e. half the "with sparsity" figure NVIDIA prints first):
GPU_PRESETS: dict[str, GpuSpec] = {
    g.name: g
    for g in [
        # NVIDIA A100 Tensor Core GPU datasheet (2021): BF16/FP16 tensor 312 TFLOPS (624 with sparsity);
        # A100 80GB SXM: 80 GB HBM2e at 2,039 GB/s.
        GpuSpec(
            "A100 80GB SXM", 312 * TERA, 2039 * GIGA, 80e9, "NVIDIA A100 datasheet: 312 TFLOPS BF16, 2,039 GB/s, 80 GB"
        ),
        # NVIDIA H100 Tensor Core GPU datasheet: H100 SXM BF16/FP16 tensor 1,979 TFLOPS with sparsity
        # (989 dense; 989.4 in the H100 whitepaper), 80 GB HBM3 at 3.35 TB/s.
        GpuSpec(
            "H100 SXM", 989 * TERA, 3350 * GIGA, 80e9, "NVIDIA H100 datasheet: 989 TFLOPS BF16 dense, 3.35 TB/s, 80 GB"
        ),
        # NVIDIA H200 Tensor Core GPU datasheet: H200 SXM BF16/FP16 1,979 TFLOPS with sparsity (989 dense),
        # 141 GB HBM3e at 4.8 TB/s.
        GpuSpec(
            "H200 SXM", 989 * TERA, 4800 * GIGA, 141e9, "NVIDIA H200 datasheet: 989 TFLOPS BF16 dense, 4.8 TB/s, 141 GB"
        ),
        # NVIDIA Ada Lovelace architecture whitepaper, GeForce RTX 4090: peak FP16/BF16 tensor TFLOPS with
        # FP32 accumulate 165.2 (330.4 with sparsity), 24 GB GDDR6X at 1,008 GB/s.
        GpuSpec(
            "RTX 4090",
            165.2 * TERA,
            1008 * GIGA,
            24e9,
            "NVIDIA Ada whitepaper: 165.2 TFLOPS FP16 (FP32 acc.), 1,008 GB/s, 24 GB",
        ),
    ]
}

KV_DTYPE_BYTES = {"fp16": 2, "fp8": 1, "int8": 1}
DEFAULT_EFFICIENCY = 0.7  # a round achievable fraction of datasheet peak; see docs/roofline.md for how it compares


def _check_efficiency(*values: float) -> None:
    for e in values:
        if not 0 < e <= 1:
            raise LabError(f"An efficiency factor is achievable / peak, between 0 (exclusive) and 1; got {e}.")


@dataclass
class TtftPrediction:
    compute_s: float
    weight_read_s: float
    flops: float
    weight_bytes: float

    @property
    def seconds(self) -> float:
        return self.compute_s + self.weight_read_s


@dataclass
class TpotPrediction:
    memory_s: float
    compute_s: float
    flops: float
    bytes_moved: float

    @property
    def seconds(self) -> float:
        return max(self.memory_s, self.compute_s)

    @property
    def bound(self) -> str:
        return "memory" if self.memory_s >= self.compute_s else "compute"


def predict_ttft(
    c: ModelConfig,
    prompt_len: int,
    peak_flops_per_s: float,
    bytes_per_s: float,
    dtype_bytes: int = 2,
    eff_compute: float = DEFAULT_EFFICIENCY,
    eff_bandwidth: float = DEFAULT_EFFICIENCY,
) -> TtftPrediction:
    _check_efficiency(eff_compute, eff_bandwidth)
    cost = prefill_cost(c, prompt_len, dtype_bytes)
    weights = layer_weight_bytes(c, dtype_bytes)
    return TtftPrediction(
        cost.flops / (eff_compute * peak_flops_per_s), weights / (eff_bandwidth * bytes_per_s), cost.flops, weights
    )


def predict_tpot(
    c: ModelConfig,
    batch: int,
    context_len: int,
    peak_flops_per_s: float,
    bytes_per_s: float,
    dtype_bytes: int = 2,
    kv_dtype_bytes: int | None = None,
    eff_compute: float = DEFAULT_EFFICIENCY,
    eff_bandwidth: float = DEFAULT_EFFICIENCY,
) -> TpotPrediction:
    _check_efficiency(eff_compute, eff_bandwidth)
    cost = decode_cost(c, batch, context_len, dtype_bytes, kv_dtype_bytes)
    return TpotPrediction(
        cost.bytes_moved / (eff_bandwidth * bytes_per_s),
        cost.flops / (eff_compute * peak_flops_per_s),
        cost.flops,
        cost.bytes_moved,
    )


@dataclass
class KvCapacity:
    weight_bytes: float
    free_bytes: float  # usable memory left for the KV cache after the weights
    bytes_per_seq: float
    num_seqs: int  # concurrent sequences of the given context that fit (0: not even the weights fit)


def kv_capacity(
    c: ModelConfig,
    memory_bytes: float,
    context_len: int,
    dtype_bytes: int = 2,
    kv_dtype_bytes: int = 2,
    usable_fraction: float = 0.9,
) -> KvCapacity:
    """How many sequences of `context_len` tokens fit in the KV cache beside the weights. The usable
    fraction leaves room for activations and the CUDA context (vLLM's gpu_memory_utilization, 0.9)."""
    if context_len < 1:
        raise LabError(f"The context must be at least 1 token, got {context_len}.")
    _check_efficiency(usable_fraction)
    weights = c.num_params * dtype_bytes
    free = memory_bytes * usable_fraction - weights
    per_seq = context_len * c.kv_bytes_per_token(kv_dtype_bytes)
    return KvCapacity(weights, free, per_seq, max(0, int(free // per_seq)))


# Published measurements the projection is checked against (docs/roofline.md cites each):
# gpt-fast README, "Llama-2-7B Base 104.9 tok/s" on an A100-80GB (power-limited 330 W), batch 1, 5-token prompt;
# TensorRT-LLM docs/source/performance.md (v0.5 low-latency table), A100 FP16, LLaMA 7B, batch 1:
# 1st-token latency 16 ms at 128 input tokens and 133 ms at 2048.
PUBLISHED = [
    ("gpt-fast", "Llama-2-7B", "A100 80GB SXM", "TPOT", 5, 1e3 / 104.9),
    ("TensorRT-LLM v0.5", "LLaMA-7B", "A100 80GB SXM", "TTFT", 128, 16.0),
    ("TensorRT-LLM v0.5", "LLaMA-7B", "A100 80GB SXM", "TTFT", 2048, 133.0),
]
