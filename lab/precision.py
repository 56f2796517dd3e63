"""What a weight format and a KV cache dtype cost in quality, against the model in float32.

    perplexity     exp(mean next-token loss) over assets/precision_text.txt (English, then Chinese
                   from the source document), fed CHUNK tokens per forward: each chunk reads the
                   earlier ones through the KV cache, so a quantised cache is read as decode reads it
    top-1 agree    the share of positions where the format's most likely next token is float32's
    KL             mean KL(float32 || format) of the next-token distributions, in nats
    greedy agree   float32's greedy continuation of each fixed prompt, fed to the format (teacher
                   forcing): the share of its tokens the format also ranks first

Both models read the same tokens in lockstep, chunk by chunk, so no (tokens x vocab) tensor is ever
held whole (2,456 tokens x 49,152 logits would be 480 MB).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import torch

from engine.layers.kv_cache import KVCache
from engine.models.llama import ForwardBatch, LlamaModel, Segment

TEXT_PATH = Path(__file__).resolve().parent.parent / "assets" / "precision_text.txt"
CHUNK = 32
PROMPTS = (
    "The capital of France is",
    "def fibonacci(n):",
    "Water boils at",
    "The three primary colours are",
    "今天天气很好，我们",
    "Once upon a time,",
)
GREEDY_TOKENS = 24


def read_text() -> str:
    return TEXT_PATH.read_text(encoding="utf-8")


def chunk_logits(
    model: LlamaModel, ids: list[int], kv_dtype: str = "auto", chunk: int = CHUNK
) -> Iterator[torch.Tensor]:
    """fp32 logits (T, vocab) of every position, CHUNK positions at a time, through a KV cache
    stored as `kv_dtype` (a single sequence in consecutive slots)."""
    block = 16
    kv = KVCache(model.config, -(-len(ids) // block), block, model.dtype, model.device, kv_dtype)
    for start in range(0, len(ids), chunk):
        end = min(len(ids), start + chunk)
        n = end - start
        batch = ForwardBatch(
            input_ids=torch.tensor(ids[start:end], device=model.device),
            positions=torch.arange(start, end, device=model.device),
            write_slots=torch.arange(start, end, device=model.device),
            write_start=start,
            segments=[Segment(0, n, end, 0, None)],
            logits_rows=torch.arange(n, device=model.device),
            max_position=end - 1,
        )
        yield model.forward(batch, kv, "sdpa")


@dataclass
class Agreement:
    tokens: int = 0  # positions compared
    nll: float = 0.0  # the format's summed next-token loss on the text's own next tokens
    nll_ref: float = 0.0
    kl: float = 0.0  # summed KL(ref || format), nats
    top1: int = 0  # positions where both rank the same token first

    def add(self, ours: torch.Tensor, ref: torch.Tensor, targets: torch.Tensor | None) -> None:
        log_p, log_q = ref.log_softmax(-1), ours.log_softmax(-1)
        self.kl += float((log_p.exp() * (log_p - log_q)).sum())
        self.top1 += int((ours.argmax(-1) == ref.argmax(-1)).sum())
        self.tokens += ours.shape[0]
        if targets is not None:
            self.nll -= float(log_q.gather(1, targets[:, None]).sum())
            self.nll_ref -= float(log_p.gather(1, targets[:, None]).sum())

    @property
    def perplexity(self) -> float:
        return math.exp(self.nll / self.tokens)

    @property
    def perplexity_ref(self) -> float:
        return math.exp(self.nll_ref / self.tokens)

    @property
    def kl_mean(self) -> float:
        return self.kl / self.tokens

    @property
    def top1_share(self) -> float:
        return self.top1 / self.tokens


def text_agreement(
    ref: LlamaModel,
    model: LlamaModel,
    ids: list[int],
    kv_dtype: str = "auto",
    progress: Callable[[float], None] | None = None,
    ref_logits: list[torch.Tensor] | None = None,
) -> Agreement:
    """Perplexity of both, KL and top-1 over every position of `ids` that has a next token.
    `ref_logits` (from `chunk_logits(ref, ids)`) spares recomputing the reference when several
    formats are compared against it."""
    theirs_chunks = ref_logits if ref_logits is not None else chunk_logits(ref, ids)
    return chunks_agreement(chunk_logits(model, ids, kv_dtype), theirs_chunks, ids, progress)


def chunks_agreement(
    ours_chunks: Iterable[torch.Tensor],
    theirs_chunks: Iterable[torch.Tensor],
    ids: list[int],
    progress: Callable[[float], None] | None = None,
) -> Agreement:
    """text_agreement's sum over logits already computed (float32 against itself: its own row)."""
    out = Agreement()
    pos = 0
    for ours, theirs in zip(ours_chunks, theirs_chunks, strict=True):
        n = ours.shape[0]
        keep = min(n, len(ids) - 1 - pos)  # the last position has no next token to score
        if keep > 0:
            targets = torch.tensor(ids[pos + 1 : pos + 1 + keep], device=ours.device)
            out.add(ours[:keep], theirs[:keep], targets)
        pos += n
        if progress is not None:
            progress(min(1.0, pos / len(ids)))
    return out


def greedy_agreement(
    ref_engine_generate: Callable[[list[int]], list[int]],
    ref: LlamaModel,
    model: LlamaModel,
    prompts: list[list[int]],
    kv_dtype: str = "auto",
    ref_cache: dict[tuple[int, ...], torch.Tensor] | None = None,
) -> Agreement:
    """float32's greedy continuation of each prompt, fed to both; top-1 and KL at the continuation's
    positions (teacher forcing: one early miss does not spoil the rest). `ref_cache` keeps float32's
    logits of each prompt and continuation across the formats compared against it (pass a memoised
    `ref_engine_generate` too: float32's continuations do not change either)."""
    out = Agreement()
    for prompt in prompts:
        ids = prompt + ref_engine_generate(prompt)
        first = len(prompt) - 1  # the position that predicts the first generated token
        ours = torch.cat(list(chunk_logits(model, ids, kv_dtype)))[first : len(ids) - 1]
        key = tuple(ids)
        theirs = ref_cache.get(key) if ref_cache is not None else None
        if theirs is None:
            theirs = torch.cat(list(chunk_logits(ref, ids)))[first : len(ids) - 1]
            if ref_cache is not None:
                ref_cache[key] = theirs
        out.add(ours, theirs, None)
    return out
