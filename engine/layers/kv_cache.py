"""The paged KV cache: a pool of fixed-size blocks (PagedAttention-style) and its accounting.

`BlockPool` is pure bookkeeping (block ids, a free list that hands out the lowest id first,
ref counts); `KVCache` owns the physical tensor and turns a sequence's block table into the
slot indices the model writes to and reads from.

Physical layout: (layers, 2, kv_heads, num_slots, head_dim), slot = block * block_size + offset.
Keeping the slot axis next to head_dim makes a run of consecutive blocks a strided view that
matmul reads without a copy.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from engine.config import ModelConfig
from engine.errors import LabError
from engine.sched.block_pool import BlockPool


@dataclass
class KVUsage:
    """What the UI shows about the cache at one moment."""

    tokens: int  # tokens whose K and V are stored
    bytes: int  # bytes those tokens occupy (2 x layers x kv_heads x head_dim x tokens x elem)
    blocks: int  # blocks in use
    reserved_bytes: int  # bytes of those blocks, including their unused slots
    wasted_slots: int  # slots allocated but not (yet) filled: internal fragmentation
    free_blocks: int


KV_DTYPES = ("auto", "float32", "bfloat16", "float16", "float8_e4m3fn", "int8")
FP8_MAX = 448.0  # the largest float8_e4m3fn: a larger K or V is clamped, not turned into NaN


def kv_storage(kv_dtype: str, compute: torch.dtype) -> torch.dtype:
    """The element type the pool stores for a KV dtype name ("auto": the model's own)."""
    if kv_dtype not in KV_DTYPES:
        raise LabError(f"Unknown KV cache dtype {kv_dtype!r}; choose one of {', '.join(KV_DTYPES)}.")
    return compute if kv_dtype == "auto" else getattr(torch, kv_dtype)


def kv_bytes_per_token(config: ModelConfig, storage: torch.dtype) -> int:
    """Bytes one token's K and V take in the pool: the elements, plus for int8 one float32 scale per
    layer, K/V and KV head (what dequantising on read needs)."""
    elems = config.kv_bytes_per_token(torch.empty((), dtype=storage).element_size())
    scales = 2 * config.num_layers * config.num_kv_heads * 4 if storage == torch.int8 else 0
    return elems + scales


class KVCache:
    """The pool's tensor. K and V are stored as `kv_dtype` (engine/kv_cache.KV_DTYPES) and come back
    from `read` in the model's dtype: a float format is cast on write and on read; int8 is
    symmetric per token and head (scale = max|x| / 127 over head_dim), dequantised on read."""

    def __init__(
        self,
        config: ModelConfig,
        num_blocks: int,
        block_size: int,
        dtype: torch.dtype,
        device: str | torch.device,
        kv_dtype: str = "auto",
    ):
        self.config = config
        self.pool = BlockPool(num_blocks, block_size)
        self.block_size = block_size
        self.dtype = dtype  # what the model computes in: read() returns this
        self.storage = kv_storage(kv_dtype, dtype)
        self.quantized = self.storage == torch.int8
        # torch.empty only reserves address space on CPU: pages are touched when written.
        self.data = torch.empty(
            config.num_layers,
            2,
            config.num_kv_heads,
            num_blocks * block_size,
            config.head_dim,
            dtype=self.storage,
            device=device,
        )
        self.bytes_per_token = kv_bytes_per_token(config, self.storage)
        # fp8 has no index_copy/index_select on CPU: those run on its bytes (a uint8 view of the same memory)
        self.raw = raw = self.data.view(torch.uint8) if self.storage == torch.float8_e4m3fn else self.data
        # per-layer (1, n_kv, slots, D) views, made once: the hot path slices them without extra ops
        self.k_layers = [raw[i, 0].unsqueeze(0) for i in range(config.num_layers)]
        self.v_layers = [raw[i, 1].unsqueeze(0) for i in range(config.num_layers)]
        self.scales = None
        if self.quantized:  # (layers, 2, n_kv, slots): one scale per token and head
            self.scales = torch.ones(
                config.num_layers, 2, config.num_kv_heads, num_blocks * block_size, dtype=torch.float32, device=device
            )

    def slots(self, block_table: list[int], start: int, end: int) -> torch.Tensor:
        """Slot indices of token positions start..end-1 of a sequence with this block table."""
        pos = torch.arange(start, end)
        table = torch.tensor(block_table, dtype=torch.long)
        return table[pos // self.block_size] * self.block_size + pos % self.block_size

    def contiguous_start(self, block_table: list[int], num_tokens: int) -> int | None:
        """First slot if the first num_tokens tokens occupy consecutive slots (a view suffices)."""
        used = self.pool.blocks_for(num_tokens)
        first = block_table[0]
        if all(block_table[i] == first + i for i in range(used)):
            return first * self.block_size
        return None

    def _encode(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor | None]:
        """x (1, n_kv, T, D) in the model's dtype -> what the pool stores (and int8's scales (1, n_kv, T))."""
        if self.quantized:
            scale = x.float().abs().amax(-1) / 127.0
            scale = torch.where(scale > 0, scale, torch.ones_like(scale))
            return torch.round(x.float() / scale[..., None]).clamp_(-127, 127).to(torch.int8), scale
        if self.storage == torch.float8_e4m3fn:
            return x.clamp(-FP8_MAX, FP8_MAX).to(self.storage).view(torch.uint8), None
        return x.to(self.storage), None

    def _decode(self, x: torch.Tensor, scale: torch.Tensor | None) -> torch.Tensor:
        if self.quantized:
            return (x.float() * scale[..., None]).to(self.dtype)
        if self.storage == torch.float8_e4m3fn:
            return x.view(torch.float8_e4m3fn).to(self.dtype)
        return x if self.storage == self.dtype else x.to(self.dtype)

    def write(self, layer: int, start: int | None, slots: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> None:
        """k, v (1, n_kv, T, D) of the new tokens into their slots (a slice copy when consecutive)."""
        for kind, x, layers in ((0, k, self.k_layers), (1, v, self.v_layers)):
            stored, scale = self._encode(x)  # the model's own dtype: x itself, no copy
            if start is not None:
                T = x.shape[2]
                layers[layer][:, :, start : start + T].copy_(stored)
                if scale is not None:
                    self.scales[layer, kind, :, start : start + T].copy_(scale[0])
            else:
                layers[layer].index_copy_(2, slots, stored)
                if scale is not None:
                    self.scales[layer, kind].index_copy_(1, slots, scale[0])

    def read(self, layer: int, start: int | None, blocks: torch.Tensor | None, length: int):
        """K and V of a sequence's context, each (1, n_kv, C, D) in the model's dtype: a view when
        contiguous and stored as computed, else a gather of whole blocks (block_size x head_dim
        elements per copy, far cheaper than per token) and, for another dtype, a converted copy."""
        if start is not None:
            k, v = (
                self.k_layers[layer][:, :, start : start + length],
                self.v_layers[layer][:, :, start : start + length],
            )
            if self.storage == self.dtype:
                return k, v
            scales = self.scales[layer, :, :, start : start + length].unsqueeze(1) if self.quantized else (None, None)
            return self._decode(k, scales[0]), self._decode(v, scales[1])
        k, v = self.read_batch(layer, blocks.unsqueeze(0))
        return k[:, :, :length], v[:, :, :length]

    def read_batch(self, layer: int, tables: torch.Tensor):
        """tables (B, nb): block ids per sequence (padded with any valid id). One gather of K and V
        together; returns k, v each (B, n_kv, nb x block_size, D) in the model's dtype."""
        c, (B, nb) = self.config, tables.shape
        raw = self.data[layer].view(torch.uint8) if self.storage == torch.float8_e4m3fn else self.data[layer]
        blocks = raw.view(2, c.num_kv_heads, self.pool.num_blocks, self.block_size, c.head_dim)
        x = blocks.index_select(2, tables.reshape(-1)).view(2, c.num_kv_heads, B, nb * self.block_size, c.head_dim)
        k, v = x[0].transpose(0, 1), x[1].transpose(0, 1)
        if self.storage == self.dtype:
            return k, v
        scales = (None, None)
        if self.quantized:
            s = self.scales[layer].view(2, c.num_kv_heads, self.pool.num_blocks, self.block_size)
            s = s.index_select(2, tables.reshape(-1)).view(2, c.num_kv_heads, B, nb * self.block_size)
            scales = (s[0].transpose(0, 1), s[1].transpose(0, 1))
        return self._decode(k, scales[0]), self._decode(v, scales[1])

    def usage(self, holders: list[tuple[list[int], int]]) -> KVUsage:
        """Accounting for the sequences holding blocks, as (block table, cached tokens) pairs.
        A block shared through the prefix cache is counted once."""
        filled: dict[int, int] = {}
        for table, cached in holders:
            for i, b in enumerate(table):
                filled[b] = max(filled.get(b, 0), min(self.block_size, max(0, cached - i * self.block_size)))
        tokens = sum(filled.values())
        blocks = self.pool.num_used
        return KVUsage(
            tokens=tokens,
            bytes=tokens * self.bytes_per_token,
            blocks=blocks,
            reserved_bytes=blocks * self.block_size * self.bytes_per_token,
            wasted_slots=blocks * self.block_size - tokens,
            free_blocks=self.pool.num_free,
        )
