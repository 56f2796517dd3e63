"""Reference tests: our engine against Hugging Face transformers on the same weights (fp32), both on
the device `--device` names (cpu unless asked; `pytest tests/test_reference.py --device cuda`)."""

from __future__ import annotations

import pytest
import torch
from transformers import AutoModelForCausalLM

from engine import Engine, EngineConfig, SamplingParams, load_model
from engine.kernels import native
from tests.engine_support import engine_logits, hf_logits

PROMPTS = ["The capital of France is", "def fibonacci(n):", "今天天气"]
MODES = [
    dict(attention=a, kv_cache=kv, block_size=bs) for a in ("eager", "sdpa") for kv in (True, False) for bs in (1, 16)
]
CHUNKED = dict(attention="sdpa", kv_cache=True, block_size=16, chunked_prefill=True, max_num_batched_tokens=7)


def mode_id(m: dict) -> str:
    return f"{m['attention']}-kv{int(m['kv_cache'])}-bs{m['block_size']}" + "-chunked" * ("chunked_prefill" in m)


@pytest.mark.parametrize("family", ["llama", "qwen2", "qwen3", "llama3-rope"])
@pytest.mark.parametrize("mode", MODES[::3], ids=mode_id)
def test_tiny_logits_match_hf(tiny_dirs, device, family, mode):
    bundle = load_model(str(tiny_dirs[family]), device=device)
    prompt = bundle.tokenizer("The quick brown fox jumps over the lazy dog").input_ids
    tokens, ours = engine_logits(bundle, prompt, 12, **mode)
    ref = hf_logits(tiny_dirs[family], prompt + tokens, device)[len(prompt) - 1 : len(prompt) - 1 + len(tokens)]
    assert (ours - ref).abs().max().item() <= 1e-4


def test_real_model_logits_match_hf(bundled, bundled_dir, device):
    prompt = bundled.tokenizer("The capital of France is").input_ids
    tokens, ours = engine_logits(bundled, prompt, 8, attention="sdpa")
    ref = hf_logits(bundled_dir, prompt + tokens, device)[len(prompt) - 1 : len(prompt) - 1 + len(tokens)]
    assert (ours - ref).abs().max().item() <= 1e-4


@pytest.fixture(scope="module")
def hf_greedy(bundled_dir, bundled, device):
    model = AutoModelForCausalLM.from_pretrained(bundled_dir, dtype=torch.float32).to(device)
    out = {}
    for p in PROMPTS:
        ids = bundled.tokenizer(p).input_ids
        # eos_token_id=None: HF runs all 64 steps, as our ignore_eos does (min_new_tokens would mask EOS)
        gen = model.generate(
            torch.tensor([ids], device=device),
            max_new_tokens=64,
            do_sample=False,
            eos_token_id=None,
            pad_token_id=bundled.tokenizer.eos_token_id,
        )
        out[p] = (ids, gen[0, len(ids) :].tolist())
        assert len(out[p][1]) == 64
    return out


@pytest.mark.parametrize("mode", MODES + [CHUNKED], ids=mode_id)
def test_real_model_greedy_tokens_match_hf(bundled, hf_greedy, mode):
    """HF's 64 greedy tokens of each prompt, with every prompt in one engine at once: continuous
    batching, so each mode's paged cache and batched attention carry three sequences of different
    lengths (chunked: at most 7 tokens a step, so each prompt is prefilled in chunks). Without the
    KV cache the first 32 tokens: each of those steps recomputes the whole context, so 64 would cost
    four times as much for the same code path. (A prompt alone: test_real_model_logits_match_hf.)"""
    steps = 64 if mode["kv_cache"] else 32
    engine = Engine(bundled.model, bundled.tokenizer, EngineConfig(probe_memory=False, **mode))
    seqs = {
        p: engine.add_request(ids, SamplingParams(max_new_tokens=steps, ignore_eos=True))
        for p, (ids, _) in hf_greedy.items()
    }
    for _ in engine.stream():
        pass
    assert max(len(s.seqs) for s in engine.trace.steps) == len(PROMPTS), "the prompts never shared a step"
    for prompt, seq in seqs.items():
        assert seq.output_token_ids == hf_greedy[prompt][1][:steps], prompt


