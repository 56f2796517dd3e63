"""The paged KV cache: a pool of fixed-size blocks (PagedAttention-style) and its accounting.

`BlockPool` is pure bookkeeping (block ids, a free list that hands out the lowest id first,
ref counts); `KVCache` owns the physical tensor and turns a sequence's block table into the
slot indices the model writes to and reads from.

Physical layout: (layers, 2, kv_heads, num_slots, head_dim), slot = block * block_size + offset.
Keeping the slot axis next to head_dim makes a run of consecutive blocks a strided view that
matmul reads without a copy.
"""

from __future__ import annotations

import hashlib
import heapq
import struct
from collections import OrderedDict
from dataclasses import dataclass

import torch

from engine.config import ModelConfig
from engine.errors import LabError


class BlockPool:
    """Block ids 0..num_blocks-1 with ref counts; paired can_allocate/allocate, as in nano-vllm.

    Prefix caching: a full block whose tokens are known is registered under a hash of its
    tokens and of every token before it (`prefix_hashes`), with the block's own key (the parent's
    hash and its tokens) so that a hit is checked, never trusted: `lookup` answers a block only
    when its key equals the asker's. When its last owner frees it, it keeps its hash and waits on
    an LRU list, so a later prompt with the same prefix can take it back (`reuse`).
    `allocate` hands out clean blocks first (lowest id first, which keeps tables contiguous) and
    evicts the least recently freed cached block only when no clean one is left.
    """

    def __init__(self, num_blocks: int, block_size: int):
        if num_blocks <= 0 or block_size <= 0:
            raise LabError(f"KV pool needs positive num_blocks and block_size, got {num_blocks}, {block_size}.")
        self.num_blocks = num_blocks
        self.block_size = block_size
        self.ref_counts = [0] * num_blocks
        self.block_hash: list[bytes | None] = [None] * num_blocks
        self.block_key: list[BlockKey | None] = [None] * num_blocks  # what a hit must match
        self.cached: dict[bytes, int] = {}  # prefix hash -> block holding those tokens
        self._clean = list(range(num_blocks))  # a heap of free blocks holding nothing reusable
        self._evictable: OrderedDict[int, None] = OrderedDict()  # free blocks with a hash, oldest first
        self.num_evictions = 0

    @property
    def num_free(self) -> int:
        return len(self._clean) + len(self._evictable)

    @property
    def num_used(self) -> int:
        return self.num_blocks - self.num_free

    def blocks_for(self, num_tokens: int) -> int:
        return -(-num_tokens // self.block_size)

    @property
    def cached_free_blocks(self) -> list[int]:
        """Free blocks that still hold a reusable prompt prefix, least recently freed first."""
        return list(self._evictable)

    def can_allocate(self, num_blocks: int) -> bool:
        return num_blocks <= self.num_free

    def allocate(self, num_blocks: int) -> list[int]:
        assert self.can_allocate(num_blocks), "allocate() without can_allocate()"
        ids = []
        for _ in range(num_blocks):
            if self._clean:
                b = heapq.heappop(self._clean)
            else:
                b, _ = self._evictable.popitem(last=False)
                self._forget(b)  # its old contents are about to be overwritten
                self.num_evictions += 1
            assert self.ref_counts[b] == 0
            self.ref_counts[b] = 1
            ids.append(b)
        return ids

    def _forget(self, b: int) -> None:
        h = self.block_hash[b]
        self.block_hash[b] = self.block_key[b] = None
        if h is not None and self.cached.get(h) == b:
            del self.cached[h]

    def fork(self, block_id: int) -> None:
        """Share a block with one more owner (prefix caching)."""
        assert self.ref_counts[block_id] > 0
        self.ref_counts[block_id] += 1

    def lookup(self, prefix_hash: bytes, key: BlockKey) -> int | None:
        """The cached block under this hash, if it holds exactly `key`'s tokens after the same parent
        (a hash collision is then a miss, never another prompt's KV)."""
        b = self.cached.get(prefix_hash)
        return b if b is not None and self.block_key[b] == key else None

    def reuse(self, block_id: int) -> None:
        """Take a cached block for one more owner, off the LRU list if nobody holds it."""
        if self.ref_counts[block_id] == 0:
            del self._evictable[block_id]
            self.ref_counts[block_id] = 1
        else:
            self.fork(block_id)

    def register(self, block_id: int, prefix_hash: bytes, key: BlockKey) -> None:
        """Record that block_id now holds the (full) block `key` under this prefix hash."""
        assert self.ref_counts[block_id] > 0
        if prefix_hash not in self.cached and self.block_hash[block_id] is None:
            self.cached[prefix_hash] = block_id
            self.block_hash[block_id] = prefix_hash
            self.block_key[block_id] = key

    def free(self, block_ids: list[int]) -> None:
        for b in block_ids:
            assert self.ref_counts[b] > 0, f"double free of block {b}"
            self.ref_counts[b] -= 1
            if self.ref_counts[b] == 0:
                if self.block_hash[b] is not None:
                    self._evictable[b] = None
                else:
                    heapq.heappush(self._clean, b)

    def check_invariants(self) -> None:
        clean, evictable = set(self._clean), set(self._evictable)
        assert len(clean) == len(self._clean), "a block is on the free list twice"
        assert not clean & evictable, "a block is both clean and cached"
        for b, rc in enumerate(self.ref_counts):
            assert rc >= 0
            assert (rc == 0) == (b in clean or b in evictable), (
                f"block {b}: ref count {rc} disagrees with the free lists"
            )
        assert all(self.block_hash[b] is not None for b in evictable)
        assert all(self.block_hash[b] is None for b in clean)
        for h, b in self.cached.items():
            assert self.block_hash[b] == h, f"block {b} is cached under a hash it does not hold"


BlockKey = tuple[bytes, tuple[int, ...]]  # (the parent block's prefix hash, this block's token ids)
ROOT_HASH = b"\0" * 32  # the parent of a prompt's first block


def block_digest(parent: bytes, tokens: tuple[int, ...]) -> bytes:
    """SHA-256 of the parent's hash and the block's token ids: a collision would need SHA-256's,
    unlike Python's `hash()`, whose collisions on tuples of ints can be built on purpose."""
    return hashlib.sha256(parent + struct.pack(f"<{len(tokens)}q", *tokens)).digest()


def prefix_hashes(token_ids: list[int], block_size: int) -> list[tuple[bytes, BlockKey]]:
    """One (hash, key) per full block; each hash covers every token up to the end of its block."""
    out, parent = [], ROOT_HASH
    for i in range(len(token_ids) // block_size):
        key = (parent, tuple(token_ids[i * block_size : (i + 1) * block_size]))
        parent = block_digest(*key)
        out.append((parent, key))
    return out


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
