"""Why speculative decoding pays, measured: what a verify step of k drafted tokens costs against a plain
decode step (the verify-cost curve), and the acceptance rate at which drafting k tokens breaks even.

A decode step reads every weight to produce one token; a verify step reads them once for k + 1
tokens. While the step stays memory-bound the extra rows are nearly free and the curve is flat; it
rises once the rows make the step compute-bound (past the roofline's ridge). With each drafted
token accepted with probability a, independently, a verify step yields (1 − a^(k+1)) / (1 − a)
tokens on average (the accepted prefix plus the model's own token), so drafting k pays when that
exceeds the verify step's cost in decode steps.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass

from engine import Engine, EngineConfig, SamplingParams
from engine.errors import LabError
from engine.speculative import SpeculativeConfig
from lab.workload import text_tokens


@dataclass(frozen=True)
class FixedDraft(SpeculativeConfig):
    """Always k tokens (the last one repeated): a verify step of exactly k drafts, whatever is accepted."""

    def draft(self, tokens: list[int], k: int) -> list[int]:
        return [tokens[-1]] * k


def expected_tokens(acceptance: float, k: int) -> float:
    """Tokens a verify step of k drafts yields on average when each is accepted with this probability."""
    if not 0 <= acceptance <= 1 or k < 0:
        raise LabError(f"An acceptance rate is in [0, 1] and k ≥ 0, got {acceptance} and {k}.")
    return float(k + 1) if acceptance == 1 else (1 - acceptance ** (k + 1)) / (1 - acceptance)


def break_even(cost_ratio: float, k: int) -> float | None:
    """The lowest acceptance rate at which drafting k tokens beats plain decoding, for a verify step
    that costs `cost_ratio` decode steps; None when even every draft accepted would not pay."""
    if cost_ratio <= 1:
        return 0.0
    if cost_ratio >= k + 1:
        return None
    lo, hi = 0.0, 1.0
    for _ in range(50):  # expected_tokens rises with the acceptance rate
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if expected_tokens(mid, k) < cost_ratio else (lo, mid)
    return hi


def verify_step_ms(model, tokenizer, context: int, k: int, steps: int = 6) -> float:
    """Median wall time of a decode step verifying k drafted tokens (k = 0: a plain decode step) after
    a prompt of `context` tokens, from the engine's own step records (no memory probe)."""
    spec = FixedDraft(num_tokens=k) if k else None
    engine = Engine(model, tokenizer, EngineConfig(probe_memory=False, speculative=spec))
    room = (steps + 1) * (k + 1) + 1  # enough new tokens for `steps` full verifies even if all are accepted
    engine.add_request(text_tokens(tokenizer, context), SamplingParams(max_new_tokens=room, ignore_eos=True))
    times = []
    for event in engine.stream():
        seq = event.step.seqs[0]
        if seq.phase == "decode" and seq.drafted == k:
            times.append(event.step.ms)
        if len(times) == steps:
            break
    if not times:
        raise LabError(f"No verify step of {k} drafts ran after {context} tokens: the context is too long.")
    return statistics.median(times)


@dataclass(frozen=True)
class VerifyCost:
    context: int
    k: int
    ms: float
    ratio: float  # ms ÷ a plain decode step's at the same context

    @property
    def break_even(self) -> float | None:
        return break_even(self.ratio, self.k)


def verify_costs(model, tokenizer, contexts: list[int], ks: list[int], steps: int = 6) -> list[VerifyCost]:
    """The verify-cost curve: for each context, a plain decode step and a verify step of each k."""
    out = []
    for context in contexts:
        plain = verify_step_ms(model, tokenizer, context, 0, steps)
        out += [
            VerifyCost(context, k, ms, ms / plain)
            for k, ms in ((k, verify_step_ms(model, tokenizer, context, k, steps) if k else plain) for k in ks)
        ]
    return out
