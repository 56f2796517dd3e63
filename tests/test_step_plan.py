"""The path of an all-decode step chosen by timing whole steps, not layers (engine/loader/step_timing.py,
engine/models/decode_path.py): a layer whose torch kernel wins its own timing by microseconds does not
keep the one-call C step from running when that step wins the whole step, and the torch forward runs
when it wins. Either way the tokens are the same, the unused copies are dropped, and the choice is
cached with the plan."""

from __future__ import annotations

import itertools

import pytest
import torch

from engine import Engine, EngineConfig, SamplingParams, load_model
from engine.kernels import native
from engine.layers.kernel_plan import ShapeChoice, StepChoice
from engine.loader import kernel_timing, step_timing
from engine.models.decode_path import STEP_PRODUCTS, use_path
from engine.observe import other_work

pytestmark = pytest.mark.skipif(native.library() is None, reason="the C kernels are not built here")

QKV = (64 + 2 * 32, 64)  # the tiny llama's q/k/v product: 4 heads and 2 KV heads of 16


def planted_shape(out_features: int, in_features: int, dtype, fmt="native") -> ShapeChoice:
    """Every shape's own timing: gemv wins decode, except the qkv product, where F.linear wins by 4 µs."""
    if (out_features, in_features) == QKV:
        decode_ms = {"linear": 0.100, "packed": 0.150, "gemv": 0.104}
    else:
        decode_ms = {"linear": 0.200, "packed": 0.250, "gemv": 0.100}
    prefill_ms = {"linear": 1.0, "packed": 1.5, "gemv": 1.2}
    decode = min(decode_ms, key=decode_ms.get)
    return ShapeChoice(out_features, in_features, decode, "linear", decode_ms, prefill_ms)


