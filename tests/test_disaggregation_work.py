"""The work each disaggregation set-up does with a long prompt, counted before anything is timed."""

from __future__ import annotations

import pytest

from engine.observe.costmodel import chunk_flops
from lab.disaggregation_work import counted_work


def test_the_counts_follow_the_chunk_and_the_pair_sends_the_prompts_kv(tiny):
    c = tiny.model.config
    work = counted_work(c, 512, 300, 128)
    assert (work["whole"].tokens_per_step, work["whole"].steps) == (300, 1)
    assert (work["chunked"].tokens_per_step, work["chunked"].steps) == (128, 3)  # 128 + 128 + 44
    assert work["chunked"].largest_step_flops == pytest.approx(
        max(chunk_flops(c, 128, 128), chunk_flops(c, 44, 256), chunk_flops(c, 128, 0))
    )
    assert work["chunked"].largest_step_flops < work["whole"].largest_step_flops
    assert work["pd"].steps == 0 and work["pd"].handoff_bytes == 300 * 512
    assert work["whole"].handoff_bytes == work["chunked"].handoff_bytes == 0
    short = counted_work(c, 512, 64, 128)  # a prompt within one chunk: chunking changes nothing
    assert short["chunked"].tokens_per_step == 64 and short["chunked"].steps == 1
