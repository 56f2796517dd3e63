"""Linear layers with weights pre-packed for oneDNN on CPU.

Why: on this kind of CPU, MKL's path behind `F.linear` reads weights at ~17 GB/s for one token
(a GEMV) and runs prefill GEMMs at ~155 GFLOP/s, while oneDNN's packed inner product reaches
~39 GB/s and ~450 GFLOP/s on the same matrices (`bench/linear_kernels.py`). Decode is a stream
of GEMVs over every weight (C7), so the kernel choice sets TPOT. On CUDA, or where oneDNN cannot
pack (fp16 without AVX-512-FP16), it falls back to `F.linear`.
"""
from __future__ import annotations

import torch
import torch.nn.functional as F


def _can_pack(weight: torch.Tensor) -> bool:
    return (weight.device.type == "cpu" and weight.dtype in (torch.float32, torch.bfloat16)
            and torch.backends.mkldnn.is_available() and hasattr(torch.ops.mkldnn, "_linear_pointwise"))


class Linear:
    """y = x W^T + b for x (N, in). Holds W (out, in) packed when it can, else as is."""

    def __init__(self, weight: torch.Tensor, bias: torch.Tensor | None = None, pack: bool = True):
        self.out_features, self.in_features = weight.shape
        self.bias = bias
        self.weight: torch.Tensor | None = weight
        self.packed: torch.Tensor | None = None
        if pack and _can_pack(weight):
            try:
                self.packed = torch.ops.mkldnn._reorder_linear_weight(weight, None)
                self.weight = None  # the packed copy replaces it: no second copy in memory
            except RuntimeError:  # an unsupported ISA or dtype: keep the plain path
                self.packed = None

    def __call__(self, x: torch.Tensor) -> torch.Tensor:
        if self.packed is not None:
            return torch.ops.mkldnn._linear_pointwise(x, self.packed, self.bias, "none", [], "")
        return F.linear(x, self.weight, self.bias)

    @property
    def num_bytes(self) -> int:
        t = self.packed if self.packed is not None else self.weight
        b = self.bias.numel() * self.bias.element_size() if self.bias is not None else 0
        return self.out_features * self.in_features * t.element_size() + b