@pytest.fixture
def planted(monkeypatch, tmp_path):
    """A fresh plan cache and the planted per-layer timings."""
    monkeypatch.setenv("PDLAB_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(kernel_timing, "time_shape", planted_shape)
    monkeypatch.delenv("PDLAB_KERNELS", raising=False)


def greedy(bundle, n: int = 8) -> tuple[list[int], int]:
    """Tokens of a greedy run, and the one-call steps it took."""
    fused = bundle.model.fused
    before = fused.calls if fused is not None else 0
    engine = Engine(bundle.model, bundle.tokenizer, EngineConfig(probe_memory=False))
    engine.add_request(bundle.tokenizer("Hello there").input_ids, SamplingParams(max_new_tokens=n, ignore_eos=True))
    for _ in engine.stream():
        pass
    return engine.trace.requests[0].output_token_ids, (fused.calls - before if fused is not None else 0)


def step_wins(path: str):
    def timed(model, *a, **kw) -> StepChoice:
        fused, layers = (20.6, 26.9) if path == "fused" else (26.9, 20.6)
        return StepChoice(path, fused, layers, 12, 128)

    return timed


def test_the_one_call_step_runs_when_it_wins_the_step_though_a_layer_lost(planted, monkeypatch, tiny_dirs):
    monkeypatch.setattr(step_timing, "time_paths", step_wins("fused"))
    bundle = load_model(str(tiny_dirs["llama"]))
    qkv = bundle.model.layers[0]["qkv"]
    assert qkv.own_decode_kernel == "linear" and qkv.decode_kernel == "gemv"
    assert bundle.model.kernel_plan.step.path == "fused" and bundle.model.fused is not None
    tokens, calls = greedy(bundle)
    assert calls == len(tokens) - 1  # every step after the prefill


def test_the_torch_forward_runs_when_it_wins_the_step(planted, monkeypatch, tiny_dirs, tmp_path):
    monkeypatch.setattr(step_timing, "time_paths", step_wins("fused"))
    fused_tokens, _ = greedy(load_model(str(tiny_dirs["llama"])))
    monkeypatch.setenv("PDLAB_CACHE_DIR", str(tmp_path / "other-cache"))
    monkeypatch.setattr(step_timing, "time_paths", step_wins("layers"))
    bundle = load_model(str(tiny_dirs["llama"]))
    model = bundle.model
    assert model.kernel_plan.step.path == "layers" and model.fused is None and model.fused_step is None
    qkv = model.layers[0]["qkv"]
    assert qkv.decode_kernel == "linear" and qkv.weights["gemv"] is None  # the spare copy is gone
    assert [model.layers[0][n].decode_kernel for n in STEP_PRODUCTS[1:]] == ["gemv"] * 3
    tokens, calls = greedy(bundle)
    assert calls == 0 and tokens == fused_tokens


def test_the_choice_is_cached_with_the_plan(planted, monkeypatch, tiny_dirs):
    monkeypatch.setattr(step_timing, "time_paths", step_wins("layers"))
    load_model(str(tiny_dirs["llama"]))

    def never(*a, **kw):
        raise AssertionError("a cached choice is not measured again")

    monkeypatch.setattr(step_timing, "time_paths", never)
    bundle = load_model(str(tiny_dirs["llama"]))
    step = bundle.model.kernel_plan.step
    assert (step.path, step.source, step.fused_ms, step.layers_ms) == ("layers", "cached", 26.9, 20.6)
    assert bundle.model.fused is None and bundle.model.layers[0]["qkv"].weights["gemv"] is None


def test_a_choice_timed_beside_other_work_is_used_but_not_kept(planted, monkeypatch, tiny_dirs):
    """Timed while other processes kept the machine busy, the plan and the step's path serve this load
    and are measured again at the next: a busy hour must not choose for every quiet one after it."""
    readings = itertools.count(0.0, 1000.0)  # the machine busy 1000 s between two readings: other work
    monkeypatch.setattr(other_work, "machine_busy_s", lambda: next(readings))
    monkeypatch.setattr(step_timing, "time_paths", step_wins("layers"))
    busy = load_model(str(tiny_dirs["llama"]))
    assert busy.model.kernel_plan.step.path == "layers" and busy.model.fused is None  # used for this load
    monkeypatch.setattr(other_work, "machine_busy_s", lambda: 0.0)  # quiet now
    monkeypatch.setattr(step_timing, "time_paths", step_wins("fused"))
    quiet = load_model(str(tiny_dirs["llama"]))
    plan = quiet.model.kernel_plan
    assert plan.source == "measured" and plan.step.path == "fused" and quiet.model.fused is not None
    again = load_model(str(tiny_dirs["llama"])).model.kernel_plan  # and now it is kept
    assert again.source == "cached" and again.step.source == "cached"


def test_a_forced_kernel_asks_no_question(planted, monkeypatch, tiny_dirs):
    monkeypatch.setenv("PDLAB_KERNELS", "linear")
    bundle = load_model(str(tiny_dirs["llama"]))
    assert bundle.model.kernel_plan.step is None and bundle.model.fused is None


def test_whole_steps_are_timed_both_ways_on_the_model(planted, tiny_dirs):
    """The real timer: both paths measured on the model, the faster kept, the same logits either way."""
    bundle = load_model(str(tiny_dirs["llama"]))
    step = bundle.model.kernel_plan.step
    assert step.source == "measured" and step.n == step_timing.ROUNDS and step.context == step_timing.CONTEXT
    assert step.fused_ms > 0 and step.layers_ms > 0
    assert step.path == ("fused" if step.fused_ms <= step.layers_ms else "layers")
    model = bundle.model
    if model.fused_step is not None:  # both paths still held: the same step gives the same logits
        batch, kv = step_timing._one_decode_step(model, 32)
        before = kv.data.clone()
        use_path(model, "layers")
        torch_logits = model.forward(batch, kv, "sdpa")
        kv.data.copy_(before)
        use_path(model, "fused")
        assert torch.allclose(model.forward(batch, kv, "sdpa"), torch_logits, atol=1e-4)


def test_int8_weights_choose_their_step_path_the_same_way(monkeypatch, tmp_path, tiny_dirs):
    """int8 weights: the one-call step on `int8gemv`, or each layer's own int8 kernel, by the same timing."""
    monkeypatch.setenv("PDLAB_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("PDLAB_KERNELS", raising=False)
    bundle = load_model(str(tiny_dirs["llama"]), weights="int8")
    step, model = bundle.model.kernel_plan.step, bundle.model
    assert step is not None and step.path == ("fused" if step.fused_ms <= step.layers_ms else "layers")
    decode = {model.layers[0][n].decode_kernel for n in STEP_PRODUCTS}
    if step.path == "fused":
        assert decode == {"int8gemv"} and model.fused is not None
    else:
        assert model.fused is None and decode == {model.layers[0][n].own_decode_kernel for n in STEP_PRODUCTS}
    tokens, calls = greedy(bundle)
    assert (calls > 0) == (step.path == "fused")
