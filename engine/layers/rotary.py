"""Rotary position embeddings (RoPE) as Hugging Face Llama checkpoints use them, with their scaling."""

from __future__ import annotations

import math

import torch

from engine.config import ModelConfig
from engine.kernels import native


def rope_inv_freq(config: ModelConfig) -> torch.Tensor:
    """Inverse frequencies, with the model's RoPE scaling (linear or llama3), as transformers does."""
    dim = config.head_dim
    inv_freq = 1.0 / (config.rope_theta ** (torch.arange(0, dim, 2, dtype=torch.int64).float() / dim))
    scaling = config.rope_scaling or {}
    kind = scaling.get("rope_type", "default")
    if kind == "linear":
        inv_freq = inv_freq / scaling["factor"]
    elif kind == "llama3":
        factor, low, high = scaling["factor"], scaling["low_freq_factor"], scaling["high_freq_factor"]
        old_ctx = scaling["original_max_position_embeddings"]
        low_wavelen, high_wavelen = old_ctx / low, old_ctx / high
        wavelen = 2 * math.pi / inv_freq
        scaled = torch.where(wavelen > low_wavelen, inv_freq / factor, inv_freq)
        smooth = (old_ctx / wavelen - low) / (high - low)
        smoothed = (1 - smooth) * scaled / factor + smooth * scaled
        is_medium = ~(wavelen < high_wavelen) * ~(wavelen > low_wavelen)
        inv_freq = torch.where(is_medium, smoothed, scaled)
    return inv_freq


def apply_rope(x: torch.Tensor, cos: torch.Tensor, sin_rot: torch.Tensor) -> torch.Tensor:
    """x (N, heads, D); cos, sin_rot (N, 1, D). The rotate-half form of HF Llama checkpoints,
    x * cos + [-x2, x1] * sin, as x * cos + roll(x) * [-sin1, sin2]: the sign lives in the table,
    so it is 3 ops instead of 7; float32 on the CPU runs it in one C pass where built."""
    y = native.rope(x, cos, sin_rot)
    return y if y is not None else torch.addcmul(x * cos, x.roll(x.shape[-1] // 2, -1), sin_rot)
