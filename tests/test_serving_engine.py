"""Scheduling policies and prefix caching: same greedy outputs under every policy; pool invariants."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import Engine, EngineConfig, SamplingParams

SYSTEM = list(range(1000, 1040))  # a 40-token shared prefix: two full blocks of 16
PROMPTS = [SYSTEM + [5000, 5001, 5002], SYSTEM + [6000, 6001], list(range(2000, 2013)), SYSTEM + [7000] * 9]
MAX_NEW = [7, 5, 9, 6]

POLICIES = {
    "sequential": dict(policy="sequential"),
    "static": dict(policy="static", max_num_seqs=2),
    "continuous": dict(policy="continuous"),
    "chunked": dict(policy="continuous", chunked_prefill=True, max_num_batched_tokens=12),
    "prefix": dict(prefix_caching=True),
    "prefix-chunked": dict(prefix_caching=True, chunked_prefill=True, max_num_batched_tokens=20),
    "tiny-pool": dict(kv_cache_bytes=1, block_size=4, max_model_len=120),  # forces preemption
}


def run_all(tiny, cfg: dict, prompts=PROMPTS, max_new=MAX_NEW) -> tuple[Engine, list]:
    engine = Engine(tiny.model, tiny.tokenizer, EngineConfig(probe_memory=False, **cfg))
    seqs = [engine.add_request(p, SamplingParams(max_new_tokens=n, ignore_eos=True)) for p, n in zip(prompts, max_new)]
    for _ in engine.stream():
        engine.kv.pool.check_invariants()
    return engine, seqs


@pytest.fixture(scope="module")
def alone(tiny):
    return [run_all(tiny, {}, [p], [n])[1][0].output_token_ids for p, n in zip(PROMPTS, MAX_NEW)]


@pytest.mark.parametrize("name", POLICIES)
def test_every_policy_gives_each_request_the_tokens_it_gets_alone(tiny, alone, name):
    engine, seqs = run_all(tiny, POLICIES[name])
    assert [s.output_token_ids for s in seqs] == alone
    assert engine.kv.pool.num_free == engine.kv.pool.num_blocks
    if name == "tiny-pool":
        assert engine.scheduler.num_preemptions > 0


def test_sequential_runs_one_request_at_a_time(tiny):
    engine, _ = run_all(tiny, POLICIES["sequential"])
    assert all(len(s.seqs) == 1 for s in engine.trace.steps)


def test_static_batch_admits_nobody_until_it_finishes(tiny):
    engine, seqs = run_all(tiny, POLICIES["static"])
    batches = [frozenset(x.seq_id for x in s.seqs) for s in engine.trace.steps]
    first, second = {seqs[0].seq_id, seqs[1].seq_id}, {seqs[2].seq_id, seqs[3].seq_id}
    last_of_first = max(i for i, b in enumerate(batches) if b & first)
    assert all(not (b & second) for b in batches[: last_of_first + 1])


def test_continuous_batching_mixes_decodes_and_prefills(tiny):
    """Two slots. Step 0 prefills requests 0 and 1 (43 + 42 tokens); request 1's fifth token comes at
    step 4, so at step 5 request 2 (13 tokens) is prefilled beside request 0's decode; request 0's
    seventh token comes at step 6, so at step 7 request 3 (49 tokens) joins request 2's decode."""
    engine, seqs = run_all(tiny, dict(max_num_seqs=2))
    ids = [s.seq_id for s in seqs]
    mixed = {
        s.step: {x.seq_id: (x.phase, x.num_tokens) for x in s.seqs} for s in engine.trace.steps if s.phase == "mixed"
    }
    assert mixed == {
        5: {ids[0]: ("decode", 1), ids[2]: ("prefill", 13)},
        7: {ids[2]: ("decode", 1), ids[3]: ("prefill", 49)},
    }
    assert {x.seq_id: x.num_tokens for x in engine.trace.steps[0].seqs} == {ids[0]: 43, ids[1]: 42}


def test_prefix_cache_serves_the_shared_system_prompt(tiny):
    engine, seqs = run_all(tiny, POLICIES["prefix"] | dict(max_num_seqs=1))
    assert [s.num_prefix_hit_tokens for s in seqs] == [0, 32, 0, 32]
    prefills = [x for s in engine.trace.steps for x in s.seqs if x.phase == "prefill"]
    assert [p.num_tokens for p in prefills] == [43, 42 - 32, 13, 49 - 32]
    assert engine.trace.steps[-1].prefix_hit_tokens == 64


def test_a_hash_collision_is_a_miss_not_another_prompts_kv(tiny, alone, monkeypatch):
    """With every block hashing alike, a hit is still checked against the block's parent and
    tokens: the shared system prompt's first block is reused, nothing else, and every output
    equals its run alone."""
    import engine.sched.block_pool as block_pool

    monkeypatch.setattr(block_pool, "block_digest", lambda parent, tokens: b"same" * 8)
    engine, seqs = run_all(tiny, POLICIES["prefix"] | dict(max_num_seqs=1))
    assert [s.num_prefix_hit_tokens for s in seqs] == [0, 16, 0, 16]
    assert [s.output_token_ids for s in seqs] == alone


