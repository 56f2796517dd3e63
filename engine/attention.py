"""Attention over the paged KV cache: the `eager` backend (materialises scores, can capture
them for the UI) and the `sdpa` backend (PyTorch's fused kernel, never materialises them).

Two code paths, as in the source document: `prefill_attention` for a chunk of T new tokens
attending to P cached tokens plus themselves (an L x L causal matrix when P = 0, C2), and
`decode_attention` for one new token attending to the whole cache (a 1 x L row, C6).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import torch
import torch.nn.functional as F

BACKENDS = ("eager", "sdpa")


@dataclass
class AttentionCapture:
    """Collects attention probabilities from the eager backend, per layer, within a byte budget.

    probs[layer] is a float16 tensor (heads, T, C) for the sequence being captured; only the
    first segment of a batch (the one the UI shows) is captured.
    """
    layers: list[int] | None = None  # None: every layer
    max_bytes: int = 64 * 2**20
    probs: dict[int, torch.Tensor] = field(default_factory=dict)
    truncated: bool = False
    _used: int = 0

    def wants(self, layer: int) -> bool:
        return self.layers is None or layer in self.layers

    def add(self, layer: int, p: torch.Tensor) -> None:
        size = p.numel() * 2
        if self._used + size > self.max_bytes:
            self.truncated = True
            return
        self._used += size
        self.probs[layer] = p.detach().to("cpu", torch.float16)


def _causal_mask(num_tokens: int, context_len: int, device) -> torch.Tensor:
    """(T, C) bool: query i (at absolute position P + i) sees keys 0..P + i."""
    prefix = context_len - num_tokens
    q_pos = torch.arange(num_tokens, device=device)[:, None] + prefix
    k_pos = torch.arange(context_len, device=device)[None, :]
    return k_pos <= q_pos


def _eager(q, k, v, mask, scale, capture: AttentionCapture | None, layer: int) -> torch.Tensor:
    """q (1, H, T, D); k, v (1, n_kv, C, D). Grouped-query attention without copying K or V."""
    _, num_heads, T, D = q.shape
    num_kv = k.shape[1]
    group = num_heads // num_kv
    qg = q.reshape(num_kv, group * T, D)  # heads of one KV group stacked along the query axis
    scores = torch.matmul(qg, k[0].transpose(1, 2)) * scale  # (n_kv, group*T, C): the materialised matrix
    if mask is not None:
        scores = scores.masked_fill(~mask.repeat(group, 1), float("-inf"))
    probs = torch.softmax(scores, dim=-1, dtype=torch.float32).to(q.dtype)
    if capture is not None and capture.wants(layer):
        capture.add(layer, probs.reshape(num_heads, T, -1))
    return torch.matmul(probs, v[0]).reshape(1, num_heads, T, D)


def _sdpa(q, k, v, mask, scale) -> torch.Tensor:
    """q (1, H, T, D); k, v (1, n_kv, C, D). The fused kernel; scores are never materialised."""
    return F.scaled_dot_product_attention(q, k, v, attn_mask=mask, scale=scale, enable_gqa=True)


def prefill_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, backend: str, scale: float,
                      capture: AttentionCapture | None = None, layer: int = 0) -> torch.Tensor:
    """q (1, H, T, D) for T new tokens; k, v (1, n_kv, C, D) with C = cached prefix + T: the
    T x C causal score matrix (L x L when nothing is cached). Returns (1, H, T, D)."""
    T, C = q.shape[2], k.shape[2]
    if backend == "sdpa" and T == C:  # plain causal prefill: the kernel masks by itself
        return F.scaled_dot_product_attention(q, k, v, is_causal=True, scale=scale, enable_gqa=True)
    mask = _causal_mask(T, C, q.device) if T > 1 else None
    if backend == "eager":
        return _eager(q, k, v, mask, scale, capture, layer)
    return _sdpa(q, k, v, mask, scale)


def decode_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, backend: str, scale: float,
                     capture: AttentionCapture | None = None, layer: int = 0) -> torch.Tensor:
    """q (1, H, 1, D) for the one new token; k, v (1, n_kv, C, D): the whole cache. A 1 x C row per head."""
    if backend == "eager":
        return _eager(q, k, v, None, scale, capture, layer)
    return _sdpa(q, k, v, None, scale)
