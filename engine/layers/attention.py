"""Attention over the paged KV cache: the `eager` backend (materialises scores, can capture
them for the UI) and the `sdpa` backend (a fused kernel that never materialises them: PyTorch's, or
for a float32 prefill on the CPU our C one, engine/kernels/csrc/attention.c, where it is built).

Two code paths, as in the source document: `prefill_attention` for a chunk of T new tokens
attending to P cached tokens plus themselves (an L x L causal matrix when P = 0, C2), and
`decode_attention` for one new token attending to the whole cache (a 1 x L row, C6).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import torch
import torch.nn.functional as F

from engine.kernels import native
from engine.observe.memory import SCORES, label

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


def future_mask(num_tokens: int, context_len: int, device) -> torch.Tensor:
    """(T, C) bool, True where a key is in the future of a query: query i (at absolute position
    P + i) sees keys 0..P + i. Built once per sequence per step, shared by every layer."""
    prefix = context_len - num_tokens
    q_pos = torch.arange(num_tokens, device=device)[:, None] + prefix
    k_pos = torch.arange(context_len, device=device)[None, :]
    return k_pos > q_pos


def _eager(q, k, v, mask, scale, capture: AttentionCapture | None, layer: int) -> torch.Tensor:
    """q (1, H, T, D); k, v (1, n_kv, C, D). Grouped-query attention without copying K or V.

    In fp32 every step after the matmul is in place, so exactly one H x T x C score matrix is
    alive at a time: the transient the memory lab measures against batch x heads x T x C x bytes.
    """
    _, num_heads, T, D = q.shape
    num_kv = k.shape[1]
    group = num_heads // num_kv
    qg = q.reshape(num_kv, group * T, D)  # heads of one KV group stacked along the query axis
    with label(SCORES):
        scores = torch.matmul(qg, k[0].transpose(1, 2))  # (n_kv, group*T, C): the materialised matrix
        scores.mul_(scale)
        if mask is not None:
            scores.view(num_kv, group, T, -1).masked_fill_(mask, float("-inf"))
        if scores.dtype == torch.float32:  # softmax in place
            scores.sub_(scores.amax(dim=-1, keepdim=True)).exp_()
            probs = scores.div_(scores.sum(dim=-1, keepdim=True))
        else:  # half precision: softmax in fp32 as transformers does (a transient fp32 copy)
            probs = torch.softmax(scores, dim=-1, dtype=torch.float32).to(q.dtype)
    if capture is not None and capture.wants(layer):
        capture.add(layer, probs.reshape(num_heads, T, -1))
    return torch.matmul(probs, v[0]).reshape(1, num_heads, T, D)


def _sdpa(q, k, v, mask, scale) -> torch.Tensor:
    """q (1, H, T, D); k, v (1, n_kv, C, D). The fused kernel; scores are never materialised."""
    return F.scaled_dot_product_attention(
        q, k, v, attn_mask=None if mask is None else ~mask, scale=scale, enable_gqa=True
    )


def prefill_attention(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    backend: str,
    scale: float,
    mask: torch.Tensor | None,
    capture: AttentionCapture | None = None,
    layer: int = 0,
) -> torch.Tensor:
    """q (1, H, T, D) for T new tokens; k, v (1, n_kv, C, D) with C = cached prefix + T: the
    T x C causal score matrix (L x L when nothing is cached). mask: future_mask(T, C), or None
    for sdpa when T == C (the kernel masks by itself). Returns (1, H, T, D)."""
    if backend == "sdpa":  # the mask, where given, is the same causal rule the C kernel applies
        out = native.prefill_attention(q, k, v, scale)
        if out is not None:
            return out
    if backend == "sdpa" and mask is None:
        return F.scaled_dot_product_attention(q, k, v, is_causal=True, scale=scale, enable_gqa=True)
    if backend == "eager":
        return _eager(q, k, v, mask, scale, capture, layer)
    return _sdpa(q, k, v, mask, scale)


def needs_mask(backend: str, num_tokens: int, context_len: int) -> bool:
    """Decode rows see everything; sdpa masks a whole prompt by itself (is_causal)."""
    return num_tokens > 1 and not (backend == "sdpa" and num_tokens == context_len)


def decode_attention(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    backend: str,
    scale: float,
    capture: AttentionCapture | None = None,
    layer: int = 0,
) -> torch.Tensor:
    """q (1, H, 1, D) for the one new token; k, v (1, n_kv, C, D): the whole cache. A 1 x C row per head."""
    if backend == "eager":
        return _eager(q, k, v, None, scale, capture, layer)
    return _sdpa(q, k, v, None, scale)