def test_prefix_hashes_are_sha256_chained_over_parent_and_tokens():
    import hashlib
    import struct

    from engine.sched.block_pool import ROOT_HASH, prefix_hashes

    (h0, k0), (h1, k1) = prefix_hashes([1, 2, 3, 4, 5], block_size=2)
    assert k0 == (ROOT_HASH, (1, 2)) and k1 == (h0, (3, 4))
    assert h1 == hashlib.sha256(h0 + struct.pack("<2q", 3, 4)).digest()
    assert prefix_hashes([9, 2, 3, 4], 2)[1][0] != h1  # a different first block changes every later hash


def test_shared_blocks_are_counted_once(tiny):
    engine = Engine(tiny.model, tiny.tokenizer, EngineConfig(prefix_caching=True, probe_memory=False))
    engine.add_request(PROMPTS[0], SamplingParams(max_new_tokens=4, ignore_eos=True))
    engine.step()  # the first request's prefill publishes its two system-prompt blocks
    engine.add_request(PROMPTS[1], SamplingParams(max_new_tokens=4, ignore_eos=True))
    record = engine.step().step
    tables = list(record.block_tables.values())
    assert tables[0][:2] == tables[1][:2]  # the same physical blocks
    assert record.kv_blocks == len(set(tables[0]) | set(tables[1]))
    assert record.kv_tokens == (43 + 1) + (42 - 32)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.lists(st.tuples(st.integers(0, 2), st.integers(1, 30), st.integers(1, 6)), min_size=1, max_size=7),
    st.sampled_from(list(POLICIES)),
    st.integers(1, 4),
)
def test_pool_invariants_hold_under_random_workloads(tiny, requests, policy, arrive_every):
    """Requests with shared or fresh prefixes arrive over time under every policy; after every step
    no block is leaked or owned twice, and ref counts equal the number of owners."""
    cfg = POLICIES[policy] | ({"max_model_len": 100} if policy == "tiny-pool" else {})
    engine = Engine(tiny.model, tiny.tokenizer, EngineConfig(probe_memory=False, **cfg))
    pool = engine.kv.pool
    pending = [(SYSTEM[: 16 * share] + list(range(3000, 3000 + n)), m) for share, n, m in requests]
    while pending or engine.has_unfinished:
        for _ in range(min(arrive_every, len(pending))):
            prompt, m = pending.pop(0)
            engine.add_request(prompt, SamplingParams(max_new_tokens=m, ignore_eos=True))
        engine.step()
        pool.check_invariants()
        owners = Counter(b for s in engine.scheduler.running for b in s.block_table)
        assert all(pool.ref_counts[b] == n for b, n in owners.items())
        assert pool.num_used == len(owners)
    assert pool.num_free == pool.num_blocks


def test_step_records_show_cached_free_blocks(tiny):
    engine, seqs = run_all(tiny, POLICIES["prefix"] | dict(max_num_seqs=1), PROMPTS[:1], MAX_NEW[:1])
    last = engine.trace.steps[-1]
    assert last.block_tables == {} and len(last.cached_free_blocks) == 2  # the two full prompt blocks


def test_run_workload_reports_each_request_as_it_enters(tiny):
    from lab.workload import RequestSpec, run_workload

    specs = [RequestSpec(0.0, PROMPTS[0], 3, "a"), RequestSpec(0.05, PROMPTS[2], 3, "b")]
    added = []
    trace, labels = run_workload(
        tiny.model,
        tiny.tokenizer,
        specs,
        EngineConfig(probe_memory=False),
        on_add=lambda sid, spec: added.append((sid, spec.label)),
    )
    assert [label for _, label in added] == ["a", "b"] and dict(added) == labels
    assert len(trace.requests) == 2


def test_a_flops_budget_keeps_every_chunk_of_a_long_prompt_to_the_same_work(tiny):
    """With chunked prefill and max_step_flops, each step's counted work (products and causal attention,
    engine/observe/costmodel.chunk_flops) stays within the budget as a long prompt's chunks attend to
    more and more context, so a decode sharing those steps waits no longer late than early; the tokens
    are those of a run without the budget."""
    from engine.observe.costmodel import chunk_flops

    c = tiny.model.config
    long_prompt = list(range(10, 410))
    prompts, max_new = [PROMPTS[0], long_prompt], [24, 2]
    budget = chunk_flops(c, 64, 0)
    cfg = dict(chunked_prefill=True, max_num_batched_tokens=64)
    capped, seqs = run_all(tiny, cfg | dict(max_step_flops=budget), prompts, max_new)
    _, plain = run_all(tiny, cfg, prompts, max_new)
    assert [s.output_token_ids for s in seqs] == [s.output_token_ids for s in plain]
    chunks = []
    for step in capped.trace.steps:
        work = sum(chunk_flops(c, q.num_tokens, q.context_len - q.num_tokens) for q in step.seqs)
        long = [q for q in step.seqs if q.seq_id == seqs[1].seq_id and q.phase == "prefill"]
        if long:
            chunks.append(long[0].num_tokens)
            assert work <= budget or long[0].num_tokens == 16, (step.step, work, budget)
    assert sum(chunks) == len(long_prompt) and chunks[-2] < max(chunks)  # later chunks hold fewer tokens
