"""Kernels chosen by measurement (engine/loader/kernel_timing.py): the plan is measured once per machine and read
back from the cache after, a forced kernel wins, a weight keeps one copy unless its two regimes chose
different kernels, and a Linear runs the kernel its plan names for the size of the call. (Each kernel
against HF: tests/test_reference.py.)"""

from __future__ import annotations

import dataclasses
import json
from collections import Counter
from pathlib import Path

import pytest
import torch

import engine.loader.kernel_timing as kernels
from engine.kernels import native
from engine.layers.kernel_plan import KernelPlan, ShapeChoice
from engine.layers.linear import DECODE_ROWS, Linear, can_pack
from engine.layers.quant import INT8_KERNELS
from engine.loader.kernel_timing import plan_kernels

SHAPES = [(96, 64), (64, 96)]
needs_onednn = pytest.mark.skipif(not can_pack(torch.ones(1, 1)), reason="oneDNN cannot pack on this CPU")


@needs_onednn
def test_measured_once_then_read_from_the_cache(tmp_path, monkeypatch):
    monkeypatch.delenv(kernels.FORCE_ENV, raising=False)
    cache = tmp_path / "kernels.json"
    first = plan_kernels(SHAPES, torch.float32, torch.device("cpu"), cache)
    assert first.source == "measured" and set(first.choices) == set(SHAPES)
    for choice in first.choices.values():
        assert set(choice.decode_ms) == set(choice.prefill_ms) == kernels.runnable(torch.float32)
        assert all(ms > 0 for ms in choice.decode_ms.values())
    stored = json.loads(cache.read_text())
    assert len(stored) == 2 and all("float32" in key and "threads=" in key for key in stored)
    monkeypatch.setattr(kernels, "time_shape", lambda *a: pytest.fail("measured again"))
    second = plan_kernels(SHAPES, torch.float32, torch.device("cpu"), cache)
    assert second.source == "cached" and second.choices == first.choices


def test_a_forced_kernel_wins_and_a_bad_one_is_named(monkeypatch):
    monkeypatch.setenv(kernels.FORCE_ENV, "linear")
    plan = plan_kernels(SHAPES, torch.float32, torch.device("cpu"))
    assert plan.source == "forced" and plan.kernels((1, 2)) == ("linear", "linear")
    monkeypatch.setenv(kernels.FORCE_ENV, "fastest")
    with pytest.raises(ValueError, match="PDLAB_KERNELS='fastest'"):
        plan_kernels(SHAPES, torch.float32, torch.device("cpu"))


def test_a_forced_kernel_acts_on_its_own_family_only(monkeypatch, tmp_path):
    """int8pack forces int8 weights and leaves float weights to be measured; linear, the reverse."""
    monkeypatch.setenv(kernels.FORCE_ENV, "int8pack")
    assert plan_kernels(SHAPES, torch.float32, torch.device("cpu"), fmt="int8").forced == "int8pack"
    assert plan_kernels(SHAPES, torch.float32, torch.device("cpu"), tmp_path / "k.json").forced is None
    monkeypatch.setenv(kernels.FORCE_ENV, "linear")
    assert plan_kernels([(24, 16)], torch.float32, torch.device("cpu"), tmp_path / "k.json", fmt="int8").forced is None


@pytest.mark.parametrize(
    "decode_ms, prefill_ms, expected",
    [
        ({"linear": 1.0, "packed": 0.5}, {"linear": 1.0, "packed": 2.0}, ("packed", "linear")),  # each wins one
        ({"linear": 1.0, "packed": 0.5}, {"linear": 1.0, "packed": 1.03}, ("packed", "packed")),  # a tie: one copy
        ({"linear": 1.0, "packed": 0.98}, {"linear": 1.0, "packed": 2.0}, ("linear", "linear")),
    ],
)
def test_two_copies_only_when_both_regimes_gain(monkeypatch, decode_ms, prefill_ms, expected):
    timings = iter([decode_ms, prefill_ms])
    monkeypatch.setattr(kernels, "_race", lambda calls, repeats: next(timings))
    monkeypatch.setattr(kernels, "MAX_COPIES", 1)
    assert kernels.time_shape(8, 8, torch.float32).kernels == expected


