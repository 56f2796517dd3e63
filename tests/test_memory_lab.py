"""Memory lab: the C20 predictor by hand, the eager-vs-sdpa spike against its formula, where a peak
happened (the forward's tagged blocks), the C16 leak."""

from __future__ import annotations

import threading

import pytest
from transformers import AutoModelForCausalLM

from engine import load_model
from engine.config import PRESETS
from engine.observe import memory
from engine.observe.memory import ATTENTION, MLP, SCORES, AllocationTracker, block
from lab.memory_lab import (
    engine_loop,
    measure_prefill_memory,
    naive_hf_loop,
    peak_site,
    predict_fit,
    score_bytes,
)


def test_llama7b_fp16_at_10k_tokens_by_hand():
    c = PRESETS["LLaMA-7B"]
    assert score_bytes(c, 10_000, 10_000, 2, per_layer=False) == 200_000_000  # the document's ~200 MB per head
    report = predict_fit(c, 10_000, dtype_bytes=2, gpu_gb=24)
    assert report.scores == 32 * 200_000_000  # all 32 heads of one layer at once: 6.4 GB
    assert report.kv_cache == 2 * 32 * 32 * 128 * 10_000 * 2  # 5.24 GB
    assert report.weights == 6_738_415_616 * 2  # 13.5 GB
    assert report.activations == 10_000 * (4 * 4096 + 3 * 4096 + 4 * 11008) * 2
    assert report.overflow == "attention scores"  # weights + KV fit in 24 GB, the scores do not
    assert predict_fit(c, 10_000, 2, 24, fused=True).fits  # a FlashAttention-style kernel: 20.2 GB
    assert predict_fit(c, 10_000, 2, 24, chunk=1024).fits  # chunks of 1024 queries: 0.66 GB of scores
    assert predict_fit(c, 10_000, 2, 16, fused=True).overflow == "KV cache"
    assert predict_fit(c, 10_000, 2, 80).fits
    assert predict_fit(PRESETS["Llama-3-70B"], 1000, 2, 80).overflow == "weights"


def test_predictor_rejects_nonsense():
    with pytest.raises(ValueError):
        predict_fit(PRESETS["LLaMA-7B"], 0, 2, 80)


@pytest.fixture(scope="module")
def tiny_long(tiny_dirs):
    return load_model(str(tiny_dirs["llama-4k"]))


def test_eager_minus_sdpa_peak_is_the_score_matrix_at_2048(tiny_long):
    eager = measure_prefill_memory(tiny_long.model, tiny_long.tokenizer, 2048, "eager")
    sdpa = measure_prefill_memory(tiny_long.model, tiny_long.tokenizer, 2048, "sdpa")
    formula = score_bytes(tiny_long.model.config, 2048, 2048, 4)
    assert eager.formula_scores == formula
    assert abs((eager.peak_bytes - sdpa.peak_bytes) - formula) <= 0.10 * formula
    assert eager.scores_bytes == formula and sdpa.scores_bytes == 0
    assert eager.decode_peak_bytes < eager.peak_bytes / 100  # decode has no spike


def test_the_peak_says_which_block_it_happened_in(tiny_dirs):
    """sdpa's prefill peaks in the MLP where the (L, 2 ffn) gate/up product is written out (torch's
    kernels), and in attention where our C kernel applies SiLU x up as that product comes."""
    from engine.kernels import native

    folder, L = str(tiny_dirs["llama-4k"]), 1024
    torch_kernels = load_model(folder, kernels="linear")
    written = measure_prefill_memory(torch_kernels.model, torch_kernels.tokenizer, L, "sdpa")
    assert written.site == MLP
    eager = measure_prefill_memory(torch_kernels.model, torch_kernels.tokenizer, L, "eager")
    assert eager.site == ATTENTION and eager.scores_bytes > 0
    if native.library() is None:
        pytest.skip(f"the kernels are not built here: {native.build_error()}")
    ours = load_model(folder, kernels="gemv")
    fused = measure_prefill_memory(ours.model, ours.tokenizer, L, "sdpa")
    assert fused.site == ATTENTION and fused.peak_bytes < written.peak_bytes  # the MLP is no longer the top


def test_peak_sites_from_the_tags_and_no_tags_without_a_probe():
    assert peak_site({MLP: 10, "activations": 5}) == MLP
    assert peak_site({ATTENTION: 10}) == peak_site({SCORES: 10, "activations": 1}) == ATTENTION
    assert peak_site({"activations": 10}) == "other" and peak_site({}) is None
    assert block(MLP) is block(ATTENTION)  # the shared no-op: a forward without a probe pays nothing
    elsewhere = []
    with AllocationTracker():
        with block(MLP):
            assert memory._label.get() == MLP
        other = threading.Thread(target=lambda: elsewhere.append(block(MLP) is block(ATTENTION)))
        other.start()
        other.join()
    assert elsewhere == [True]  # a probe in one thread (a page's) tags nothing in another (a server's)
    assert block(MLP) is block(ATTENTION)


def test_chunked_prefill_shrinks_the_score_matrix(tiny_long):
    whole = measure_prefill_memory(tiny_long.model, tiny_long.tokenizer, 1024, "eager")
    chunked = measure_prefill_memory(tiny_long.model, tiny_long.tokenizer, 1024, "eager", chunk=256)
    assert chunked.scores_bytes == score_bytes(tiny_long.model.config, 256, 1024, 4) == whole.scores_bytes // 4
    assert chunked.peak_bytes < whole.peak_bytes / 2 and chunked.kv_bytes == whole.kv_bytes


def test_naive_loop_leaks_and_the_engine_does_not(tiny, tiny_dirs):
    hf = AutoModelForCausalLM.from_pretrained(tiny_dirs["llama"])
    prompts = [f"request number {i} says hello" for i in range(6)]
    naive = naive_hf_loop(hf, tiny.tokenizer, prompts, 4)
    ours = engine_loop(tiny.model, tiny.tokenizer, prompts, 4)
    grown = [p.retained_bytes for p in naive]
    assert all(b > a for a, b in zip(grown, grown[1:]))  # every request leaves its KV behind
    assert naive[-1].context_tokens == sum(len(tiny.tokenizer(p).input_ids) + 3 for p in prompts)
    assert all(p.retained_bytes == 0 and p.context_tokens == 0 for p in ours)


def test_leak_loops_untracked_report_cache_bytes_and_progress(tiny, tiny_dirs):
    hf = AutoModelForCausalLM.from_pretrained(tiny_dirs["llama"])
    prompts = [f"request number {i} says hello" for i in range(3)]
    seen = []
    naive = naive_hf_loop(hf, tiny.tokenizer, prompts, 3, track_tensors=False, progress=seen.append)
    assert seen == [1 / 3, 2 / 3, 1.0]
    per_token = tiny.model.config.kv_bytes_per_token(4)
    assert [p.retained_bytes for p in naive] == [None] * 3
    assert [p.cache_bytes for p in naive] == [p.context_tokens * per_token for p in naive]
    ours = engine_loop(tiny.model, tiny.tokenizer, prompts, 3, track_tensors=False)
    assert all(p.cache_bytes == 0 and p.retained_bytes is None for p in ours)