def test_the_gguf_files_own_blocks_match_hf(bundled_dir, hf_greedy, device):
    """The bundled GGUF's Q4_1/Q8_0 blocks computed on as stored (weights "gguf", CPU only): HF's logits
    on the de-quantised weights, and its greedy tokens with the prompts batched and chunked."""
    if device != "cpu":
        pytest.skip("gguf weights run on the CPU")
    bundle = load_model(str(bundled_dir), weights="gguf")
    prompt = bundle.tokenizer("The capital of France is").input_ids
    tokens, ours = engine_logits(bundle, prompt, 8, attention="sdpa")
    ref = hf_logits(bundled_dir, prompt + tokens, device)[len(prompt) - 1 : len(prompt) - 1 + len(tokens)]
    assert (ours - ref).abs().max().item() <= 1e-4
    engine = Engine(bundle.model, bundle.tokenizer, EngineConfig(probe_memory=False, **CHUNKED))
    seqs = {
        p: engine.add_request(ids, SamplingParams(max_new_tokens=64, ignore_eos=True))
        for p, (ids, _) in hf_greedy.items()
    }
    for _ in engine.stream():
        pass
    for prompt, seq in seqs.items():
        assert seq.output_token_ids == hf_greedy[prompt][1], prompt


def test_real_model_writes_sense_offline(bundled):
    engine = Engine(bundled.model, bundled.tokenizer)
    trace = engine.generate("The capital of France is", SamplingParams(max_new_tokens=8))
    assert "Paris" in trace.requests[0].text


@pytest.mark.parametrize("kernels", ["linear", "packed", "gemv", "mixed"])
def test_every_matmul_kernel_matches_hf(bundled_dir, kernels, monkeypatch, device):
    """Each candidate kernel forced (engine/loader/kernel_timing.py picks among them by timing; gemv is our C kernel,
    its decode steps one call of engine/models/fused_decode.py), and a plan that mixes them (packed for
    decode-sized calls, F.linear for prefill-sized ones: two weight copies): a 20-token prompt reaches
    the prefill-sized path, the decode steps the decode-sized one."""
    import engine.loader.kernel_timing as kernel_module
    from engine.layers.linear import DECODE_ROWS

    if device != "cpu":
        pytest.skip("the candidate kernels are CPU kernels (oneDNN and MKL); other devices run F.linear")

    if kernels == "mixed":
        monkeypatch.setattr(
            kernel_module,
            "plan_kernels",
            lambda shapes, *a, **k: kernel_module.KernelPlan(
                "measured", {tuple(s): kernel_module.ShapeChoice(*s, "packed", "linear", {}, {}) for s in shapes}
            ),
        )
        import engine.loader.step_timing as step_module

        monkeypatch.setattr(step_module, "can_choose", lambda *a, **k: False)  # the layers' own kernels, as planted
        bundle = load_model(str(bundled_dir))
    else:
        bundle = load_model(str(bundled_dir), kernels=kernels)
    lin = bundle.model.linears()["gate_up"]
    gemv = ("gemv", "gemv") if native.library() is not None else ("linear", "linear")  # no C compiler: F.linear
    assert (
        lin.kernels
        == {
            "linear": ("linear", "linear"),
            "packed": ("packed", "packed"),
            "gemv": gemv,
            "mixed": ("packed", "linear"),
        }[kernels]
    )
    prompt = bundle.tokenizer(
        "The history of computing is a story of ideas meeting machines; early calculators were mechanical, then relays"
    ).input_ids
    assert len(prompt) >= DECODE_ROWS
    tokens, ours = engine_logits(bundle, prompt, 6, attention="sdpa")
    ref = hf_logits(bundled_dir, prompt + tokens)[len(prompt) - 1 : len(prompt) - 1 + len(tokens)]
    assert (ours - ref).abs().max().item() <= 1e-4
    fused = bundle.model.fused  # on our C kernels each decode step is one C call
    assert (fused.calls if fused else 0) == (5 if lin.kernels == ("gemv", "gemv") else 0)