def test_a_candidate_far_behind_the_fastest_is_timed_once(monkeypatch):
    """Each candidate: a warm-up and one timed call; a median of the given repeats only for those
    within GIVE_UP of the fastest."""
    calls = Counter()
    cost_ms = {"slow": 10.0, "close": 1.5, "fast": 1.0}
    candidates = {name: (lambda name=name: calls.update([name]) or name) for name in cost_ms}
    monkeypatch.setattr(kernels, "_call_ms", lambda fn: cost_ms[fn()])
    assert kernels.GIVE_UP < 10.0
    assert kernels._race(candidates, 5) == cost_ms
    assert calls == {"slow": 2, "close": 6, "fast": 6}


@needs_onednn
def test_a_linear_runs_the_kernel_its_size_calls_for(monkeypatch):
    calls = []
    real = kernels.run_kernel

    def spy(kernel, x, w, b):
        calls.append((kernel, x.shape[0]))
        return real(kernel, x, w, b)

    import engine.layers.linear as linear

    monkeypatch.setattr(linear, "run_kernel", spy)
    w = torch.randn(32, 16)
    lin = Linear(w, None, ("packed", "linear"))
    assert lin.held_bytes == 2 * lin.num_bytes  # two copies: one per kernel
    x1, xn = torch.randn(1, 16), torch.randn(DECODE_ROWS, 16)
    torch.testing.assert_close(lin(x1), x1 @ w.T)
    torch.testing.assert_close(lin(xn), xn @ w.T)
    assert calls == [("packed", 1), ("linear", DECODE_ROWS)]
    one = Linear(w, None, ("packed", "packed"))
    assert one.held_bytes == one.num_bytes and one.weights["linear"] is None


def test_no_choice_off_the_cpu_path():
    plan = KernelPlan("default", {})
    assert plan.kernels((5, 5)) == ("linear", "linear")
    assert Linear(torch.randn(4, 4), None, ("linear", "linear")).kernels == ("linear", "linear")
    with pytest.raises(ValueError, match="Unknown kernel"):
        Linear(torch.randn(4, 4), None, ("fast", "linear"))


def test_the_choice_reports_rates():
    c = ShapeChoice(1000, 1000, "packed", "linear", {"packed": 1.0, "linear": 2.0}, {"packed": 3.0, "linear": 2.0})
    assert c.decode_gbs(4) == pytest.approx(4.0)  # 4 MB in 1 ms
    assert c.prefill_gflops() == pytest.approx(2 * kernels.PREFILL_ROWS * 1e6 / 2.0 / 1e6)


def test_int8_weights_choose_between_their_own_kernels_and_cache_apart(tmp_path):
    """The int8 format times its own kernels (int8pack, dequant, and the C kernel where built: the same
    numbers) and stores its choice under its own key, beside the float kernels' choice for the same shape."""
    cache = tmp_path / "kernels.json"
    native = kernels.plan_kernels([(24, 16)], torch.float32, torch.device("cpu"), cache, force=None)
    int8 = kernels.plan_kernels([(24, 16)], torch.float32, torch.device("cpu"), cache, force=None, fmt="int8")
    choice = int8.choices[(24, 16)]
    assert set(choice.decode_ms) == kernels.runnable(torch.float32, "int8") and set(choice.kernels) <= set(INT8_KERNELS)
    assert {"int8pack", "dequant"} <= set(choice.decode_ms)
    stored = json.loads(cache.read_text())
    assert any(k.endswith("| int8 | 24x16") for k in stored) and int8.source == "measured"
    if native.source != "default":  # no oneDNN: nothing to choose for floats
        assert any(k.endswith("float32 | 24x16") for k in stored)
    again = kernels.plan_kernels([(24, 16)], torch.float32, torch.device("cpu"), cache, force=None, fmt="int8")
    assert again.source == "cached" and again.choices[(24, 16)].kernels == choice.kernels
    assert kernels.plan_kernels([(24, 16)], torch.float32, torch.device("cpu"), cache, fmt="w8a8").forced == "fbgemm"


