"""A llama-architecture GGUF file read into a `transformers` config, state dict and tokenizer, the way
`transformers` reads it (same names, same float32 values) but in one pass over the file: its own GGUF
path re-reads the file for the config, the tokenizer and the weights and rebuilds its tensor-name
map once per module (~30 s for the bundled model on 2 cores; this takes a few)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import torch

from engine.errors import LabError

ARCHITECTURE = "llama"

# GGUF's tensor names (ggml's gguf.md, "Standardized tensor names") and transformers' for llama.
_TOP = {
    "token_embd.weight": "model.embed_tokens.weight",
    "output_norm.weight": "model.norm.weight",
    "output.weight": "lm_head.weight",
}
_BLOCK = {
    "attn_norm": "input_layernorm",
    "attn_q": "self_attn.q_proj",
    "attn_k": "self_attn.k_proj",
    "attn_v": "self_attn.v_proj",
    "attn_output": "self_attn.o_proj",
    "ffn_norm": "post_attention_layernorm",
    "ffn_gate": "mlp.gate_proj",
    "ffn_up": "mlp.up_proj",
    "ffn_down": "mlp.down_proj",
}
_BLOCK_NAME = re.compile(r"blk\.(\d+)\.(\w+)\.(weight|bias)")
_IGNORED = {"rope_freqs.weight"}  # llama.cpp's precomputed RoPE factors; transformers recomputes them


class GgufError(LabError):
    """A GGUF file this reader cannot turn into a llama model."""


def hf_name(gguf_name: str) -> str | None:
    """transformers' name of a GGUF tensor, or None for one it has no parameter for."""
    if gguf_name in _TOP:
        return _TOP[gguf_name]
    if gguf_name in _IGNORED:
        return None
    m = _BLOCK_NAME.fullmatch(gguf_name)
    if not m or m.group(2) not in _BLOCK:
        raise GgufError(f"Unknown tensor {gguf_name!r} in a llama GGUF file.")
    return f"model.layers.{m.group(1)}.{_BLOCK[m.group(2)]}.{m.group(3)}"


def unpermute(weight: np.ndarray, heads: int) -> np.ndarray:
    """Undo llama.cpp's reordering of q/k rows (it interleaves each head's two RoPE halves)."""
    half = weight.shape[0] // heads // 2
    return weight.reshape(heads, half, 2, *weight.shape[1:]).swapaxes(2, 1).reshape(weight.shape)


def read_config(metadata: dict, tensor_names: tuple[str, ...]) -> dict:
    """The config transformers builds from this file's metadata (its GGUF key map, applied here)."""
    from transformers.integrations.ggml import GGUF_CONFIG_MAPPING

    arch = metadata.get("general.architecture")
    if arch != ARCHITECTURE:
        raise GgufError(f"This reader takes llama GGUF files; this one is {arch!r}.")
    config: dict = {"tie_word_embeddings": "output.weight" not in tensor_names}
    for prefix in ("general", ARCHITECTURE, "tokenizer"):
        for key, name in GGUF_CONFIG_MAPPING[prefix].items():
            if f"{prefix}.{key}" in metadata:
                config[name] = metadata[f"{prefix}.{key}"]
    if "vocab_size" not in config:
        config["vocab_size"] = metadata["tokenizer.ggml.tokens"]  # the reader gives an array's length
    return config


def _tensors(path: Path, config: dict):
    """For each tensor the model has a parameter for: transformers' name, the ggml type, the tensor's
    header, its bytes (mapped, read when used) and `rows`, which puts a matrix's rows (float values,
    or raw blocks: a row's blocks move with it) in transformers' order, undoing llama.cpp's q/k one."""
    from gguf import GGMLQuantizationType
    from transformers.integrations.gguf import GgufHeader, load_gguf_state_dict

    header = GgufHeader.from_file(str(path))
    raw = load_gguf_state_dict(header)  # each tensor's bytes, mapped, not yet read
    heads = {"q_proj": config["num_attention_heads"], "k_proj": config["num_key_value_heads"]}
    for info in header.tensors:
        name = hf_name(info.name)
        if name is None:
            continue
        projection = name.split(".")[-2]  # model.layers.N.self_attn.q_proj.weight -> q_proj

        def rows(data, projection=projection):
            return unpermute(data, heads[projection]) if projection in heads else data

        yield name, GGMLQuantizationType(info.ggml_type), info, raw[info.name].data, rows


def read_weights(path: Path, config: dict) -> dict[str, torch.Tensor]:
    """Every tensor, de-quantised to float32 with gguf's own de-quantisers, under transformers' names."""
    from gguf.quants import dequantize

    state: dict[str, torch.Tensor] = {}
    for name, ggml_type, info, data, rows in _tensors(path, config):
        values = rows(dequantize(data, ggml_type).reshape(info.shape))
        state[name] = torch.from_numpy(np.require(values, np.float32, ["C", "W"]))  # F32 ones are mapped read-only
    return state


def read_blocks(path: Path, config: dict) -> dict:
    """The Q4_1 and Q8_0 tensors as the file holds them (engine/gguf_weights.GGUFBlocks), under
    transformers' names, q/k rows in transformers' order; the rest are not read."""
    from engine.layers.gguf_weights import BLOCK_BYTES, GGUFBlocks

    blocks = {}
    for name, ggml_type, info, data, rows in _tensors(path, config):
        if ggml_type.name in BLOCK_BYTES:
            raw = rows(np.asarray(data, dtype=np.uint8).reshape(info.shape[0], -1))
            blocks[name] = GGUFBlocks(ggml_type.name, torch.from_numpy(np.array(raw)), info.shape[-1])
    return blocks


def read_tokenizer(path: Path):
    """The file's tokenizer, as transformers converts it."""
    from transformers import TokenizersBackend

    return TokenizersBackend.from_pretrained(str(path.parent), gguf_file=path.name)


def read_gguf(path: Path) -> tuple[dict, dict[str, torch.Tensor]]:
    """(config dict, float32 state dict) of a llama GGUF file."""
    from transformers.integrations.gguf import read_gguf_metadata

    metadata, tensor_names = read_gguf_metadata(str(path))
    config = read_config(metadata, tensor_names)
    return config, read_weights(path, config)
