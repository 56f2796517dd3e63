"""Prefill and decode on separate engines (engine/core/kv_transfer.py): the decode engine continues from
the hand-off exactly as one engine does, the KV it receives is the prefill engine's bit for bit, and
what travels is the formula's bytes."""

from __future__ import annotations

import pytest
import torch

from engine import Engine, EngineConfig, SamplingParams
from engine.core.kv_transfer import KVHandoff, adopt, prefill
from engine.errors import LabError
from engine.layers.kv_cache import KV_DTYPES, kv_bytes_per_token

PROMPTS = ["The quick brown fox jumps over the lazy dog", "Hello", "one two three one two three one two three"]


def _engines(tiny, kv_dtype: str = "auto", **prefill_cfg):
    p = Engine(tiny.model, tiny.tokenizer, EngineConfig(probe_memory=False, kv_dtype=kv_dtype, **prefill_cfg))
    d = Engine(tiny.model, tiny.tokenizer, EngineConfig(probe_memory=False, kv_dtype=kv_dtype))
    return p, d


@pytest.mark.parametrize("kv_dtype", KV_DTYPES)
def test_prefill_here_decode_there_gives_the_colocated_tokens(tiny, kv_dtype):
    params = SamplingParams(max_new_tokens=12, ignore_eos=True)
    p, d = _engines(tiny, kv_dtype)
    seqs = []
    for prompt in PROMPTS:
        h = KVHandoff.from_bytes(prefill(p, prompt, params).to_bytes())  # through the wire format
        assert p.kv.pool.num_used == 0  # the prefill side let it go
        seqs.append(adopt(d, h))
    for _ in d.stream():  # the three decode together, batched
        pass
    colocated = Engine(tiny.model, tiny.tokenizer, EngineConfig(probe_memory=False, kv_dtype=kv_dtype))
    for prompt, seq in zip(PROMPTS, seqs):
        want = colocated.generate(prompt, params).requests[-1]
        assert seq.output_token_ids == want.output_token_ids, prompt
    texts = [r.text for r in d.trace.requests]
    assert texts == [r.text for r in colocated.trace.requests]
    assert d.kv.pool.num_used == 0


@pytest.mark.parametrize("kv_dtype", ["auto", "bfloat16", "float8_e4m3fn", "int8"])
def test_the_kv_received_is_the_prefill_engines_bit_for_bit_and_the_formulas_bytes(tiny, kv_dtype):
    p, d = _engines(tiny, kv_dtype, chunked_prefill=True, max_num_batched_tokens=4)  # a prefill in chunks
    params = SamplingParams(max_new_tokens=4, ignore_eos=True)
    seq = p.add_request(PROMPTS[0], params)
    while not seq.num_output_tokens:
        p.step()
    T = seq.num_prompt_tokens
    slots = p.kv.slots(seq.block_table, 0, T)
    raw = p.kv.data.view(torch.uint8) if kv_dtype == "float8_e4m3fn" else p.kv.data
    theirs = raw.index_select(3, slots).clone()
    p.abort(seq)
    h = prefill(p, PROMPTS[0], params)
    assert torch.equal(h.kv, theirs)
    assert h.nbytes == T * kv_bytes_per_token(tiny.model.config, p.kv.storage)
    c = tiny.model.config
    elem = p.kv.data.element_size()
    scales = 2 * c.num_layers * c.num_kv_heads * 4 * T if kv_dtype == "int8" else 0
    assert h.nbytes == c.num_layers * 2 * c.num_kv_heads * c.head_dim * elem * T + scales
    got = adopt(d, h)
    dslots = d.kv.slots(got.block_table, 0, T)
    draw = d.kv.data.view(torch.uint8) if kv_dtype == "float8_e4m3fn" else d.kv.data
    assert torch.equal(draw.index_select(3, dslots), h.kv)
    if kv_dtype == "int8":
        assert torch.equal(d.kv.scales.index_select(3, dslots), h.scales)


def test_a_hand_off_the_decode_side_cannot_take_is_refused_by_name(tiny, tiny_dirs):
    from engine.loader.model_loader import load_model

    params = SamplingParams(max_new_tokens=4, ignore_eos=True)
    p, _ = _engines(tiny, "int8")
    h = prefill(p, PROMPTS[0], params)
    with pytest.raises(LabError, match="KV is int8 and this decode worker's float32"):
        adopt(Engine(tiny.model, tiny.tokenizer, EngineConfig(probe_memory=False)), h)
    other = load_model(str(tiny_dirs["llama-4k"]))  # another model, same shapes: shape is all a pool can check
    p2, _ = _engines(tiny)
    assert adopt(Engine(other.model, other.tokenizer, EngineConfig(probe_memory=False)), prefill(p2, "Hi", params))
    one = prefill(p2, "Hi", SamplingParams(max_new_tokens=1))
    assert one.finished and one.num_tokens == 0
    with pytest.raises(LabError, match="nothing to decode"):
        adopt(Engine(tiny.model, tiny.tokenizer, EngineConfig(probe_memory=False)), one)
    bad = prefill(p2, "Hi", params)
    bad.first_token = 10**9
    with pytest.raises(LabError, match="token ids must be whole numbers"):
        adopt(Engine(tiny.model, tiny.tokenizer, EngineConfig(probe_memory=False)), bad)
    with pytest.raises(LabError, match="Not a KV hand-off"):
        KVHandoff.from_bytes(b'{"storage": "float32"}\n')
