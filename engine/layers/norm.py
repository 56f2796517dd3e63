"""RMSNorm, as Llama's."""

from __future__ import annotations

import torch
import torch.nn.functional as F

from engine.kernels import native


def rms_norm(x: torch.Tensor, weight: torch.Tensor, eps: float) -> torch.Tensor:
    """As HF's LlamaRMSNorm: normalise in fp32, cast back, then scale. float32 on the CPU runs on our
    C kernel where it is built (one pass; torch's is a dozen small operators)."""
    if x.dtype == torch.float32:
        y = native.rms_norm(x, weight, eps)
        return y if y is not None else F.rms_norm(x, (x.shape[-1],), weight, eps)
    xf = x.float()
    xf = xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps)
    return weight * xf.to(x.dtype)
