"""The engine's one data path on a tiny model: trace contents, KV growth, batching, capture, no leaks."""

from __future__ import annotations

import pytest
import torch

from engine import Engine, EngineConfig, SamplingParams
from engine.worker.sampler import Sampler

PROMPT = "The quick brown fox jumps over the lazy dog"


def run(bundle, prompt=PROMPT, n=6, **cfg):
    engine = Engine(bundle.model, bundle.tokenizer, EngineConfig(**cfg))
    engine.add_request(prompt, SamplingParams(max_new_tokens=n, ignore_eos=True))
    for _ in engine.stream():
        pass
    return engine


def test_prefill_is_one_step_over_the_whole_prompt_then_one_token_per_step(tiny):
    engine = run(tiny)
    c = tiny.model.config
    L = len(engine.trace.requests[0].prompt_token_ids)
    steps = engine.trace.steps
    assert [s.phase for s in steps] == ["prefill"] + ["decode"] * 5
    pre = steps[0].seqs[0].shapes
    assert pre.input == [1, L, c.hidden_size] and pre.scores == [1, c.num_heads, L, L]
    assert pre.kv_cache == [c.num_layers, 2, L, c.num_kv_heads, c.head_dim]
    for t, s in enumerate(steps[1:], start=1):
        sh = s.seqs[0].shapes
        assert sh.input == [1, 1, c.hidden_size] and sh.scores == [1, c.num_heads, 1, L + t]
        assert sh.k == [1, c.num_kv_heads, L + t, c.head_dim]


