"""Memory experiments for the memory lab (C16, C20): measured prefill peaks, the "will it fit"
predictor, and the KV leak of a naive generation loop.

Formulas (all shown in the UI next to the numbers they produce):
  score matrix, per head  = batch x Lq x Lk x bytes
  score matrix, per layer = batch x heads x Lq x Lk x bytes   (eager holds one layer's at a time)
  KV cache                = 2 x layers x kv_heads x head_dim x L x bytes x batch
  weights                 = parameters x bytes
  prefill activations     ~ batch x Lq x (4 hidden + q + 2 kv + 4 ffn) x bytes   (hidden states,
                            norm output, q/k/v, attention output, gate/up and their product)
"""

from __future__ import annotations

import time
from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import dataclass

import torch

from engine.config import ModelConfig
from engine.core.llm_engine import Engine, EngineConfig
from engine.errors import LabError
from engine.observe.memory import ATTENTION, MLP, SCORES, AllocationTracker
from engine.sampling_params import SamplingParams

GPU_SIZES_GB = (24, 40, 80, 141)
OTHER = "other"  # a peak between the forward's blocks


def score_bytes(
    c: ModelConfig, q_len: int, k_len: int, dtype_bytes: int, batch: int = 1, per_layer: bool = True
) -> int:
    return batch * (c.num_heads if per_layer else 1) * q_len * k_len * dtype_bytes


def kv_bytes(c: ModelConfig, tokens: int, dtype_bytes: int, batch: int = 1) -> int:
    return batch * tokens * c.kv_bytes_per_token(dtype_bytes)


def activation_bytes(c: ModelConfig, q_len: int, dtype_bytes: int, batch: int = 1) -> int:
    return batch * q_len * (4 * c.hidden_size + c.q_size + 2 * c.kv_size + 4 * c.ffn_size) * dtype_bytes


@dataclass
class FitReport:
    weights: int
    kv_cache: int
    scores: int  # one layer's score matrices (0 with a fused kernel)
    activations: int
    gpu_bytes: int
    overflow: str | None  # the first term that does not fit, in the order they are needed

    @property
    def total(self) -> int:
        return self.weights + self.kv_cache + self.scores + self.activations

    @property
    def fits(self) -> bool:
        return self.overflow is None


def predict_fit(
    c: ModelConfig,
    prompt_len: int,
    dtype_bytes: int,
    gpu_gb: float,
    fused: bool = False,
    chunk: int | None = None,
    batch: int = 1,
) -> FitReport:
    """Peak memory of a prefill of prompt_len tokens, term by term, against a GPU of gpu_gb GB (1e9)."""
    if prompt_len <= 0 or gpu_gb <= 0 or (chunk is not None and chunk <= 0):
        raise LabError("Prompt length, GPU size and chunk size must be positive.")
    q_len = min(chunk or prompt_len, prompt_len)  # chunked prefill: a chunk of queries against all keys
    terms = {
        "weights": c.num_params * dtype_bytes,
        "KV cache": kv_bytes(c, prompt_len, dtype_bytes, batch),
        "attention scores": 0 if fused else score_bytes(c, q_len, prompt_len, dtype_bytes, batch),
        "activations": activation_bytes(c, q_len, dtype_bytes, batch),
    }
    gpu = int(gpu_gb * 1e9)
    running, overflow = 0, None
    for name, size in terms.items():
        running += size
        if running > gpu and overflow is None:
            overflow = name
    return FitReport(
        terms["weights"], terms["KV cache"], terms["attention scores"], terms["activations"], gpu, overflow
    )


@dataclass
class PrefillMemory:
    """One measured prefill: its peak transient memory and what was alive at that moment."""

    prompt_len: int
    backend: str
    chunk: int | None
    peak_bytes: int  # the largest step peak of the prefill (tensor bytes above the step's start)
    scores_bytes: int  # of which attention scores (tagged where eager allocates them)
    decode_peak_bytes: int  # one decode step afterwards, for contrast
    kv_bytes: int  # the KV cache after the prefill
    formula_scores: int  # batch x heads x Lq x Lk x bytes for the largest chunk
    site: str | None = None  # the forward block the peak happened in (peak_site); None where untagged (CUDA)

    @property
    def activations_bytes(self) -> int:
        return self.peak_bytes - self.scores_bytes


def peak_site(by_label: dict[str, int]) -> str | None:
    """Which block of the forward a peak happened in, from the bytes alive under each tag at that moment
    (engine/memory.block: a block's temporaries are gone before the next one runs): ATTENTION, MLP,
    OTHER (between them: norms, embedding, LM head), or None without tags (CUDA's counters)."""
    if not by_label:
        return None
    if by_label.get(MLP):
        return MLP
    if by_label.get(ATTENTION) or by_label.get(SCORES):
        return ATTENTION
    return OTHER


