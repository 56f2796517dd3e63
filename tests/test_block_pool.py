"""Block pool and KV accounting, with tiny block sizes."""

from __future__ import annotations

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.layers.kv_cache import KVCache
from engine.sched.block_pool import BlockPool
from tests.engine_support import TINY_CONFIG


def test_allocate_hands_out_lowest_ids_and_free_returns_them():
    pool = BlockPool(num_blocks=6, block_size=2)
    a = pool.allocate(2)
    b = pool.allocate(3)
    assert (a, b) == ([0, 1], [2, 3, 4])
    assert pool.num_free == 1 and not pool.can_allocate(2)
    pool.free(a)
    assert pool.allocate(2) == [0, 1]
    pool.check_invariants()


def test_double_free_is_caught():
    pool = BlockPool(4, 1)
    ids = pool.allocate(1)
    pool.free(ids)
    with pytest.raises(AssertionError, match="double free"):
        pool.free(ids)


def test_shared_block_is_freed_after_its_last_owner():
    pool = BlockPool(2, 4)
    [b] = pool.allocate(1)
    pool.fork(b)
    pool.free([b])
    assert pool.num_free == 1
    pool.free([b])
    assert pool.num_free == 2
    pool.check_invariants()


def test_blocks_for_rounds_up():
    pool = BlockPool(8, 3)
    assert [pool.blocks_for(n) for n in (0, 1, 3, 4, 7)] == [0, 1, 1, 2, 3]


def test_invalid_pool_sizes_raise_value_error():
    with pytest.raises(ValueError):
        BlockPool(0, 16)
    with pytest.raises(ValueError):
        BlockPool(4, 0)


def test_kv_usage_counts_tokens_bytes_and_waste():
    kv = KVCache(TINY_CONFIG, num_blocks=8, block_size=4, dtype=torch.float32, device="cpu")
    table = kv.pool.allocate(2)  # one sequence of 5 tokens: 2 blocks, 3 empty slots
    usage = kv.usage([(table, 5)])
    per_token = 2 * 2 * 1 * 4 * 4  # 2 (K,V) x layers x kv_heads x head_dim x fp32 bytes
    assert (usage.tokens, usage.bytes, usage.blocks) == (5, 5 * per_token, 2)
    assert usage.reserved_bytes == 8 * per_token and usage.wasted_slots == 3 and usage.free_blocks == 6


def test_slots_follow_the_block_table_and_views_need_contiguity():
    kv = KVCache(TINY_CONFIG, num_blocks=8, block_size=2, dtype=torch.float32, device="cpu")
    assert kv.slots([5, 2], 0, 4).tolist() == [10, 11, 4, 5]
    assert kv.contiguous_start([5, 2], 3) is None
    assert kv.contiguous_start([3, 4, 5], 5) == 6


def test_written_kv_reads_back_through_a_scattered_block_table():
    kv = KVCache(TINY_CONFIG, num_blocks=8, block_size=2, dtype=torch.float32, device="cpu")
    table = [6, 1, 3]
    k = torch.randn(1, 1, 5, 4)
    v = torch.randn(1, 1, 5, 4)
    for layer in range(2):
        kv.write(layer, None, kv.slots(table, 0, 5), k, v)
        rk, rv = kv.read(layer, None, torch.tensor(table), 5)  # gathered by whole blocks
        assert torch.equal(rk, k) and torch.equal(rv, v)
    # two sequences in one padded gather: each reads its own blocks, the padding lies past its length
    kv.write(0, None, kv.slots([2, 5], 0, 3), k[:, :, :3], v[:, :, :3])
    bk, bv = kv.read_batch(0, torch.tensor([[6, 1, 3], [2, 5, 2]]))
    assert bk.shape == (2, 1, 6, 4)
    assert torch.equal(bk[0, :, :5], k[0]) and torch.equal(bv[1, :, :3], v[0, :, :3])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.integers(1, 5)), min_size=1, max_size=60))
def test_random_allocate_free_keeps_invariants(ops):
    pool = BlockPool(12, 2)
    owners: list[list[int]] = []
    for allocate, n in ops:
        if allocate and pool.can_allocate(n):
            owners.append(pool.allocate(n))
        elif owners:
            pool.free(owners.pop(n % len(owners)))
        pool.check_invariants()
        owned = [b for o in owners for b in o]
        assert len(owned) == len(set(owned)) == pool.num_used
    for o in owners:
        pool.free(o)
    assert pool.num_free == 12
