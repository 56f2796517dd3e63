"""engine/loader/gguf_file.py reads a llama GGUF as transformers does: a tiny model written by gguf's own
writer (llama.cpp's q/k row order, Q4_1, Q8_0 and F32 tensors) comes back with the config and the
float32 weights of `AutoModelForCausalLM.from_pretrained(gguf_file=...)`, bit for bit; the bundled
folder's tokenizer, loaded without AutoTokenizer, is the one AutoTokenizer picks."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from gguf import GGMLQuantizationType, GGUFWriter
from gguf.quants import quantize
from transformers import AutoModelForCausalLM, LlamaConfig

from engine.loader.gguf_file import GgufError, hf_name, read_gguf, unpermute

HEADS, KV_HEADS, HIDDEN, LAYERS, FFN, VOCAB = 4, 2, 64, 2, 128, 96
# set by loading (the loader writes its own), and the GGUF note the converted float32 folder drops
LOADING_FIELDS = {"dtype", "architectures", "_name_or_path", "quantization_config"}


def permute(weight: np.ndarray, heads: int) -> np.ndarray:
    """llama.cpp's convert_hf_to_gguf.py reorders q/k rows like this."""
    return (
        weight.reshape(heads, 2, weight.shape[0] // heads // 2, *weight.shape[1:]).swapaxes(1, 2).reshape(weight.shape)
    )


def write_tiny_gguf(path, arch: str = "llama", extra_tensor: str | None = None) -> None:
    rng = np.random.default_rng(0)
    head_dim = HIDDEN // HEADS
    w = GGUFWriter(str(path), arch)
    w.add_name("tiny")
    w.add_context_length(128)
    w.add_embedding_length(HIDDEN)
    w.add_block_count(LAYERS)
    w.add_feed_forward_length(FFN)
    w.add_head_count(HEADS)
    w.add_head_count_kv(KV_HEADS)
    w.add_rope_freq_base(10000.0)
    w.add_rope_dimension_count(head_dim)
    w.add_layer_norm_rms_eps(1e-5)
    w.add_vocab_size(VOCAB)
    w.add_bos_token_id(1)
    w.add_eos_token_id(2)

    def add(name, shape, qtype):
        values = rng.standard_normal(shape).astype(np.float32) * 0.1
        if ".attn_q." in name or ".attn_k." in name:
            values = permute(values, HEADS if ".attn_q." in name else KV_HEADS)
        if qtype == GGMLQuantizationType.F32:
            w.add_tensor(name, values)
        else:
            blocks = quantize(values, qtype)
            w.add_tensor(name, blocks, raw_shape=blocks.shape, raw_dtype=qtype)

    add("token_embd.weight", (VOCAB, HIDDEN), GGMLQuantizationType.Q8_0)
    add("output_norm.weight", (HIDDEN,), GGMLQuantizationType.F32)
    for i in range(LAYERS):
        add(f"blk.{i}.attn_norm.weight", (HIDDEN,), GGMLQuantizationType.F32)
        add(f"blk.{i}.ffn_norm.weight", (HIDDEN,), GGMLQuantizationType.F32)
        add(f"blk.{i}.attn_q.weight", (HIDDEN, HIDDEN), GGMLQuantizationType.Q4_1)
        add(f"blk.{i}.attn_k.weight", (KV_HEADS * head_dim, HIDDEN), GGMLQuantizationType.Q4_1)
        add(f"blk.{i}.attn_v.weight", (KV_HEADS * head_dim, HIDDEN), GGMLQuantizationType.Q4_1)
        add(f"blk.{i}.attn_output.weight", (HIDDEN, HIDDEN), GGMLQuantizationType.Q4_1)
        add(f"blk.{i}.ffn_gate.weight", (FFN, HIDDEN), GGMLQuantizationType.Q4_1)
        add(f"blk.{i}.ffn_up.weight", (FFN, HIDDEN), GGMLQuantizationType.Q4_1)
        add(f"blk.{i}.ffn_down.weight", (HIDDEN, FFN), GGMLQuantizationType.Q4_1)
    if extra_tensor:
        add(extra_tensor, (HIDDEN,), GGMLQuantizationType.F32)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


def test_a_tiny_gguf_reads_as_transformers_reads_it(tmp_path):
    path = tmp_path / "tiny.gguf"
    write_tiny_gguf(path)
    config, state = read_gguf(path)
    hf = AutoModelForCausalLM.from_pretrained(str(tmp_path), gguf_file=path.name, dtype=torch.float32)
    theirs = {k: v for k, v in hf.state_dict().items() if k != "lm_head.weight"}  # tied to the embedding
    assert config["tie_word_embeddings"] and "lm_head.weight" not in state
    assert set(state) == set(theirs)
    for name, value in theirs.items():
        assert torch.equal(state[name], value), name
    ours, theirs = LlamaConfig(**config).to_dict(), hf.config.to_dict()
    assert {k for k in ours.keys() | theirs.keys() if ours.get(k) != theirs.get(k)} <= LOADING_FIELDS


def test_the_row_order_round_trips():
    rows = np.arange(8 * 3, dtype=np.float32).reshape(8, 3)
    assert np.array_equal(unpermute(permute(rows, 2), 2), rows)
    assert not np.array_equal(permute(rows, 2), rows)


def test_what_it_cannot_read_is_named(tmp_path):
    write_tiny_gguf(tmp_path / "gpt2.gguf", arch="gpt2")
    with pytest.raises(GgufError, match="takes llama GGUF files; this one is 'gpt2'"):
        read_gguf(tmp_path / "gpt2.gguf")
    write_tiny_gguf(tmp_path / "odd.gguf", extra_tensor="blk.0.attn_sinks.weight")
    with pytest.raises(GgufError, match="Unknown tensor 'blk.0.attn_sinks.weight'"):
        read_gguf(tmp_path / "odd.gguf")
    assert hf_name("rope_freqs.weight") is None


def test_the_bundled_tokenizer_is_the_one_autotokenizer_picks(bundled_dir):
    """The loader skips AutoTokenizer for the bundled folder; AutoTokenizer would choose the same."""
    from transformers import AutoTokenizer

    from engine.loader.model_loader import load_tokenizer

    ours, auto = load_tokenizer(bundled_dir), AutoTokenizer.from_pretrained(str(bundled_dir))
    assert type(ours) is type(auto)
    chat = [{"role": "user", "content": "今天天气 <b>fine</b>?"}]
    for text in ("The capital of France is", "今天天气", "  spaces\tand\nlines <|im_end|>"):
        assert ours(text).input_ids == auto(text).input_ids
    assert ours.apply_chat_template(chat, add_generation_prompt=True) == auto.apply_chat_template(
        chat, add_generation_prompt=True
    )
    assert (ours.eos_token_id, ours.bos_token_id, ours.pad_token_id) == (
        auto.eos_token_id,
        auto.bos_token_id,
        auto.pad_token_id,
    )
