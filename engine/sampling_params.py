"""What a request asks of the sampler: how many tokens, greedy or temperature, top-k, top-p, seed;
checked when made, so a bad value is refused by name before it reaches the engine. The rule for the
sampler's cuts: no value may leave the distribution empty (the sampler also always keeps the most
probable token, as vLLM does, so a row's distribution holds at least one token whatever the logits)."""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass

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
        if as_float32(self.top_p) == 0:
            raise LabError(
                f"top_p {self.top_p:g} is 0 in float32, the precision the sampler cuts in, so it would keep no "
                "token: use at least 1e-45, or top_k 1 for the most probable token alone."
            )
        if self.seed is not None and (
            not isinstance(self.seed, int) or isinstance(self.seed, bool) or not 0 <= self.seed <= MAX_SEED
        ):
            raise LabError(f"seed must be a whole number from 0 to 2**64 − 1 ({MAX_SEED}), got {self.seed!r}.")

    @property
    def is_greedy(self) -> bool:
        return self.temperature == 0


def as_float32(value: float) -> float:
    """`value` rounded to float32 (what a comparison with a float32 tensor sees)."""
    return struct.unpack("f", struct.pack("f", value))[0]
