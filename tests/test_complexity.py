"""Complexity lab: identical tokens with and without the cache, the worked example's shapes, FLOPs."""

from __future__ import annotations

from engine.config import PRESETS
from lab.complexity import (
    crossover_context,
    fit_exponent,
    run_with_and_without_cache,
    shape_table,
    step_flops_split,
    theory_sums,
)
from tests.engine_support import TINY_CONFIG


def test_tokens_with_and_without_the_cache_are_identical_and_costs_diverge(tiny):
    ids = tiny.tokenizer("A prompt of a few words").input_ids
    seen, ended = [], []
    runs = run_with_and_without_cache(
        tiny.model, tiny.tokenizer, ids, 12, progress=lambda f, left: seen.append(f), finished=ended.append
    )
    assert runs[True].tokens == runs[False].tokens and len(runs[True].tokens) == 12
    assert seen[-1] == 1.0 and len(seen) == 24
    assert ended == [runs[True], runs[False]]  # each run handed over as it ends
    on, off = runs[True], runs[False]
    assert len(on.step_ms) == 11 and len(set(on.flops_linear)) == 1  # flat with the cache
    assert all(b > a for a, b in zip(off.flops_linear, off.flops_linear[1:]))  # growing without it
    assert off.cumulative_flops[-1] > on.cumulative_flops[-1]
    assert sum(off.flops_attention) > 5 * sum(on.flops_attention)  # (L+t)^2 against L+t


def test_llama7b_worked_example_matches_the_document():
    rows = shape_table(PRESETS["LLaMA-7B"], prompt_len=4, max_new_tokens=3)
    pre, first = rows[0], rows[1]
    assert pre.embedding == [1, 4, 4096] and pre.scores_per_head == [4, 4]
    assert pre.kv_cache == [32, 2, 4, 32, 128] and pre.hidden_out == [1, 4, 4096]
    assert pre.last_position == [1, 4096] and pre.logits == [1, 32000]
    assert first.embedding == [1, 1, 4096] and first.scores_per_head == [1, 5]
    assert first.kv_cache == [32, 2, 5, 32, 128]
    assert [r.context for r in rows] == [4, 5, 6]


def test_without_cache_every_step_feeds_the_whole_context():
    rows = shape_table(PRESETS["LLaMA-7B"], 4, 3, kv_cache=False)
    assert [r.scores_per_head for r in rows] == [[4, 4], [5, 5], [6, 6]]


def test_flop_split_for_a_tiny_config_by_hand():
    # linear per token: 2 layers x 2 x (8*16 + 8*8 + 3*8*16) = 2304; LM head 2*8*10 = 160; a = 4*2*2*4 = 64;
    # the last layer's o and MLP, which only the sampled token runs: 2 x (8*8 + 3*8*16) = 896
    assert step_flops_split(TINY_CONFIG, 10, kv_cache=True) == (2304 + 160, 64 * 10)
    assert step_flops_split(TINY_CONFIG, 10, kv_cache=False) == (10 * 2304 - 9 * 896 + 160, 64 * 55)
    # 2304 / 64 = 36; 2 x (2304 - 896) / 64 = 44
    assert crossover_context(TINY_CONFIG) == 36 and crossover_context(TINY_CONFIG, kv_cache=False) == 44


def test_crossover_for_llama7b_is_far_beyond_short_prompts():
    assert 20_000 < crossover_context(PRESETS["LLaMA-7B"]) < 30_000


def test_theory_sums_and_exponent_fit():
    lin, quad = theory_sums(0, 4)
    assert lin == [1, 3, 6, 10] and quad == [1, 5, 14, 30]
    x = [10, 20, 40, 80]
    assert abs(fit_exponent(x, [v**3 for v in x]) - 3) < 1e-9