def test_kv_cache_grows_by_one_token_per_decode_step_and_is_freed_at_the_end(tiny):
    engine = run(tiny, n=6)
    L = len(engine.trace.requests[0].prompt_token_ids)
    kv = [s.kv_tokens for s in engine.trace.steps]
    assert kv == [L, L + 1, L + 2, L + 3, L + 4, 0]  # the last step finishes the request and frees it
    per_token = tiny.model.config.kv_bytes_per_token(4)
    assert engine.trace.steps[2].kv_bytes == (L + 2) * per_token
    assert engine.trace.steps[2].kv_blocks == -(-(L + 2) // 16)


def test_token_events_carry_phase_text_and_times_that_define_the_metrics(tiny):
    engine = run(tiny, n=5)
    tokens = engine.trace.tokens
    req = engine.trace.requests[0]
    assert [t.phase for t in tokens] == ["prefill"] + ["decode"] * 4
    assert [t.token_id for t in tokens] == req.output_token_ids
    assert [t.time for t in tokens] == req.token_times
    m = req.metrics
    assert m.ttft_ms == pytest.approx((tokens[0].time - req.arrival) * 1e3)
    assert m.tpot_ms == pytest.approx((tokens[-1].time - tokens[0].time) * 1e3 / 4)
    assert len(m.itl_ms) == 4


def test_step_cost_and_memory_probe_are_recorded(tiny):
    engine = run(tiny, n=3)
    pre, dec = engine.trace.steps[0], engine.trace.steps[1]
    assert pre.flops > dec.flops > 0 and pre.flops == pre.flops_linear + pre.flops_attention
    assert pre.peak_bytes > dec.peak_bytes > 0  # the prefill spike
    assert run(tiny, n=2, probe_memory=False).trace.steps[0].peak_bytes is None


@pytest.mark.parametrize(
    "cfg",
    [
        dict(),
        dict(chunked_prefill=True, max_num_batched_tokens=5),
        dict(kv_cache=False),
        dict(attention="eager", block_size=1),
    ],
)
def test_a_batch_of_requests_gives_each_the_tokens_it_gets_alone(tiny, cfg):
    prompts = [PROMPT, "Hello there", "One two three four five six seven eight nine ten eleven"]
    alone = [run(tiny, p, n=8).trace.requests[0].output_token_ids for p in prompts]
    engine = Engine(tiny.model, tiny.tokenizer, EngineConfig(**cfg))
    seqs = [engine.add_request(p, SamplingParams(max_new_tokens=8, ignore_eos=True)) for p in prompts]
    for _ in engine.stream():
        pass
    assert [s.output_token_ids for s in seqs] == alone
    assert engine.kv.pool.num_free == engine.kv.pool.num_blocks


def test_eager_capture_keeps_the_causal_prefill_matrix_and_the_decode_rows(tiny):
    engine = run(tiny, n=3, attention="eager", capture_attention=True)
    L = len(engine.trace.requests[0].prompt_token_ids)
    H = tiny.model.config.num_heads
    pre = engine.trace.steps[0].attention
    assert sorted(pre) == list(range(tiny.model.config.num_layers))
    p = pre[0].float()
    assert p.shape == (H, L, L)
    assert torch.allclose(p.sum(-1), torch.ones(H, L), atol=1e-2)
    assert torch.all(p.triu(1) == 0)  # nothing attends to the future
    assert engine.trace.steps[1].attention[1].shape == (H, 1, L + 1)


def test_capture_respects_its_byte_budget(tiny):
    engine = run(tiny, n=2, attention="eager", capture_attention=True, capture_max_bytes=1)
    assert engine.trace.steps[0].attention == {}


def test_seeded_sampling_is_reproducible_and_top_k_1_is_greedy(tiny):
    def sample(**p):
        engine = Engine(tiny.model, tiny.tokenizer)
        engine.add_request(PROMPT, SamplingParams(max_new_tokens=8, ignore_eos=True, **p))
        for _ in engine.stream():
            pass
        return engine.trace.requests[0].output_token_ids

    greedy = sample()
    assert sample(temperature=1.0, seed=3) == sample(temperature=1.0, seed=3)
    assert any(sample(temperature=1.0, seed=s) != greedy for s in range(5))  # a temperature is not greedy
    assert sample(temperature=5.0, top_k=1, seed=1) == greedy
    assert sample(temperature=5.0, top_p=1e-6, seed=2) == greedy


@pytest.mark.parametrize("temperature", [0.5, 1.0, 2.0])
def test_sampling_draws_from_the_softmax_of_the_logits_over_the_temperature(temperature):
    """20,000 draws from fixed logits: each token's share is softmax(logits / T)'s, within 4 standard
    errors. A sampler that ignored T would miss at 0.5 and 2.0 by tens of standard errors."""
    logits = torch.tensor([[2.0, 1.0, 0.0, -1.0, -3.0]])
    params, draws, sampler = SamplingParams(temperature=temperature, seed=11), 20_000, Sampler()
    tokens = torch.tensor([sampler.sample(logits, [params], [0])[0] for _ in range(draws)])
    share = torch.bincount(tokens, minlength=5) / draws
    expected = (logits[0] / temperature).softmax(-1)
    stderr = (expected * (1 - expected) / draws).sqrt()
    assert ((share - expected).abs() <= 4 * stderr + 1e-4).all(), (share, expected)


def test_one_hundred_requests_leave_nothing_behind(tiny):
    engine = Engine(tiny.model, tiny.tokenizer, EngineConfig(probe_memory=False))
    pool = engine.kv.pool
    for i in range(100):
        engine.add_request(f"request number {i}", SamplingParams(max_new_tokens=3, ignore_eos=True))
        for _ in engine.stream():
            pass
        assert pool.num_free == pool.num_blocks and engine.trace.steps[-1].kv_bytes == 0
    pool.check_invariants()
    assert not engine.scheduler.running and not engine.scheduler.waiting
    assert not engine._detok and not engine.sampler._generators


def test_min_new_tokens_holds_eos_back(tiny):
    """With the greedy first token taken as EOS, a run stops after one token; with min_new_tokens=4
    that token cannot be sampled until four others have been."""
    first = run(tiny, n=1).trace.requests[0].output_token_ids[0]

    def generate(**params) -> list[int]:
        engine = Engine(tiny.model, tiny.tokenizer, EngineConfig(probe_memory=False))
        engine.eos_ids = {first}
        engine.add_request(PROMPT, SamplingParams(max_new_tokens=8, **params))
        for _ in engine.stream():
            pass
        return engine.trace.requests[0].output_token_ids

    assert generate() == [first]
    held = generate(min_new_tokens=4)
    assert first not in held[:4] and len(held) >= 4
    with pytest.raises(ValueError, match="min_new_tokens must be a whole number from 0 to max_new_tokens"):
        SamplingParams(max_new_tokens=2, min_new_tokens=3)


@pytest.mark.parametrize("chunk", [None, 4])
def test_only_the_sampled_rows_go_past_the_last_layers_attention(tiny, chunk):
    """Every prompt token runs the first layer's MLP; only the sampled one runs the last layer's (the
    others' K and V are all a later step needs of them), and the step's counted FLOPs say so."""
    from engine.observe.costmodel import SeqWork, step_cost

    layers, rows = tiny.model.layers, {0: [], -1: []}
    saved = {i: layers[i]["gate_up"] for i in rows}

    def recording(i):
        def product(x):
            rows[i].append(x.shape[0])
            return saved[i](x)

        return product

    cfg = dict(chunked_prefill=True, max_num_batched_tokens=chunk) if chunk else {}
    fused, tiny.model.fused = tiny.model.fused, None  # the torch forward's rows (a 1-token chunk could take the C step)
    try:
        for i in rows:
            layers[i]["gate_up"] = recording(i)
        engine = run(tiny, n=1, **cfg)
    finally:
        tiny.model.fused = fused
        for i in rows:
            layers[i]["gate_up"] = saved[i]
    L = len(engine.trace.requests[0].prompt_token_ids)
    chunks = [L] if chunk is None else [min(chunk, L - s) for s in range(0, L, chunk)]
    assert rows[0] == chunks and rows[-1] == [0] * (len(chunks) - 1) + [1]
    steps, context = engine.trace.steps, 0
    for step, n in zip(steps, chunks, strict=True):
        context += n
        work = SeqWork(n, context, int(context == L))
        assert step.flops_linear == step_cost(tiny.model.config, [work], 4).flops_linear
    assert run(tiny, n=1).trace.requests[0].output_token_ids == engine.trace.requests[0].output_token_ids


def test_where_our_kernel_runs_the_gate_up_product_silu_comes_with_it(tiny_dirs, monkeypatch):
    """A prefill on our C kernel computes SiLU(gate) x up as the gate/up product comes (the (N, 2 ffn)
    product is never written): the same logits, to the bit, as the product then the SiLU pass."""
    from engine import load_model
    from engine.kernels import native

    if native.library() is None:
        pytest.skip(f"the kernels are not built here: {native.build_error()}")
    bundle = load_model(str(tiny_dirs["llama"]), kernels="gemv")
    fused, calls = native.gemv_silu, []

    def counted(x, w):
        calls.append(x.shape[0])
        return fused(x, w)

    def prefill_logits() -> torch.Tensor:
        seen, original = [], bundle.model._logits
        monkeypatch.setattr(bundle.model, "_logits", lambda h: seen.append(original(h)) or seen[-1])
        engine = Engine(bundle.model, bundle.tokenizer, EngineConfig(probe_memory=False))
        engine.add_request(PROMPT, SamplingParams(max_new_tokens=1))
        for _ in engine.stream():
            pass
        monkeypatch.setattr(bundle.model, "_logits", original)
        return seen[0]

    monkeypatch.setattr(native, "gemv_silu", counted)
    one_call = prefill_logits()
    n = len(bundle.tokenizer.encode(PROMPT))
    assert calls == [n] * len(bundle.model.layers[:-1]) + [1]  # every layer's prompt rows; the last, the sampled one
    monkeypatch.setattr(native, "gemv_silu", lambda x, w: None)
    assert torch.equal(one_call, prefill_logits())
