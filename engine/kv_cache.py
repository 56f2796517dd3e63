"""The paged KV cache: a pool of fixed-size blocks (PagedAttention-style) and its accounting.

`BlockPool` is pure bookkeeping (block ids, a free list that hands out the lowest id first,
ref counts); `KVCache` owns the physical tensor and turns a sequence's block table into the
slot indices the model writes to and reads from.

Physical layout: (layers, 2, kv_heads, num_slots, head_dim), slot = block * block_size + offset.
Keeping the slot axis next to head_dim makes a run of consecutive blocks a strided view that
matmul reads without a copy.
"""
from __future__ import annotations

import heapq
from dataclasses import dataclass

import torch

from engine.config import ModelConfig


class BlockPool:
    """Block ids 0..num_blocks-1 with ref counts; paired can_allocate/allocate, as in nano-vllm."""

    def __init__(self, num_blocks: int, block_size: int):
        if num_blocks <= 0 or block_size <= 0:
            raise ValueError(f"KV pool needs positive num_blocks and block_size, got {num_blocks}, {block_size}.")
        self.num_blocks = num_blocks
        self.block_size = block_size
        self.ref_counts = [0] * num_blocks
        self._free = list(range(num_blocks))  # a heap: the lowest free id first keeps tables contiguous
        heapq.heapify(self._free)

    @property
    def num_free(self) -> int:
        return len(self._free)

    @property
    def num_used(self) -> int:
        return self.num_blocks - len(self._free)

    def blocks_for(self, num_tokens: int) -> int:
        return -(-num_tokens // self.block_size)

    def can_allocate(self, num_blocks: int) -> bool:
        return num_blocks <= len(self._free)

    def allocate(self, num_blocks: int) -> list[int]:
        assert self.can_allocate(num_blocks), "allocate() without can_allocate()"
        ids = [heapq.heappop(self._free) for _ in range(num_blocks)]
        for b in ids:
            assert self.ref_counts[b] == 0
            self.ref_counts[b] = 1
        return ids

    def fork(self, block_id: int) -> None:
        """Share a block with one more owner (prefix caching)."""
        assert self.ref_counts[block_id] > 0
        self.ref_counts[block_id] += 1

    def free(self, block_ids: list[int]) -> None:
        for b in block_ids:
            assert self.ref_counts[b] > 0, f"double free of block {b}"
            self.ref_counts[b] -= 1
            if self.ref_counts[b] == 0:
                heapq.heappush(self._free, b)

    def check_invariants(self) -> None:
        free = set(self._free)
        assert len(free) == len(self._free), "a block is on the free list twice"
        for b, rc in enumerate(self.ref_counts):
            assert rc >= 0
            assert (rc == 0) == (b in free), f"block {b}: ref count {rc} disagrees with the free list"


@dataclass
class KVUsage:
    """What the UI shows about the cache at one moment."""
    tokens: int  # tokens whose K and V are stored
    bytes: int  # bytes those tokens occupy (2 x layers x kv_heads x head_dim x tokens x elem)
    blocks: int  # blocks in use
    reserved_bytes: int  # bytes of those blocks, including their unused slots
    wasted_slots: int  # slots allocated but not (yet) filled: internal fragmentation
    free_blocks: int


class KVCache:
    def __init__(self, config: ModelConfig, num_blocks: int, block_size: int, dtype: torch.dtype,
                 device: str | torch.device):
        self.config = config
        self.pool = BlockPool(num_blocks, block_size)
        self.block_size = block_size
        self.dtype = dtype
        # torch.empty only reserves address space on CPU: pages are touched when written.
        self.data = torch.empty(config.num_layers, 2, config.num_kv_heads, num_blocks * block_size,
                                config.head_dim, dtype=dtype, device=device)
        self.bytes_per_token = config.kv_bytes_per_token(self.data.element_size())
        # per-layer (1, n_kv, slots, D) views, made once: the hot path slices them without extra ops
        self.k_layers = [self.data[i, 0].unsqueeze(0) for i in range(config.num_layers)]
        self.v_layers = [self.data[i, 1].unsqueeze(0) for i in range(config.num_layers)]

    @classmethod
    def for_budget(cls, config: ModelConfig, budget_bytes: int, block_size: int, dtype: torch.dtype,
                   device: str | torch.device) -> "KVCache":
        per_block = config.kv_bytes_per_token(torch.empty((), dtype=dtype).element_size()) * block_size
        num_blocks = max(1, budget_bytes // per_block)
        return cls(config, num_blocks, block_size, dtype, device)

    @property
    def capacity_tokens(self) -> int:
        return self.pool.num_blocks * self.block_size

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

    def write(self, layer: int, start: int | None, slots: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> None:
        """k, v (1, n_kv, T, D) of the new tokens into their slots (a slice copy when consecutive)."""
        if start is not None:
            T = k.shape[2]
            self.k_layers[layer][:, :, start:start + T].copy_(k)
            self.v_layers[layer][:, :, start:start + T].copy_(v)
        else:
            self.k_layers[layer].index_copy_(2, slots, k)
            self.v_layers[layer].index_copy_(2, slots, v)

    def read(self, layer: int, start: int | None, slots: torch.Tensor | None, length: int):
        """K and V of a sequence's context, each (1, n_kv, C, D): a view when contiguous, else a gather."""
        k, v = self.k_layers[layer], self.v_layers[layer]
        if start is not None:
            return k[:, :, start:start + length], v[:, :, start:start + length]
        return k.index_select(2, slots), v.index_select(2, slots)

    def usage(self, token_counts: list[int]) -> KVUsage:
        """Accounting for the sequences that currently hold blocks (their cached token counts)."""
        tokens = sum(token_counts)
        blocks = self.pool.num_used
        return KVUsage(
            tokens=tokens,
            bytes=tokens * self.bytes_per_token,
            blocks=blocks,
            reserved_bytes=blocks * self.block_size * self.bytes_per_token,
            wasted_slots=blocks * self.block_size - tokens,
            free_blocks=self.pool.num_free,
        )
