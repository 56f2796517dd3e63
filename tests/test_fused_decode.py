"""The decode step in one C call (engine/models/fused_decode.py, engine/kernels/csrc/decode.c): the same numbers as the
torch forward, in every family (Qwen2's q/k/v bias, Qwen3's q/k norms, llama3 RoPE), a head size the
vector loops do not divide, several sequences of different lengths in one step, scattered KV blocks,
int8 weights; and the torch forward wherever it cannot run (another KV format, a captured step, a step
with a prefill in it, no C kernels). Against Hugging Face: tests/test_reference.py (its gemv plan and
the bundled model's own plan run through here)."""

from __future__ import annotations

import pytest
import torch

from engine import Engine, EngineConfig, SamplingParams, load_model
from engine.kernels import native
from tests.conftest import save_tiny_model

pytestmark = pytest.mark.skipif(native.library() is None, reason="the C kernels are not built here")

PROMPTS = ["The quick brown fox jumps over the lazy dog", "Hello", "def f(x):\n    return x * 2 + 1"]


def run(bundle, fused: bool, steps: int = 10, **cfg) -> tuple[list[list[int]], list[torch.Tensor], int]:
    """Greedy tokens of every prompt run together, the logits of each step, and the fused calls made."""
    model, saved = bundle.model, bundle.model.fused
    if not fused:
        model.fused = None
    before = saved.calls if saved is not None else 0
    try:
        engine = Engine(model, bundle.tokenizer, EngineConfig(probe_memory=False, **cfg))
        seen = []
        sample = engine.sampler.sample
        engine.sampler.sample = lambda logits, *a: (seen.append(logits.clone()), sample(logits, *a))[1]
        seqs = [
            engine.add_request(bundle.tokenizer(p).input_ids, SamplingParams(max_new_tokens=steps, ignore_eos=True))
            for p in PROMPTS
        ]
        for _ in engine.stream():
            pass
    finally:
        model.fused = saved
    return [s.output_token_ids for s in seqs], seen, (saved.calls - before if saved is not None else 0)


def assert_same_as_torch(bundle, **cfg) -> int:
    tokens, logits, calls = run(bundle, True, **cfg)
    ref_tokens, ref_logits, _ = run(bundle, False, **cfg)
    assert tokens == ref_tokens
    assert [t.shape for t in logits] == [t.shape for t in ref_logits]
    worst = max((a - b).abs().max().item() for a, b in zip(logits, ref_logits))
    assert worst <= 1e-4, worst
    return calls


@pytest.fixture(scope="module")
def odd_head_dir(tmp_path_factory, tokenizer_dir):
    """A head size of 12: the 16-wide loops run their scalar tails."""
    folder = tmp_path_factory.mktemp("odd-head")
    return save_tiny_model(folder, "llama", tokenizer_dir, seed=5, hidden_size=48, num_attention_heads=4)


@pytest.mark.parametrize("family", ["llama", "qwen2", "qwen3", "llama3-rope", "odd-head"])
def test_every_family_decodes_as_the_torch_forward(tiny_dirs, odd_head_dir, family):
    folder = odd_head_dir if family == "odd-head" else tiny_dirs[family]
    bundle = load_model(str(folder), kernels="gemv")
    assert bundle.model.fused is not None
    calls = assert_same_as_torch(bundle, attention="sdpa")
    assert calls >= 9  # every step after the prefills, three sequences in each


@pytest.mark.parametrize("block_size", [1, 16])
def test_scattered_blocks_and_int8_weights(tiny_dirs, block_size):
    """block_size 1 with three sequences growing in turn: no sequence's blocks stay consecutive."""
    for weights, kernels in (("native", "gemv"), ("int8", "int8gemv")):
        bundle = load_model(str(tiny_dirs["llama"]), kernels=kernels, weights=weights, dtype="float32")
        assert bundle.model.fused is not None, weights
        assert assert_same_as_torch(bundle, block_size=block_size, attention="eager") >= 9


def test_a_row_gets_the_same_numbers_alone_or_with_others(tiny_dirs):
    bundle = load_model(str(tiny_dirs["qwen2"]), kernels="gemv")
    together, logits, _ = run(bundle, True)
    prompt = bundle.tokenizer(PROMPTS[0]).input_ids
    engine = Engine(bundle.model, bundle.tokenizer, EngineConfig(probe_memory=False))
    seen = []
    sample = engine.sampler.sample
    engine.sampler.sample = lambda lg, *a: (seen.append(lg.clone()), sample(lg, *a))[1]
    engine.add_request(prompt, SamplingParams(max_new_tokens=10, ignore_eos=True))
    for _ in engine.stream():
        pass
    assert engine.trace.requests[0].output_token_ids == together[0]
    assert torch.equal(torch.cat(seen)[1:], torch.stack([step[0] for step in logits[1:]]))  # bit for bit


@pytest.mark.parametrize(
    "cfg",
    [
        dict(kv_dtype="bfloat16"),  # the pool is not float32
        dict(capture_attention=True, attention="eager"),  # the page wants the probabilities
        dict(kv_cache=False),  # every step is a prefill of the whole context
    ],
    ids=["bf16-kv", "capture", "no-kv-cache"],
)
def test_steps_it_cannot_take_run_the_torch_forward(tiny_dirs, cfg):
    bundle = load_model(str(tiny_dirs["llama"]), kernels="gemv")
    assert run(bundle, True, **cfg)[2] == 0


def test_no_fused_step_without_the_c_matrix_kernels(tiny_dirs):
    for kernels in ("linear", "packed"):
        assert load_model(str(tiny_dirs["llama"]), kernels=kernels).model.fused is None
    assert load_model(str(tiny_dirs["llama"]), kernels="gemv", dtype="bfloat16").model.fused is None


def test_one_and_two_threads_give_the_same_numbers(tiny_dirs):
    bundle = load_model(str(tiny_dirs["llama"]), kernels="gemv")
    before = torch.get_num_threads()
    try:
        torch.set_num_threads(1)
        one = run(bundle, True)
        torch.set_num_threads(2)
        two = run(bundle, True)
    finally:
        torch.set_num_threads(before)
    assert one[0] == two[0] and all(torch.equal(a, b) for a, b in zip(one[1], two[1]))
