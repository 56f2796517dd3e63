"""The sampler: one token per row of logits, greedy, temperature, top-k, top-p, seeded per sequence
(engine/sampling_params.py says what a request may ask)."""

from __future__ import annotations

import secrets

import torch

from engine.sampling_params import SamplingParams


class Sampler:
    """One token per row of logits; each sequence keeps its own seeded generator."""

    def __init__(self):
        self._generators: dict[int, torch.Generator] = {}

    def sample(
        self,
        logits: torch.Tensor,
        params: list[SamplingParams],
        seq_ids: list[int],
        failed: dict[int, Exception] | None = None,
    ) -> list[int]:
        """logits (S, vocab) fp32 -> S token ids. With `failed`, a row whose sampling raises is recorded
        there (its seq_id -> the exception) and given token -1 while the other rows are sampled as
        ever (one request's failure is its own); without it, the exception propagates."""
        out = []
        for row, p, sid in zip(logits, params, seq_ids):
            try:
                out.append(int(row.argmax()) if p.is_greedy else self._sample_one(row, p, sid))
            except Exception as exc:  # noqa: BLE001 - any failure of one row, given back to the caller
                if failed is None:
                    raise
                failed[sid] = exc
                out.append(-1)
        return out

    def forget(self, seq_id: int) -> None:
        self._generators.pop(seq_id, None)

    def _sample_one(self, logits: torch.Tensor, p: SamplingParams, seq_id: int) -> int:
        return int(torch.multinomial(self.distribution(logits, p), 1, generator=self.generator(seq_id, p)))

    @staticmethod
    def distribution(logits: torch.Tensor, p: SamplingParams) -> torch.Tensor:
        """The probabilities a row of logits (or each of several rows) is sampled from, on the CPU:
        temperature, then the top-k cut, then the top-p cut. The most probable token always survives
        both cuts (vLLM's rule), so no row is left empty."""
        logits = logits / p.temperature
        if p.top_k:
            kth = torch.topk(logits, min(p.top_k, logits.shape[-1]), dim=-1).values[..., -1:]
            logits = logits.masked_fill(logits < kth, float("-inf"))
        if p.top_p < 1.0:
            sorted_logits, order = torch.sort(logits, descending=True, dim=-1)
            sorted_probs = sorted_logits.softmax(-1)
            drop = sorted_probs.cumsum(-1) - sorted_probs >= p.top_p  # keep the smallest prefix reaching top_p
            drop[..., 0] = False  # and never less than the most probable token
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
