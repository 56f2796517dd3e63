"""RoPE tables and the KV pool follow the context in use: tables built for the first positions and
grown on demand (the same numbers as a table built whole), and a config whose context no memory here
can hold is refused with the numbers, by the engine, the CLI and the app (never an allocation error)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch

from engine import Engine, SamplingParams, load_model
from engine.layers.rotary import rope_inv_freq
from engine.models.llama import ROPE_START


def with_context(src: Path, dst: Path, max_position: int) -> Path:
    """A copy of a model folder (files linked) whose config.json claims another context length."""
    dst.mkdir()
    for f in src.iterdir():
        if f.name != "config.json":
            (dst / f.name).symlink_to(f)
    config = json.loads((src / "config.json").read_text())
    (dst / "config.json").write_text(json.dumps(config | {"max_position_embeddings": max_position}))
    return dst


def test_rope_tables_grow_on_demand_to_the_same_numbers(tiny_dirs, tmp_path):
    bundle = load_model(str(with_context(tiny_dirs["llama"], tmp_path / "m", 3 * ROPE_START)))
    model = bundle.model
    assert model.cos.shape[0] == ROPE_START  # not the config's 12,288
    model.ensure_rope(ROPE_START + 5)
    n = model.cos.shape[0]
    assert n == 2 * ROPE_START
    freqs = torch.outer(torch.arange(3 * ROPE_START, dtype=torch.float32), rope_inv_freq(model.config))
    whole = torch.cat((freqs, freqs), dim=-1)
    assert torch.equal(model.cos, whole.cos()[:n]) and torch.equal(model.sin, whole.sin()[:n])
    model.ensure_rope(10**6)
    assert model.cos.shape[0] == 3 * ROPE_START  # never past the config's context


def test_a_long_prompt_past_the_first_table_runs(tiny_dirs, tmp_path, monkeypatch):
    """Positions past the table built at load: it grows inside the forward, and the tokens are those of
    a model whose table was built whole from the start."""
    import engine.models.llama as model_module

    small = load_model(str(tiny_dirs["llama"]))
    monkeypatch.setattr(model_module, "ROPE_START", 8)
    grown = load_model(str(tiny_dirs["llama"]))
    assert grown.model.cos.shape[0] == 8
    ids = list(range(5, 45))
    params = SamplingParams(max_new_tokens=5)
    a = Engine(small.model, small.tokenizer).generate(ids, params).requests[0].output_token_ids
    b = Engine(grown.model, grown.tokenizer).generate(ids, params).requests[0].output_token_ids
    assert a == b and grown.model.cos.shape[0] >= 45


@pytest.fixture
def absurd(tiny_dirs, tmp_path) -> Path:
    return with_context(tiny_dirs["llama"], tmp_path / "absurd", 10**12)


def test_the_engine_refuses_a_context_no_memory_holds(absurd):
    bundle = load_model(str(absurd))  # loading is cheap: nothing is sized by the context yet
    with pytest.raises(
        ValueError,
        match=r"1,000,000,000,000 tokens needs [\d,.]+ GB of KV cache.*"
        r"max_position_embeddings",
    ):
        Engine(bundle.model, bundle.tokenizer)


def test_the_cli_says_so_in_one_line(cli, absurd):
    out = cli("generate", "--model", str(absurd), "--prompt", "Hi", "--json")
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert out.stderr.startswith("error: A context of 1,000,000,000,000 tokens needs"), out.stderr


def test_the_app_says_so(new_app, absurd, monkeypatch):
    monkeypatch.setenv("PDLAB_MODEL", str(absurd))
    at = new_app(120).run()
    assert not at.exception
    shown = [e.value for e in at.error] + [w.value for w in at.warning]
    assert any("GB of KV cache" in m for m in shown), shown
