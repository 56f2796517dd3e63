"""A decode worker admits a hand-off only when its KV blocks are free: until then the hand-off waits,
counted among the waiting requests, and is admitted in arrival order as blocks come free."""

from __future__ import annotations

import asyncio
import time

from engine import Engine, EngineConfig, SamplingParams
from engine.core.kv_transfer import prefill
from engine.entrypoints.server.loop import Accepted, EngineLoop, Finished
from engine.entrypoints.server.prometheus import ServerMetrics


def test_a_hand_off_waits_for_blocks_and_is_admitted_when_they_free(tiny):
    params = SamplingParams(max_new_tokens=16, ignore_eos=True)
    p = Engine(tiny.model, tiny.tokenizer, EngineConfig(probe_memory=False))
    d = Engine(tiny.model, tiny.tokenizer, EngineConfig(probe_memory=False, kv_cache_bytes=1, max_model_len=64))
    ids = list(range(10, 50))  # 40 prompt tokens: 40 + 16 new fit one max-length sequence, not two
    first, second = prefill(p, ids, params), prefill(p, ids[::-1], params)
    pool = d.kv.pool
    assert pool.blocks_for(len(ids) + 1) * 2 > pool.num_blocks
    metrics = ServerMetrics("tiny")
    loop = EngineLoop(d, metrics)  # driven here, step by step: no thread

    def waiting() -> float:
        return metrics.registry.get_sample_value("vllm:num_requests_waiting", {"model_name": "tiny"})

    async def run():
        a, b = loop.submit_handoff(first), loop.submit_handoff(second)
        loop._take_inbox(block=False)
        await asyncio.sleep(0)
        assert isinstance(a.events.get_nowait(), Accepted)
        assert b.events.empty() and waiting() == 1  # parked, and visible as waiting
        while d.has_unfinished:
            loop._step()
            loop._admit_parked()
            await asyncio.sleep(0)
            if b.seq is not None:
                break
        finished_a = [e for e in drain(a) if isinstance(e, Finished)]
        assert finished_a, "the second was admitted before the first freed its blocks"
        admitted = next(e for e in drain(b) if isinstance(e, Accepted))
        assert admitted.at <= time.time() and waiting() == 0
        while d.has_unfinished:
            loop._step()
        await asyncio.sleep(0)
        assert any(isinstance(e, Finished) for e in drain(b)) and pool.num_used == 0

    asyncio.run(run())
    colocated = Engine(tiny.model, tiny.tokenizer, EngineConfig(probe_memory=False))
    for handoff_ids, sub_ids in ((ids, first), (ids[::-1], second)):
        want = colocated.generate(handoff_ids, params).requests[-1].output_token_ids
        assert want[0] == sub_ids.first_token


def drain(sub) -> list:
    items = []
    while not sub.events.empty():
        items.append(sub.events.get_nowait())
    return items


def test_a_hand_off_larger_than_the_whole_pool_is_refused_at_once(tiny):
    params = SamplingParams(max_new_tokens=4, ignore_eos=True)
    p = Engine(tiny.model, tiny.tokenizer, EngineConfig(probe_memory=False))
    d = Engine(tiny.model, tiny.tokenizer, EngineConfig(probe_memory=False, kv_cache_bytes=1, max_model_len=32))
    big = prefill(p, list(range(10, 90)), params)  # 80 tokens: more blocks than the pool has
    loop = EngineLoop(d, ServerMetrics("tiny"))

    async def run():
        sub = loop.submit_handoff(big)
        loop._take_inbox(block=False)
        await asyncio.sleep(0)
        (refused,) = drain(sub)
        assert "KV blocks" in refused.message and not loop._parked

    asyncio.run(run())
