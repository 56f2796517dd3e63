"""Speculative decoding: a drafter proposes k tokens, one forward verifies them, and the longest
agreeing prefix plus one token of the target model's own is kept.

A decode step reads every weight and the whole KV cache to produce one token, and the arithmetic
units mostly wait (C7); feeding the last token plus k drafted ones as one causal chunk costs about
the same while the step stays memory-bound, and yields k + 1 rows of logits. Row i is the target
model's distribution for the token after draft[:i], so:

  greedy   accept draft[i] while it equals row i's argmax; then row m's argmax (a correction, or a
           bonus token when all k were accepted). The output is plain greedy decoding's, token for token.
  sampled  the standard rule (Leviathan et al. 2023; Chen et al. 2023): accept draft[i] with
           probability min(1, p(x) / q(x)), else sample from max(0, p − q) normalised, and stop. A
           prompt-lookup draft is one fixed token, q = 1 on it, so accept with p(x) and resample from
           p without x. The output is distributed as the target model's own samples.

The KV cache of rejected drafts is rolled back by the scheduler (their blocks return to the pool).
Drafters: prompt lookup, the n-gram match of vLLM's `ngram` method and Hugging Face's
`prompt_lookup_num_tokens` (no second model), and a draft model sharing the target's tokenizer
(engine/core/draft_model.py: greedy, so q is one-hot on its token and the sampled rule above is exact).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, fields

import torch

from engine.errors import LabError

METHODS = ("prompt_lookup", "draft_model")
VLLM_NAMES = {"ngram": "prompt_lookup"}  # vLLM's name of the same method
VLLM_KEYS = {"method": "method", "num_speculative_tokens": "num_tokens"}
VLLM_KEYS |= {"prompt_lookup_max": "ngram_max", "prompt_lookup_min": "ngram_min"}
VLLM_KEYS |= {"model": "model", "quantization": "quantization"}  # the draft model, and "int8" for our int8 copy
VLLM_KEYS |= {"adaptive": "adaptive"}  # ours: k follows the acceptance (SpeculativeConfig.next_k)
MAX_K = 32


@dataclass(frozen=True)
class SpeculativeConfig:
    method: str = "prompt_lookup"
    num_tokens: int = 4  # k: tokens drafted per step
    ngram_max: int = 3  # prompt lookup: the longest suffix matched first
    ngram_min: int = 1
    model: str | None = None  # draft_model: the drafting model's spec (a folder, a hub id, "bundled")
    quantization: str | None = None  # draft_model: its weights, "int8" (default: as stored)
    adaptive: bool = False  # k per sequence: starts at num_tokens, then follows next_k

    def __post_init__(self):
        if self.method not in METHODS:
            raise LabError(f"Unknown speculative method {self.method!r}; choose one of {', '.join(METHODS)}.")
        if (self.method == "draft_model") != (self.model is not None):
            raise LabError('A draft model is named with "model" and only with method "draft_model".')
        if self.quantization not in (None, "int8"):
            raise LabError(f'The draft model\'s quantization is "int8" or none, got {self.quantization!r}.')
        if not 1 <= self.num_tokens <= MAX_K:
            raise LabError(f"Speculative tokens per step must be 1-{MAX_K}, got {self.num_tokens}.")
        if not 1 <= self.ngram_min <= self.ngram_max <= 16:
            raise LabError(f"The n-gram sizes must satisfy 1 ≤ min ≤ max ≤ 16, got {self.ngram_min}-{self.ngram_max}.")

    def next_k(self, k: int, drafted: int, accepted: int) -> int:
        """An adaptive sequence's k for its next step (Hugging Face's "heuristic" schedule for assisted
        generation): two more after a step that accepted every draft, one fewer after a rejection."""
        if not self.adaptive or not drafted:
            return k
        return min(MAX_K, k + 2) if accepted == drafted else max(1, k - 1)

    def settings(self) -> dict:
        """The configuration's own fields (a subclass's loaded drafter or test data left out)."""
        return {f.name: getattr(self, f.name) for f in fields(SpeculativeConfig)}

    def draft(self, tokens: list[int], k: int) -> list[int]:
        if self.method == "draft_model":  # engine/draft_model.with_draft_model loads it and drafts
            raise LabError(
                "The draft model is not loaded: build the config with engine.core.draft_model.with_draft_model."
            )
        return prompt_lookup(tokens, k, self.ngram_max, self.ngram_min)

    @classmethod
    def from_json(cls, text: str) -> SpeculativeConfig:
        """vLLM's `--speculative-config` JSON: {"method": "ngram", "num_speculative_tokens": 4,
        "prompt_lookup_min": 1, "prompt_lookup_max": 3} (method "prompt_lookup" too)."""
        try:
            given = json.loads(text)
        except json.JSONDecodeError as e:
            raise LabError(f"The speculative config is not JSON ({e.msg}): {text[:80]!r}") from None
        if not isinstance(given, dict):
            raise LabError(
                'The speculative config is a JSON object, e.g. {"method": "ngram", "num_speculative_tokens": 4}.'
            )
        unknown = sorted(set(given) - set(VLLM_KEYS))
        if unknown:
            raise LabError(f"Unknown speculative config keys {unknown}; known: {', '.join(VLLM_KEYS)}.")
        values = {VLLM_KEYS[k]: v for k, v in given.items()}
        if "method" in values:
            values["method"] = VLLM_NAMES.get(values["method"], values["method"])
        for key in ("num_tokens", "ngram_max", "ngram_min"):
            if key in values and (not isinstance(values[key], int) or isinstance(values[key], bool)):
                raise LabError(f"The speculative config's {key} must be a whole number, got {values[key]!r}.")
        for key in ("model", "quantization"):
            if key in values and not isinstance(values[key], str):
                raise LabError(f"The speculative config's {key} must be a string, got {values[key]!r}.")
        if "adaptive" in values and not isinstance(values["adaptive"], bool):
            raise LabError(f"The speculative config's adaptive must be true or false, got {values['adaptive']!r}.")
        return cls(**values)


def prompt_lookup(tokens: list[int], k: int, ngram_max: int = 3, ngram_min: int = 1) -> list[int]:
    """Up to k tokens that followed the latest earlier occurrence of the sequence's last n tokens,
    for the longest n from ngram_max down that occurs; [] when none does."""
    for n in range(min(ngram_max, len(tokens) - 1), ngram_min - 1, -1):
        tail = tokens[-n:]
        for start in range(len(tokens) - n - 1, -1, -1):  # the latest match first
            if tokens[start : start + n] == tail:
                return tokens[start + n : start + n + k]
    return []


def accept_greedy(rows: torch.Tensor, draft: list[int]) -> list[int]:
    """The tokens a greedy verify emits: the agreeing prefix of `draft`, then the target's own."""
    targets = rows.argmax(-1).tolist()
    m = 0
    while m < len(draft) and draft[m] == targets[m]:
        m += 1
    return draft[:m] + [targets[m]]


def accept_forced(forced: list[int], draft: list[int]) -> list[int]:
    """What a replayed verify emits: the draft's prefix that the replayed run's tokens agree with, then
    its next token. Exact for both rules: the token after an accepted prefix is never the rejected
    draft token (greedy: it is the argmax that differed; sampled: it is drawn without that token)."""
    m = 0
    while m < len(draft) and m < len(forced) - 1 and draft[m] == forced[m]:
        m += 1
    return forced[: m + 1]


def accept_sampled(probs: torch.Tensor, draft: list[int], generator: torch.Generator) -> list[int]:
    """The tokens a sampled verify emits, for a draft of fixed tokens (q = 1 on each): `probs` are the
    target's (k + 1, vocab) sampling distributions, after temperature, top-k and top-p."""
    out = []
    for i, x in enumerate(draft):
        if float(torch.rand((), generator=generator)) < float(probs[i, x]):
            out.append(x)
            continue
        residual = probs[i].clone()
        residual[x] = 0.0  # max(0, p − q) with q one-hot on x
        out.append(int(torch.multinomial(residual / residual.sum(), 1, generator=generator)))
        return out
    out.append(int(torch.multinomial(probs[len(draft)], 1, generator=generator)))  # the bonus token
    return out
