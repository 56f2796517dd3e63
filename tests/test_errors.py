"""Bad input gets a LabError a user understands, and the engine keeps working afterwards."""

from __future__ import annotations

import json
import shutil

import pytest

from engine import Engine, EngineConfig, SamplingParams, load_model
from engine.config import parse_dtype
from engine.errors import LabError
from engine.loader.model_loader import resolve_device


@pytest.fixture
def engine(tiny):
    return Engine(tiny.model, tiny.tokenizer)


def finishes(engine) -> bool:
    engine.add_request("still alive?", SamplingParams(max_new_tokens=2))
    for _ in engine.stream():
        pass
    return bool(engine.trace.requests[-1].output_token_ids)


@pytest.mark.parametrize("prompt", ["", "   \n", []])
def test_empty_prompt(engine, prompt):
    with pytest.raises(LabError, match="empty"):
        engine.add_request(prompt)
    assert finishes(engine)


def test_prompt_longer_than_the_context(engine, tiny):
    too_long = " word" * (tiny.model.config.max_position + 10)
    with pytest.raises(LabError, match="context holds 512"):
        engine.add_request(too_long)
    assert finishes(engine)


def test_max_new_tokens_past_the_context(engine):
    with pytest.raises(LabError, match="lower max_new_tokens to at most"):
        engine.add_request("hello", SamplingParams(max_new_tokens=600))
    assert finishes(engine)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(max_new_tokens=0), "max_new_tokens"),
        (dict(max_new_tokens=-3), "max_new_tokens"),
        (dict(max_new_tokens=2.5), "max_new_tokens"),
        (dict(temperature=-1), "temperature"),
        (dict(temperature=float("nan")), "temperature"),
        (dict(top_p=0), "top_p"),
        (dict(top_p=1.5), "top_p"),
        (dict(top_p=1e-46), "top_p 1e-46 is 0 in float32"),  # > 0 in float64, 0 where the sampler compares
        (dict(top_k=-1), "top_k"),
        (dict(seed=-1), "seed"),
    ],
)
def test_invalid_sampling_values(kwargs, match):
    with pytest.raises(LabError, match=match):
        SamplingParams(**kwargs)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(attention="flash"), "backend"),
        (dict(attention="sdpa", capture_attention=True), "eager"),
        (dict(block_size=0), "block_size"),
        (dict(max_model_len=-1), "max_model_len"),
    ],
)
def test_invalid_engine_settings(kwargs, match):
    with pytest.raises(LabError, match=match):
        EngineConfig(**kwargs)


def test_the_smallest_top_p_keeps_the_most_probable_token():
    """The sampler's cut never empties a row: the tiniest top_p float32 holds keeps the top token."""
    import torch

    from engine.worker.sampler import Sampler

    logits = torch.tensor([[0.5, 3.0, -1.0, 2.9]])
    probs = Sampler.distribution(logits, SamplingParams(temperature=1.0, top_p=1e-45))
    assert probs.tolist() == [[0.0, 1.0, 0.0, 0.0]]


@pytest.mark.parametrize(
    "rope, match",
    [
        ({"rope_type": "linear", "factor": "x"}, 'rope_parameters.factor to be a positive number, got "x"'),
        ({"rope_type": "linear", "factor": 0}, "rope_parameters.factor to be a positive number, got 0"),
        ({"rope_type": "linear"}, "rope_parameters.factor to be a positive number, got nothing"),
        (
            {"rope_type": "llama3", "factor": 8, "low_freq_factor": 4, "high_freq_factor": 1,
             "original_max_position_embeddings": 64},
            "high_freq_factor above low_freq_factor",
        ),
    ],
)  # fmt: skip
def test_a_rope_scaling_that_cannot_scale_is_refused_by_name(tiny_dirs, rope, match):
    from engine.config import ModelConfig

    config = json.loads((tiny_dirs["llama"] / "config.json").read_text())
    with pytest.raises(LabError, match=match):
        ModelConfig.from_hf_dict({**config, "rope_parameters": {"rope_theta": 10000.0, **rope}}, name="m")


def test_invalid_dtype_and_device():
    with pytest.raises(LabError, match="Unknown dtype"):
        parse_dtype("float8")
    with pytest.raises(LabError, match="Unknown device"):
        resolve_device("tpu")


def test_unknown_model_path():
    with pytest.raises(LabError, match="not found"):
        load_model("./no/such/model/folder")


def test_unknown_hub_id_offline(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(LabError, match="Hugging Face hub"):
        load_model("no-such-org/no-such-model")


def test_folder_with_only_pickle_weights_is_refused(tmp_path):
    (tmp_path / "config.json").write_text(json.dumps({"model_type": "llama"}))
    (tmp_path / "pytorch_model.bin").write_bytes(b"\x80\x04not really a pickle")
    with pytest.raises(LabError, match="pickle"):
        load_model(str(tmp_path))


def test_corrupt_safetensors_file(tmp_path, tiny_dirs):
    folder = tmp_path / "corrupt"
    shutil.copytree(tiny_dirs["llama"], folder)
    (folder / "model.safetensors").write_bytes(b"\x10\x00\x00\x00\x00\x00\x00\x00{garbage")
    with pytest.raises(LabError, match="corrupt or unreadable"):
        load_model(str(folder))


def test_unsupported_architecture(tmp_path, tiny_dirs):
    folder = tmp_path / "gpt2ish"
    shutil.copytree(tiny_dirs["llama"], folder)
    cfg = json.loads((folder / "config.json").read_text()) | {"model_type": "gpt2"}
    (folder / "config.json").write_text(json.dumps(cfg))
    with pytest.raises(LabError, match="not supported"):
        load_model(str(folder))


def test_hub_path_downloads_safetensors_only(monkeypatch, tiny_dirs):
    """The hub branch, with the download replaced by a local folder (this machine is offline)."""
    import huggingface_hub

    seen = {}

    def fake_snapshot_download(repo_id, allow_patterns, **kwargs):
        seen.update(repo_id=repo_id, allow_patterns=allow_patterns)
        return str(tiny_dirs["llama"])

    monkeypatch.setattr(huggingface_hub, "snapshot_download", fake_snapshot_download)
    bundle = load_model("some-org/some-model")
    assert bundle.source == "hub" and seen["repo_id"] == "some-org/some-model"
    assert "*.safetensors" in seen["allow_patterns"] and not any("bin" in p for p in seen["allow_patterns"])
