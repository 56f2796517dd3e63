"""The KV cache's bookkeeping: a pool of fixed-size blocks (PagedAttention-style) with ref counts, a
free list and a prefix cache keyed by SHA-256 over the tokens. No tensors here: engine/layers/kv_cache.py
holds the physical cache that these block ids index."""

from __future__ import annotations

import hashlib
import heapq
import struct
from collections import OrderedDict

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
