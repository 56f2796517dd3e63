"""Scheduler: prefill then decode, chunking under a token budget, KV-off recompute, preemption."""

from __future__ import annotations

from engine.sampling_params import SamplingParams
from engine.sched.block_pool import BlockPool
from engine.sched.scheduler import Scheduler, SchedulerConfig
from engine.sched.sequence import Sequence, SequenceStatus

EOS = {0}


def make_seq(prompt_len: int, max_new: int = 4) -> Sequence:
    return Sequence(list(range(1, prompt_len + 1)), SamplingParams(max_new_tokens=max_new), arrival_time=0.0)


def run_step(s: Scheduler, token: int = 7):
    batch = s.schedule()
    finished = s.postprocess(batch, [token if b.samples else None for b in batch], 0.0, EOS, 10_000)
    return batch, finished


def test_one_prompt_is_one_prefill_then_one_token_per_decode():
    pool = BlockPool(16, 4)
    s = Scheduler(SchedulerConfig(), pool)
    seq = make_seq(6, max_new=3)
    s.add(seq)
    batch, _ = run_step(s)
    assert [(b.phase, b.start, b.num_tokens, b.samples) for b in batch] == [("prefill", 0, 6, True)]
    assert seq.block_table == [0, 1] and seq.num_cached_tokens == 6
    batch, _ = run_step(s)
    assert [(b.phase, b.start, b.num_tokens, b.context_len) for b in batch] == [("decode", 6, 1, 7)]
    batch, finished = run_step(s)
    assert finished == [seq] and seq.status == SequenceStatus.FINISHED and seq.finish_reason == "length"
    assert seq.num_output_tokens == 3 and pool.num_free == 16


def test_eos_stops_and_frees_blocks():
    pool = BlockPool(8, 4)
    s = Scheduler(SchedulerConfig(), pool)
    seq = make_seq(3, max_new=10)
    s.add(seq)
    run_step(s, token=5)
    _, finished = run_step(s, token=0)
    assert finished == [seq] and seq.finish_reason == "eos" and pool.num_free == 8


def test_chunked_prefill_splits_a_long_prompt_under_the_budget_and_decodes_others_first():
    pool = BlockPool(64, 4)
    s = Scheduler(SchedulerConfig(max_num_batched_tokens=8, chunked_prefill=True), pool)
    short, long = make_seq(3, max_new=10), make_seq(20)
    s.add(short)
    run_step(s)  # short's prefill
    s.add(long)
    chunks = []
    for _ in range(3):
        batch, _ = run_step(s)
        assert batch[0].seq is short and batch[0].phase == "decode"  # decode first, every step
        chunks.append([(b.phase, b.start, b.num_tokens, b.samples) for b in batch[1:]])
    assert chunks == [[("prefill", 0, 7, False)], [("prefill", 7, 7, False)], [("prefill", 14, 6, True)]]
    assert long.num_output_tokens == 1


def test_without_chunking_a_prompt_waits_for_a_step_it_fits_in():
    pool = BlockPool(64, 4)
    s = Scheduler(SchedulerConfig(max_num_batched_tokens=8), pool)
    a, b = make_seq(5), make_seq(6)
    s.add(a)
    s.add(b)
    batch, _ = run_step(s)
    assert [x.seq for x in batch] == [a]
    batch, _ = run_step(s)
    assert [(x.seq, x.phase) for x in batch] == [(a, "decode"), (b, "prefill")]


def test_kv_off_recomputes_the_whole_context_every_step_and_keeps_nothing():
    pool = BlockPool(16, 4)
    s = Scheduler(SchedulerConfig(kv_cache=False), pool)
    seq = make_seq(5, max_new=3)
    s.add(seq)
    shapes = []
    for _ in range(3):
        batch, _ = run_step(s)
        shapes.append((batch[0].phase, batch[0].start, batch[0].num_tokens, batch[0].recompute))
        assert pool.num_free == 16  # nothing is cached between steps
    assert shapes == [("prefill", 0, 5, True), ("decode", 0, 6, True), ("decode", 0, 7, True)]


def test_full_pool_preempts_the_newest_sequence_and_it_recomputes_later():
    pool = BlockPool(4, 2)  # 8 slots in all
    s = Scheduler(SchedulerConfig(), pool)
    a, b = make_seq(3, max_new=4), make_seq(3, max_new=4)
    s.add(a)
    s.add(b)
    run_step(s)  # both prefilled: 2 blocks each, pool full
    assert pool.num_free == 0
    batch, _ = run_step(s)  # 4th tokens still fit
    assert len(batch) == 2
    batch, _ = run_step(s)  # a needs a 3rd block for its 5th token: b is preempted
    assert [x.seq for x in batch] == [a] and b.status == SequenceStatus.WAITING and b.num_preemptions == 1
    for _ in range(10):
        if not s.has_unfinished:
            break
        run_step(s)
    assert a.is_finished and b.is_finished and b.num_output_tokens == 4 and pool.num_free == 4


def test_max_num_seqs_caps_the_running_set():
    pool = BlockPool(64, 4)
    s = Scheduler(SchedulerConfig(max_num_seqs=2), pool)
    for _ in range(3):
        s.add(make_seq(2))
    batch, _ = run_step(s)
    assert len(batch) == 2 and len(s.waiting) == 1


def test_a_work_budget_shrinks_chunks_deep_into_a_long_prompt():
    """Work (here: tokens + tokens x context, as attention's share grows) capped at a fresh 8-token
    chunk's: the chunks shrink as the context grows, never below the minimum, and a decode sharing the
    step counts against the same budget."""

    def work(n: int, start: int) -> float:
        return n + n * (start + n) / 8

    budget = work(8, 0)
    s = Scheduler(SchedulerConfig(8, 8, True, max_step_work=budget, work=work, min_chunk_tokens=2), BlockPool(64, 4))
    chat, long = make_seq(3, max_new=40), make_seq(60, max_new=1)
    s.add(chat)
    run_step(s)  # the chat's prefill
    s.add(long)
    sizes = []
    while long.status != SequenceStatus.FINISHED:
        batch, _ = run_step(s)
        chunk = next(b for b in batch if b.seq is long)
        decode = next(b for b in batch if b.seq is chat)
        assert work(chunk.num_tokens, chunk.start) + work(1, decode.start) <= budget or chunk.num_tokens == 2
        sizes.append(chunk.num_tokens)
    assert sizes[0] == 7 and sizes == sorted(sizes, reverse=True) and sizes[-1] == 2, sizes
    assert sum(sizes) == 60


def test_a_work_budget_needs_its_work_function():
    import pytest

    from engine.errors import LabError

    with pytest.raises(LabError, match="work budget needs its work function"):
        SchedulerConfig(max_step_work=10.0)