def measure_prefill_memory(model, tokenizer, prompt_len: int, backend: str, chunk: int | None = None) -> PrefillMemory:
    """Run a prefill of prompt_len tokens (plus one decode step) and read the memory probe."""
    c = model.config
    if not 0 < prompt_len < model.config.max_position:
        raise LabError(f"Prompt length must be in 1..{model.config.max_position - 1}.")
    cfg = EngineConfig(
        attention=backend, chunked_prefill=chunk is not None, max_num_batched_tokens=chunk or max(prompt_len, 8192)
    )
    engine = Engine(model, tokenizer, cfg)
    ids = [(i * 7919) % (c.vocab_size - 1000) + 500 for i in range(prompt_len)]  # any valid tokens
    engine.add_request(ids, SamplingParams(max_new_tokens=2, ignore_eos=True))
    steps = [e.step for e in engine.stream()]
    prefill = [s for s in steps if s.phase == "prefill"]
    top = max(prefill, key=lambda s: s.peak_bytes)
    elem = torch.empty((), dtype=model.dtype).element_size()
    biggest = max(s.seqs[0].num_tokens for s in prefill)
    return PrefillMemory(
        prompt_len=prompt_len,
        backend=backend,
        chunk=chunk,
        peak_bytes=top.peak_bytes,
        scores_bytes=(top.peak_by_label or {}).get(SCORES, 0),
        decode_peak_bytes=steps[-1].peak_bytes,
        kv_bytes=prefill[-1].kv_bytes,
        formula_scores=score_bytes(c, biggest, prompt_len, elem),
        site=peak_site(top.peak_by_label or {}),
    )


@dataclass
class LeakPoint:
    request: int
    retained_bytes: int | None  # tensor bytes alive after the request, created since the loop began
    cache_bytes: int  # bytes the loop's KV cache holds after the request (its tensors / the engine's pool)
    context_tokens: int  # tokens the loop's cache holds after the request
    ms_per_token: float


def _tracker(track_tensors: bool):
    """The allocation tracker when asked for (it slows every op); otherwise a stand-in."""
    return AllocationTracker() if track_tensors else nullcontext(None)


def load_hf_model(path: str):
    """transformers' own model on the same safetensors folder (float32, CPU, offline)."""
    from transformers import AutoModelForCausalLM

    model = AutoModelForCausalLM.from_pretrained(path, dtype=torch.float32)
    model.eval()
    return model


HF_STEP_COST = 3  # a step of the naive Hugging Face loop beside one of the engine's, roughly, on CPU


def naive_hf_loop(
    hf_model,
    tokenizer,
    prompts: list[str],
    max_new_tokens: int,
    track_tensors: bool = True,
    progress: Callable[[float], None] | None = None,
) -> list[LeakPoint]:
    """The bug of C16: one Hugging Face cache, created once and never released or reset, so every
    request appends to it; memory grows and each token attends to all earlier requests.
    track_tensors=False times the loop without the tracker's overhead (retained_bytes is then None)."""
    from transformers import DynamicCache

    points = []
    with _tracker(track_tensors) as tracker, torch.inference_mode():
        cache = DynamicCache()
        for i, prompt in enumerate(prompts):
            ids = torch.tensor([tokenizer(prompt).input_ids])
            start = time.perf_counter()
            for _ in range(max_new_tokens):
                logits = hf_model(input_ids=ids, cache=cache, use_cache=True).logits
                ids = logits[:, -1:].argmax(-1)
            del logits
            ms = (time.perf_counter() - start) * 1e3 / max_new_tokens
            held = sum(t.numel() * t.element_size() for layer in cache.layers for t in (layer.keys, layer.values))
            points.append(LeakPoint(i, tracker.current if tracker else None, held, cache.get_seq_length(), ms))
            if progress:
                progress((i + 1) / len(prompts))
    return points


def engine_loop(
    model,
    tokenizer,
    prompts: list[str],
    max_new_tokens: int,
    track_tensors: bool = True,
    progress: Callable[[float], None] | None = None,
) -> list[LeakPoint]:
    """The same requests through the engine, which frees each sequence's blocks when it finishes."""
    engine = Engine(model, tokenizer, EngineConfig(probe_memory=False))
    points = []
    with _tracker(track_tensors) as tracker:
        for i, prompt in enumerate(prompts):
            engine.add_request(prompt, SamplingParams(max_new_tokens=max_new_tokens, ignore_eos=True))
            start = time.perf_counter()
            for _ in engine.stream():
                pass
            ms = (time.perf_counter() - start) * 1e3 / max_new_tokens
            usage = engine.kv.usage([(s.block_table, s.num_cached_tokens) for s in engine.scheduler.running])
            points.append(LeakPoint(i, tracker.current if tracker else None, usage.bytes, usage.tokens, ms))
            if progress:
                progress((i + 1) / len(prompts))
    return points
