"""Shared fixtures: the bundled model, and tiny random-weight HF models saved as real folders."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import torch

from engine.loader import convert_bundled, load_model

TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "chat_template.jinja")


@pytest.fixture(scope="session")
def bundled_dir() -> Path:
    return convert_bundled()


@pytest.fixture(scope="session")
def bundled(bundled_dir):
    return load_model(str(bundled_dir), dtype="float32", device="cpu")


def save_tiny_model(folder: Path, model_type: str, tokenizer_dir: Path, seed: int = 0, **overrides) -> Path:
    """A 2-layer random model of the given family, saved by transformers itself (safetensors)."""
    from transformers import AutoConfig, AutoModelForCausalLM

    torch.manual_seed(seed)
    kwargs = dict(
        vocab_size=49152,
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=512,
        rms_norm_eps=1e-5,
        tie_word_embeddings=False,
        initializer_range=0.1,
        bos_token_id=1,
        eos_token_id=2,
        pad_token_id=2,
    )
    if model_type == "qwen3":
        kwargs["head_dim"] = 16
    kwargs.update(overrides)
    config = AutoConfig.for_model(model_type, **kwargs)
    model = AutoModelForCausalLM.from_config(config, dtype=torch.float32)
    if model_type == "qwen2":  # HF initialises biases to zero; make them matter
        with torch.no_grad():
            for layer in model.model.layers:
                for proj in (layer.self_attn.q_proj, layer.self_attn.k_proj, layer.self_attn.v_proj):
                    proj.bias.normal_(0, 0.5)
    model.save_pretrained(folder)
    for name in TOKENIZER_FILES:
        if (tokenizer_dir / name).exists():
            shutil.copy(tokenizer_dir / name, folder / name)
    return folder


@pytest.fixture(scope="session")
def tiny_dirs(tmp_path_factory, bundled_dir) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("tiny")
    dirs = {
        "llama": save_tiny_model(root / "llama", "llama", bundled_dir),
        "qwen2": save_tiny_model(root / "qwen2", "qwen2", bundled_dir, seed=1),
        "qwen3": save_tiny_model(root / "qwen3", "qwen3", bundled_dir, seed=2),
        "llama-4k": save_tiny_model(root / "llama4k", "llama", bundled_dir, seed=4, max_position_embeddings=4096),
        "llama3-rope": save_tiny_model(
            root / "llama3rope",
            "llama",
            bundled_dir,
            seed=3,
            rope_parameters={
                "rope_type": "llama3",
                "rope_theta": 500000.0,
                "factor": 8.0,
                "low_freq_factor": 1.0,
                "high_freq_factor": 4.0,
                "original_max_position_embeddings": 64,
            },
        ),
    }
    return dirs


@pytest.fixture(scope="session")
def tiny(tiny_dirs):
    return load_model(str(tiny_dirs["llama"]))
