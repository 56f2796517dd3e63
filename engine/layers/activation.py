"""SwiGLU's activation: SiLU(gate) × up, with the fused gate/up product where our kernel can take it."""

from __future__ import annotations

import torch
import torch.nn.functional as F

from engine.kernels import native
from engine.layers.gguf_weights import GGUFLinear
from engine.layers.linear import Linear


def silu_mul(gate_up: torch.Tensor) -> torch.Tensor:
    """SiLU(gate) * up of the fused gate/up product's (N, 2 ffn) output: one C pass where built."""
    y = native.silu_mul(gate_up)
    if y is not None:
        return y
    gate, up = gate_up.chunk(2, dim=-1)
    return F.silu(gate) * up


def swiglu(gate_up, x: torch.Tensor) -> torch.Tensor:
    """SiLU(gate) * up of x's fused gate/up product: (N, ffn). One C call where this layer runs our
    kernel for N rows (the (N, 2 ffn) product is never written: a prefill's largest activation); else
    the product, then silu_mul. The same numbers either way."""
    takes = isinstance(gate_up, (Linear, GGUFLinear)) and gate_up.bias is None
    packed = gate_up.gemv_weight(x.shape[0]) if takes else None
    y = native.gemv_silu(x, packed) if packed is not None else None
    return y if y is not None else silu_mul(gate_up(x))
