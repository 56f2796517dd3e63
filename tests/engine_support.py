"""Engine helpers several test files use: a tiny model shape for the analytic code, and a run's
greedy tokens with the logits each step sampled from (compared with Hugging Face's)."""

from __future__ import annotations

import torch

from engine import Engine, EngineConfig, SamplingParams
from engine.config import ModelConfig

# A shape small enough to count FLOPs, bytes and blocks by hand.
TINY_CONFIG = ModelConfig(
    name="t",
    num_layers=2,
    hidden_size=8,
    num_heads=2,
    num_kv_heads=1,
    head_dim=4,
    ffn_size=16,
    vocab_size=10,
    max_position=64,
)


def engine_logits(bundle, prompt_ids: list[int], steps: int, **cfg) -> tuple[list[int], torch.Tensor]:
    """Greedy tokens and the logits each step sampled from, recorded at the sampler."""
    engine = Engine(bundle.model, bundle.tokenizer, EngineConfig(**cfg))
    seen = []
    sample = engine.sampler.sample
    engine.sampler.sample = lambda logits, *a: (seen.append(logits.clone()), sample(logits, *a))[1]
    engine.add_request(prompt_ids, SamplingParams(max_new_tokens=steps, ignore_eos=True))
    for _ in engine.stream():
        pass
    return engine.trace.requests[0].output_token_ids, torch.cat(seen).cpu()


def hf_logits(folder, ids: list[int], device: str = "cpu") -> torch.Tensor:
    """Hugging Face's logits for every position of `ids`, on the model in `folder` run on `device`."""
    from transformers import AutoModelForCausalLM

    model = AutoModelForCausalLM.from_pretrained(folder, dtype=torch.float32).to(device)
    with torch.no_grad():
        return model(torch.tensor([ids], device=device)).logits[0].cpu()