def test_int8_activations_take_the_dtype_whose_decode_matmuls_are_fastest_here(tmp_path):
    """Each activation dtype's int8 plan is measured (and cached), its decode time summed over the
    matmuls a token runs; the smaller sum wins, and the sentence says both."""
    cache = tmp_path / "kernels.json"
    counts = {(96, 64): 3, (200, 64): 1}
    choice = kernels.int8_activations(counts, cache)
    assert set(choice.decode_ms) == {"bfloat16", "float32"}
    assert choice.decode_ms[str(choice.dtype).removeprefix("torch.")] == min(choice.decode_ms.values())
    for name, total in choice.decode_ms.items():  # the sums come from the cached plans, counted per matmul
        plan = kernels.plan_kernels(list(counts), getattr(torch, name), torch.device("cpu"), cache, fmt="int8")
        assert plan.source == "cached"
        assert total == pytest.approx(
            sum(n * plan.choices[s].decode_ms[plan.choices[s].decode] for s, n in counts.items())
        )
    assert "measured fastest here" in choice.describe() and "ms in float32" in choice.describe()


def test_auto_dtype_is_float32_except_for_int8_weights(tiny_dirs):
    from engine import load_model

    assert load_model(str(tiny_dirs["llama"]), dtype="auto").model.dtype == torch.float32
    assert load_model(str(tiny_dirs["llama"]), dtype="float32", weights="int8").model.dtype == torch.float32  # asked
    said = []
    auto = load_model(str(tiny_dirs["llama"]), dtype="auto", weights="int8", progress=lambda s, _f: said.append(s))
    assert any(f"with {str(auto.model.dtype).removeprefix('torch.')} activations" in s for s in said), said


def follows_the_rule(choice: ShapeChoice) -> bool:
    """Each regime runs its fastest kernel, or the other regime's choice when that is within TIE of the
    fastest (one copy of the weight instead of two)."""
    for mine, theirs, ms in (
        (choice.decode, choice.prefill, choice.decode_ms),
        (choice.prefill, choice.decode, choice.prefill_ms),
    ):
        fastest = min(ms.values())
        if ms[mine] != fastest and not (mine == theirs and ms[mine] <= (1 + kernels.TIE) * fastest):
            return False
    return True


@needs_onednn
def test_the_test_session_measures_its_own_kernel_plan_and_follows_the_rule(tiny):
    """The session's cache folder starts empty (tests/conftest.py), so the plan the tiny model runs was
    measured in this session, on this machine, whatever ran on the machine before."""
    from engine.models.llama import linear_shapes
    from engine.paths import cache_dir

    assert cache_dir() != Path.home() / ".cache" / "prefill-decode-lab" and cache_dir().name.startswith("pdlab-test")
    plan = tiny.model.kernel_plan
    assert plan.source in ("measured", "cached") and plan.forced is None
    stored = json.loads((cache_dir() / "kernels.json").read_text())
    for shape in linear_shapes(tiny.model.config):
        assert plan.choices[shape] == ShapeChoice(**stored[kernels._key(shape, torch.float32)])
        assert follows_the_rule(plan.choices[shape]), plan.choices[shape]
    # each layer runs what its shape's plan says; a layer's decode-sized products run on the C kernel
    # instead where whole steps timed both ways chose the one-call step (engine/loader/step_timing.py)
    fused = plan.step is not None and plan.step.path == "fused"
    for name, linear in tiny.model.linears().items():
        decode, prefill = plan.kernels((linear.out_features, linear.in_features))
        assert linear.own_decode_kernel == decode, name
        assert linear.kernels == ("gemv" if fused and name != "lm_head" else decode, prefill), name


def test_the_rule_check_catches_a_planted_wrong_choice():
    right = ShapeChoice(8, 8, "packed", "packed", {"packed": 1.0, "linear": 0.98}, {"packed": 1.0, "linear": 2.0})
    assert follows_the_rule(right)  # decode's packed is within TIE of linear: one copy
    wrong = dataclasses.replace(right, decode="linear", prefill="linear")  # prefill's linear is twice as slow
    assert not follows_the_rule(wrong)


def test_a_build_with_other_compiler_flags_keeps_its_own_kernel_timings(monkeypatch):
    """The AVX2 build on an AVX-512 machine (PDLAB_NATIVE_FLAGS=-mno-avx512f) times other code: its plan
    must not reuse the default build's, nor the reverse."""
    monkeypatch.delenv(native.FLAGS_ENV, raising=False)
    default = kernels._key((8, 8), torch.float32)
    monkeypatch.setenv(native.FLAGS_ENV, "-mno-avx512f")
    other = kernels._key((8, 8), torch.float32)
    assert other != default and "-mno-avx512f" in other
