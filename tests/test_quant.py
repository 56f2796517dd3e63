"""Quantised weights (engine/layers/quant.py) and KV cache dtypes (engine/layers/kv_cache.py), checked against plain
references: int8 round trips within half a step; each int8 kernel equals F.linear on the dequantised
weight; w8a8 equals its integer arithmetic written out; a quantised model's logits equal Hugging Face
on the dequantised weights (the same numbers the model stands for); within one format, the paths
that must agree (KV cache on/off, chunked prefill, batched) give the same greedy tokens; the pool's
bytes follow the KV dtype."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F
from transformers import AutoModelForCausalLM

from engine import Engine, EngineConfig, SamplingParams, load_model
from engine.kernels import native
from engine.layers.kv_cache import KV_DTYPES, KVCache, kv_bytes_per_token
from engine.layers.quant import QuantLinear, check_format, dequantize_int8, quantize_int8
from tests.engine_support import engine_logits

PROMPTS = ["The quick brown fox jumps over the lazy dog", "def add(a, b):", "今天天气很好"]


def test_int8_round_trip_is_within_half_a_step():
    torch.manual_seed(0)
    w = torch.randn(64, 96) * torch.logspace(-3, 1, 64)[:, None]  # rows of very different sizes
    w[5] = 0.0
    q, s = quantize_int8(w)
    assert q.dtype == torch.int8 and q.abs().max() <= 127 and s.shape == (64,) and s[5] == 1.0
    err = (dequantize_int8(q, s, torch.float32) - w).abs()
    assert (err <= s[:, None] / 2 + 1e-7).all() and (dequantize_int8(q, s, torch.float32)[5] == 0).all()
    assert (q.abs().amax(1)[torch.arange(64) != 5] == 127).all()  # each row's largest value uses the range


@pytest.mark.parametrize("dtype, tol", [(torch.float32, 1e-4), (torch.bfloat16, 3e-2)])
@pytest.mark.parametrize("kernel", ["int8pack", "dequant", "int8gemv"])
@pytest.mark.parametrize("rows", [1, 40])
def test_each_int8_kernel_equals_f_linear_on_the_dequantised_weight(dtype, tol, kernel, rows):
    torch.manual_seed(1)
    w, b = torch.randn(48, 80), torch.randn(48)
    lin = QuantLinear(w.to(dtype), b.to(dtype), "int8", (kernel, kernel))
    if kernel == "int8gemv":  # the C kernel takes float32 activations only; else the same numbers by dequant
        runs = dtype == torch.float32 and native.library() is not None
        assert lin.kernels == ((kernel, kernel) if runs else ("dequant", "dequant"))
    x = torch.randn(rows, 80).to(dtype)
    ref = F.linear(x.float(), lin.dequantized(torch.float32), b.to(dtype).float())
    got = lin(x).float()
    assert (got - ref).abs().max() <= tol * ref.abs().max()
    assert lin.num_bytes == 48 * 80 + 4 * 48 + 48 * b.to(dtype).element_size()


def test_w8a8_equals_its_integer_arithmetic():
    """fbgemm's dynamic int8: activations quantised per call (affine, 7-bit: 0..127), weights per
    channel, int32 accumulation, then scaled back."""
    torch.manual_seed(2)
    w, x = torch.randn(40, 64), torch.randn(5, 64)
    lin = QuantLinear(w, None, "w8a8")
    lo, hi = min(x.min().item(), 0.0), max(x.max().item(), 0.0)
    xs = (hi - lo) / 127
    zp = round(-lo / xs)
    xq = torch.clamp(torch.round(x / xs) + zp, 0, 127)
    acc = (xq - zp) @ lin.dequantized(torch.float32).div(lin.scale[:, None]).round().T  # int32 sums, exact in fp32
    ref = acc * xs * lin.scale
    assert (lin(x) - ref).abs().max() <= 1e-3 * ref.abs().max()
    assert (lin(x) - x @ w.T).abs().max() <= 0.05 * (x @ w.T).abs().max()  # and close to the float result


def test_a_format_the_device_cannot_run_says_why():
    with pytest.raises(ValueError, match="w8a8 .* float32 only"):
        check_format("w8a8", torch.bfloat16, torch.device("cpu"))
    with pytest.raises(ValueError, match="Unknown weight format 'int4'"):
        check_format("int4", torch.float32, torch.device("cpu"))
    with pytest.raises(ValueError, match="Unknown KV cache dtype 'int3'"):
        EngineConfig(kv_dtype="int3")


def hf_on_dequantised(folder, bundle) -> AutoModelForCausalLM:
    """Hugging Face's model with every linear weight (and the tied embedding/head) replaced by the
    numbers our int8 model holds: the plain reference for the quantised forward."""
    hf = AutoModelForCausalLM.from_pretrained(folder, dtype=torch.float32)
    m = bundle.model
    q, s = m.embed_q
    hf.model.embed_tokens.weight.data = dequantize_int8(q, s, torch.float32)
    if not hf.config.tie_word_embeddings:
        hf.lm_head.weight.data = m.lm_head.dequantized(torch.float32)
    for layer, ours in zip(hf.model.layers, m.layers):
        a, c = layer.self_attn, m.config
        qkv = ours["qkv"].dequantized(torch.float32)
        a.q_proj.weight.data, a.k_proj.weight.data, a.v_proj.weight.data = qkv.split([c.q_size, c.kv_size, c.kv_size])
        a.o_proj.weight.data = ours["o"].dequantized(torch.float32)
        gate, up = ours["gate_up"].dequantized(torch.float32).chunk(2)
        layer.mlp.gate_proj.weight.data, layer.mlp.up_proj.weight.data = gate, up
        layer.mlp.down_proj.weight.data = ours["down"].dequantized(torch.float32)
    return hf


@pytest.mark.parametrize("family", ["llama", "qwen2"])
@pytest.mark.parametrize("kernels", ["int8pack", "dequant", "int8gemv"])
def test_int8_logits_equal_hf_on_the_dequantised_weights(tiny_dirs, family, kernels):
    bundle = load_model(str(tiny_dirs[family]), weights="int8", kernels=kernels)
    prompt = bundle.tokenizer(PROMPTS[0]).input_ids
    tokens, ours = engine_logits(bundle, prompt, 10, attention="sdpa")
    hf = hf_on_dequantised(tiny_dirs[family], bundle)
    with torch.no_grad():
        ref = hf(torch.tensor([prompt + tokens])).logits[0, len(prompt) - 1 : len(prompt) - 1 + len(tokens)]
    assert (ours - ref).abs().max().item() <= 1e-4


def forced_logits(bundle, prompt: list[int], forced: list[int]) -> torch.Tensor:
    """The logits each step sampled from, with the outputs forced to `forced` (teacher forcing):
    every format is read at the same contexts."""
    engine = Engine(bundle.model, bundle.tokenizer, EngineConfig())
    seen, sample = [], engine.sampler.sample
    engine.sampler.sample = lambda logits, *a: (seen.append(logits.clone()), sample(logits, *a))[1]
    engine.add_request(prompt, SamplingParams(max_new_tokens=len(forced), ignore_eos=True), forced_output=forced)
    for _ in engine.stream():
        pass
    return torch.cat(seen)


def test_the_bundled_model_in_each_weight_format_against_fp32(bundled):
    """The error a format adds is measured, not hidden. Weight-only int8 keeps the real model's
    next-token distributions (KL < 0.02 nats, the same top-1 everywhere); w8a8 also quantises the
    activations per call, one scale for a whole row of 576 values with outliers, and loses far more:
    that is the finding the precision lab shows, held here so a change that hides it fails."""
    prompt = bundled.tokenizer("The capital of France is").input_ids
    forced, ref = engine_logits(bundled, prompt, 8, attention="sdpa")
    kl = {}
    for weights in ("int8", "w8a8"):
        # int8's kernel forced: the error is the format's, and timing both kernels on every shape costs
        # 15 s (each kernel is checked against F.linear above, the choice in test_kernels.py)
        kernels = "dequant" if weights == "int8" else None
        ours = forced_logits(load_model("bundled", weights=weights, kernels=kernels), prompt, forced)
        kl[weights] = F.kl_div(ours.log_softmax(-1), ref.log_softmax(-1), log_target=True, reduction="none").sum(-1)
        top1 = (ours.argmax(-1) == ref.argmax(-1)).float().mean().item()
        assert torch.isfinite(ours).all() and top1 >= (1.0 if weights == "int8" else 0.5), (weights, top1)
    assert kl["int8"].max() < 0.02, kl["int8"]
    assert kl["w8a8"].mean() > 5 * kl["int8"].mean(), kl


@pytest.mark.parametrize(
    "weights, kv_dtype", [("int8", "auto"), ("native", "int8"), ("native", "float8_e4m3fn"), ("int8", "int8")]
)
def test_paths_that_must_agree_do_within_one_format(tiny_dirs, weights, kv_dtype):
    """Batched equals solo always; KV cache on/off and chunked prefill equal the plain run when the
    cache keeps the model's own numbers (a quantised KV cache is read by decode, so those paths may
    differ from a run that never reads it: that is its error, measured in the precision lab).
    Not w8a8: one activation scale spans a call's rows, so which rows share a call changes the
    numbers (see the next test)."""
    bundle = load_model(str(tiny_dirs["llama"]), weights=weights)
    ids = [bundle.tokenizer(p).input_ids for p in PROMPTS]
    params = SamplingParams(max_new_tokens=10, ignore_eos=True)

    def greedy(prompts, **cfg):
        e = Engine(bundle.model, bundle.tokenizer, EngineConfig(kv_dtype=kv_dtype, **cfg))
        for p in prompts:
            e.add_request(p, params)
        for _ in e.stream():
            pass
        return [r.output_token_ids for r in sorted(e.trace.requests, key=lambda r: r.seq_id)]

    solo = [greedy([p])[0] for p in ids]
    assert greedy(ids) == solo
    if kv_dtype == "auto":
        assert greedy(ids, kv_cache=False) == solo
        assert greedy(ids, chunked_prefill=True, max_num_batched_tokens=4) == solo


def test_w8a8_couples_the_rows_of_a_call(tiny_dirs):
    """Why w8a8 is outside the test above: a row's result depends on the other rows of its call
    (their largest value sets the shared activation scale); weight-only int8 has no such coupling."""
    torch.manual_seed(4)
    x = torch.randn(3, 64)
    loud = torch.cat([x, 50 * torch.randn(1, 64)])  # the same three rows beside one with large values
    for fmt, coupled in (("w8a8", True), ("int8", False)):
        lin = QuantLinear(torch.randn(32, 64), None, fmt)
        moved = (lin(x) - lin(loud)[:3]).abs().max() / lin(x).abs().max()  # float GEMMs differ by ~1e-7 anyway
        assert (moved > 1e-3) == coupled, (fmt, moved)


@pytest.mark.parametrize("kv_dtype", KV_DTYPES)
def test_the_pool_counts_the_bytes_its_dtype_stores(tiny, kv_dtype):
    c = tiny.model.config
    e = Engine(tiny.model, tiny.tokenizer, EngineConfig(kv_dtype=kv_dtype, kv_cache_bytes=1 << 20, block_size=4))
    elem = {"auto": 4, "float32": 4, "bfloat16": 2, "float16": 2, "float8_e4m3fn": 1, "int8": 1}[kv_dtype]
    scales = 2 * c.num_layers * c.num_kv_heads * 4 if kv_dtype == "int8" else 0
    per_token = 2 * c.num_layers * c.num_kv_heads * c.head_dim * elem + scales
    assert e.kv_bytes_per_token == e.kv.bytes_per_token == per_token
    assert e.kv.pool.num_blocks == max((1 << 20) // (per_token * 4), -(-e.max_model_len // 4))
    assert e.kv.data.element_size() == elem
    trace = e.generate("Hello there", SamplingParams(max_new_tokens=3, ignore_eos=True))
    last = trace.steps[-1]
    assert last.kv_bytes == last.kv_tokens * per_token


@pytest.mark.parametrize(
    "kv_dtype, bound, floor",
    [("int8", 0.5 / 127, 1e-6), ("float8_e4m3fn", 1 / 16, 2**-10), ("bfloat16", 1 / 256, 1e-6)],
)
def test_kv_read_returns_what_was_written_within_the_formats_step(tiny, kv_dtype, bound, floor):
    """Half a step of the format: int8's step is the row's max / 127; a float format's is relative
    (3 mantissa bits for e4m3, 7 for bf16), with e4m3's subnormal step 2^-9 near zero."""
    c = tiny.model.config
    kv = KVCache(c, num_blocks=4, block_size=4, dtype=torch.float32, device="cpu", kv_dtype=kv_dtype)
    torch.manual_seed(3)
    k, v = torch.randn(1, c.num_kv_heads, 6, c.head_dim) * 3, torch.randn(1, c.num_kv_heads, 6, c.head_dim)
    slots = torch.tensor([8, 9, 10, 11, 0, 1])  # blocks 2 then 0: not contiguous
    for layer in range(c.num_layers):
        kv.write(layer, None, slots, k, v)
    rk, rv = kv.read(0, None, torch.tensor([2, 0]), 6)
    assert rk.dtype == torch.float32 and rk.shape == k.shape
    for got, want in ((rk, k), (rv, v)):
        top = want.abs().amax(-1, keepdim=True) if kv_dtype == "int8" else want.abs()
        assert ((got - want).abs() <= bound * top + floor).all()
    kv.write(1, 0, slots, k, v)  # a slice write, read back as a view of consecutive slots
    ck, _ = kv.read(1, 0, None, 6)
    assert (
        (ck - k).abs() <= (bound * (k.abs().amax(-1, keepdim=True) if kv_dtype == "int8" else k.abs())) + floor
    ).all()
    assert kv_bytes_per_token(c, kv.storage) == kv.bytes_per_token


def test_an_int8_layer_on_the_c_kernel_alone_holds_one_copy():
    """Both regimes on int8gemv: the packed copy is the only one kept, and q comes back from it."""
    if native.library() is None:
        pytest.skip(f"the C kernels are not built here: {native.build_error()}")
    w = torch.randn(37, 40)  # 37 rows: the packed copy pads its last block to 48
    q, _ = quantize_int8(w)
    alone = QuantLinear(w, None, "int8", ("int8gemv", "int8gemv"))
    assert alone.q is None and torch.equal(alone.int8_rows(), q)
    assert alone.held_bytes == alone.num_bytes + (48 - 37) * 40
    mixed = QuantLinear(w, None, "int8", ("int8gemv", "dequant"))  # dequant reads q: both kept
    assert mixed.q is not None and mixed.held_bytes == mixed.num_bytes + 48 * 40
