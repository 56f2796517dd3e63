"""The gguf weight format (engine/layers/gguf_weights.py, engine/kernels/csrc/gguf.c): a GGUF file's Q4_1 and Q8_0
blocks computed on as they are give the float32 kernel's numbers to the bit, for any number of rows
(in registers or through a block's float32 copy), a padded last block, a bias, one or two threads; the
bundled model in this format computes the float32 model's logits exactly, prefill and the one-call
decode step alike, holding a fraction of the bytes; what it cannot run is refused by name. Against
Hugging Face: the float32 model's own tests (tests/test_reference.py), whose numbers these equal."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from engine import Engine, EngineConfig, SamplingParams, load_model
from engine.errors import LabError
from engine.kernels import native
from engine.layers.gguf_weights import GGUFBlocks, GGUFLinear

pytestmark = pytest.mark.skipif(native.library() is None, reason="the C kernels are not built here")


def random_blocks(kind: str, n: int, k: int, seed: int = 0) -> GGUFBlocks:
    """gguf's own quantiser on random weights: blocks as a file would hold them."""
    from gguf import GGMLQuantizationType
    from gguf.quants import quantize

    w = np.random.default_rng(seed).standard_normal((n, k)).astype(np.float32)
    return GGUFBlocks(kind, torch.from_numpy(quantize(w, GGMLQuantizationType[kind])), k)


@pytest.mark.parametrize("kind", ["Q4_1", "Q8_0"])
@pytest.mark.parametrize("rows", [1, 3, 4, 5, 70])  # up to one pass in registers; past it, a float32 copy
def test_blocks_give_the_float32_kernels_numbers_exactly(kind, rows):
    blocks = random_blocks(kind, 40, 96)  # 40 rows: the last block of 16 is padded
    weight, bias = blocks.dequantize(), torch.randn(40)
    x = torch.randn(rows, 96) * 3
    linear, packed = GGUFLinear(blocks, bias), native.pack(weight)
    before = torch.get_num_threads()
    try:
        for threads in (1, 2):
            torch.set_num_threads(threads)
            assert torch.equal(linear(x), native.gemv(x, packed, bias))
            assert torch.equal(GGUFLinear(blocks)(x), native.gemv(x, packed))
    finally:
        torch.set_num_threads(before)
    torch.testing.assert_close(linear(x), F.linear(x, weight, bias), rtol=1e-5, atol=1e-4)
    # the packing carries every byte: a block's last byte changed gives other numbers
    changed = GGUFBlocks(kind, blocks.raw.clone(), 96)
    changed.raw[0, -1] ^= 0x11
    assert not torch.equal(GGUFLinear(changed)(x), GGUFLinear(blocks)(x))


@pytest.mark.parametrize("kind", ["Q4_1", "Q8_0"])
def test_gate_up_with_silu_in_one_call_equals_the_two_passes_exactly(kind):
    blocks = random_blocks(kind, 64, 96)  # [gate | up], 32 rows each
    linear, x = GGUFLinear(blocks), torch.randn(70, 96) * 3
    assert linear.gemv_weight(1) is None  # a decode step's rows de-quantise in registers instead
    before = torch.get_num_threads()
    try:
        for threads in (1, 2):
            torch.set_num_threads(threads)
            assert torch.equal(native.gemv_silu(x, linear.gemv_weight(70)), native.silu_mul(linear(x)))
    finally:
        torch.set_num_threads(before)


def test_stacked_blocks_and_their_byte_counts():
    q, k = random_blocks("Q4_1", 32, 64, seed=1), random_blocks("Q4_1", 16, 64, seed=2)
    both = GGUFBlocks.cat([q, k])
    assert both.shape == (48, 64) and torch.equal(both.dequantize(), torch.cat([q.dequantize(), k.dequantize()]))
    assert GGUFLinear(both).num_bytes == 48 * 2 * 20  # 64 inputs: two blocks of 20 bytes a row
    assert torch.equal(both.dequantize(torch.tensor([47, 0])), both.dequantize()[[47, 0]])
    with pytest.raises(ValueError):
        GGUFBlocks.cat([q, random_blocks("Q8_0", 16, 64)])


@pytest.fixture(scope="module")
def gguf_model(bundled_dir):
    return load_model(str(bundled_dir), weights="gguf")


@pytest.fixture(scope="module")
def on_c_kernels(bundled_dir):
    """The float32 model on the C kernels, whose numbers gguf's equal (a plan may choose MKL's or
    oneDNN's for a shape, which round otherwise: within 1e-4, tests/test_reference.py)."""
    return load_model(str(bundled_dir), kernels="gemv")


def logits_of(bundle, ids: list[int], steps: int) -> tuple[list[int], list[torch.Tensor], int]:
    model = bundle.model
    before = model.fused.calls if model.fused is not None else 0
    engine = Engine(model, bundle.tokenizer, EngineConfig(probe_memory=False))
    seen = []
    sample = engine.sampler.sample
    engine.sampler.sample = lambda logits, *a: (seen.append(logits.clone()), sample(logits, *a))[1]
    seq = engine.add_request(ids, SamplingParams(max_new_tokens=steps, ignore_eos=True))
    for _ in engine.stream():
        pass
    return seq.output_token_ids, seen, (model.fused.calls - before if model.fused is not None else 0)


def test_the_bundled_model_computes_the_float32_logits_exactly(on_c_kernels, gguf_model):
    bundled = on_c_kernels
    m = gguf_model.model
    assert m.weight_format == "gguf" and m.embed is None and m.fused is not None
    assert {lin.kind for lin in m.linears().values()} == {"Q4_1", "Q8_0"}
    assert m.weight_bytes < bundled.model.weight_bytes / 5 and m.weight_elem_bytes == 20 / 32
    ids = bundled.tokenizer("The history of computing is a story of ideas meeting machines.").input_ids
    ours, ours_logits, fused = logits_of(gguf_model, ids, 8)
    ref, ref_logits, _ = logits_of(bundled, ids, 8)
    assert fused == 7 and ours == ref  # the decode steps ran in one C call each
    assert all(torch.equal(a, b) for a, b in zip(ours_logits, ref_logits, strict=True))


def test_what_it_cannot_run_is_refused_by_name(tiny_dirs, bundled_dir):
    with pytest.raises(LabError, match="bundled GGUF"):
        load_model(str(tiny_dirs["llama"]), weights="gguf")
    with pytest.raises(LabError, match="float32 activations"):
        load_model(str(bundled_dir), dtype="bfloat16", weights="gguf")
