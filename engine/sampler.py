"""Sampling parameters and the sampler: greedy, temperature, top-k, top-p, seeded."""

from __future__ import annotations

import math
import secrets
from dataclasses import dataclass

import torch

from engine.errors import LabError

MIN_TEMPERATURE = 1e-4  # below it (but above 0) logits / temperature overflows float32: refused, not guessed
MAX_SEED = 2**64 - 1  # torch.Generator.manual_seed's range


@dataclass
class SamplingParams:
    max_new_tokens: int = 32
    temperature: float = 0.0  # 0 means greedy
    top_k: int = 0  # 0 means no top-k cut
    top_p: float = 1.0
    seed: int | None = None
    ignore_eos: bool = False  # benchmarks: always generate max_new_tokens
    min_new_tokens: int = 0  # EOS cannot be sampled before this many tokens

    def __post_init__(self):
        if (
            not isinstance(self.max_new_tokens, int)
            or isinstance(self.max_new_tokens, bool)
            or self.max_new_tokens <= 0
        ):
            raise LabError(f"max_new_tokens must be a positive whole number, got {self.max_new_tokens!r}.")
        if not (isinstance(self.temperature, (int, float)) and math.isfinite(self.temperature)) or self.temperature < 0:
            raise LabError(f"temperature must be a finite number ≥ 0 (0 = greedy), got {self.temperature!r}.")
        if (
            not isinstance(self.min_new_tokens, int)
            or isinstance(self.min_new_tokens, bool)
            or not 0 <= self.min_new_tokens <= self.max_new_tokens
        ):
            raise LabError(
                f"min_new_tokens must be a whole number from 0 to max_new_tokens ({self.max_new_tokens}), "
                f"got {self.min_new_tokens!r}."
            )
        if 0 < self.temperature < MIN_TEMPERATURE:
            raise LabError(
                f"temperature {self.temperature:g} is too small to sample with (the logits divided by it "
                f"overflow): use 0 for greedy, or at least {MIN_TEMPERATURE:g}."
            )
        if not isinstance(self.top_k, int) or self.top_k < 0:
            raise LabError(f"top_k must be a whole number ≥ 0 (0 = off), got {self.top_k!r}.")
        if not (isinstance(self.top_p, (int, float)) and 0 < self.top_p <= 1):
            raise LabError(f"top_p must be in (0, 1], got {self.top_p!r}.")
        if self.seed is not None and (
            not isinstance(self.seed, int) or isinstance(self.seed, bool) or not 0 <= self.seed <= MAX_SEED
        ):
            raise LabError(f"seed must be a whole number from 0 to 2**64 − 1 ({MAX_SEED}), got {self.seed!r}.")

    @property
    def is_greedy(self) -> bool:
        return self.temperature == 0


class Sampler:
    """One token per row of logits; each sequence keeps its own seeded generator."""

    def __init__(self):
        self._generators: dict[int, torch.Generator] = {}

    def sample(self, logits: torch.Tensor, params: list[SamplingParams], seq_ids: list[int]) -> list[int]:
        """logits (S, vocab) fp32 -> S token ids."""
        out = []
        for row, p, sid in zip(logits, params, seq_ids):
            out.append(int(row.argmax()) if p.is_greedy else self._sample_one(row, p, sid))
        return out

    def forget(self, seq_id: int) -> None:
        self._generators.pop(seq_id, None)

    def _sample_one(self, logits: torch.Tensor, p: SamplingParams, seq_id: int) -> int:
        return int(torch.multinomial(self.distribution(logits, p), 1, generator=self.generator(seq_id, p)))

    @staticmethod
    def distribution(logits: torch.Tensor, p: SamplingParams) -> torch.Tensor:
        """The probabilities a row of logits (or each of several rows) is sampled from, on the CPU:
        temperature, then the top-k cut, then the top-p cut."""
        logits = logits / p.temperature
        if p.top_k:
            kth = torch.topk(logits, min(p.top_k, logits.shape[-1]), dim=-1).values[..., -1:]
            logits = logits.masked_fill(logits < kth, float("-inf"))
        if p.top_p < 1.0:
            sorted_logits, order = torch.sort(logits, descending=True, dim=-1)
            sorted_probs = sorted_logits.softmax(-1)
            drop = sorted_probs.cumsum(-1) - sorted_probs >= p.top_p  # keep the smallest prefix reaching top_p
            logits = logits.masked_fill(torch.zeros_like(drop).scatter(-1, order, drop), float("-inf"))
        return logits.softmax(-1).cpu()

    def generator(self, seq_id: int, p: SamplingParams) -> torch.Generator:
        """The sequence's own generator, seeded once (never the global RNG)."""
        gen = self._generators.get(seq_id)
        if gen is None:
            gen = torch.Generator(device="cpu")
            gen.manual_seed(p.seed if p.seed is not None else secrets.randbits(63))
            self._generators[seq_id] = gen
        return gen
