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
from collections.abc import Callable
from dataclasses import dataclass

from engine import Engine, EngineConfig, SamplingParams
from engine.config import ModelConfig
from engine.core.speculative import SpeculativeConfig
from engine.errors import LabError
from engine.observe.costmodel import SeqWork, step_cost
from lab.verdicts import FAILS, HOLDS, ROUGHLY, Verdict
from lab.workload import text_tokens

MAX_VERIFY_K = 64  # the verify-cost curve's longest draft (a run's own drafts stop at 32)
FLAT_WITHIN = 1.2  # "about the cost of one decode step": a verify step within 1.2× of it
# A prompt whose answer is in the prompt (prompt lookup finds most of it) and one whose answer is not.
REPEAT_PROMPT = (
    "Repeat the text below exactly, word for word.\n\nText: The river rose slowly through the spring, and the town "
    "built its walls a little higher every year. Engineers argued about the best way to measure the flow, while "
    "farmers watched the sky and planted late. In the library a student read about bridges.\n\nRepeat: The river"
)
FREE_PROMPT = "Write a short story about a lighthouse keeper who finds a message in a bottle."


@dataclass(frozen=True)
class FixedDraft(SpeculativeConfig):
    """Always k tokens (the last one repeated): a verify step of exactly k drafts, whatever is accepted."""

    def __post_init__(self):
        if not 1 <= self.num_tokens <= MAX_VERIFY_K:
            raise LabError(f"A verify step checks 1-{MAX_VERIFY_K} drafted tokens, got {self.num_tokens}.")

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


def verify_costs(
    model,
    tokenizer,
    contexts: list[int],
    ks: list[int],
    steps: int = 6,
    progress: Callable[[int, int], None] | None = None,
) -> list[VerifyCost]:
    """The verify-cost curve: for each context, a plain decode step and a verify step of each k.
    progress(done, total) after each measurement (its weight: the k + 1 tokens of a verify)."""
    work = [k + 1 for _ in contexts for k in [0, *[k for k in ks if k]]]
    done, out = 0, []

    def measured(context: int, k: int) -> float:
        nonlocal done
        ms = verify_step_ms(model, tokenizer, context, k, steps)
        done += k + 1
        if progress:
            progress(done, sum(work))
        return ms

    for context in contexts:
        plain = measured(context, 0)
        out += [
            VerifyCost(context, k, ms, ms / plain) for k, ms in ((k, measured(context, k) if k else plain) for k in ks)
        ]
    return out


def ridge_tokens(c: ModelConfig, context: int, dtype_bytes: int, weight_bytes: float, ridge: float) -> int | None:
    """The fewest tokens a verify step must feed (k drafts + 1) for the cost model's arithmetic
    intensity to reach the roofline's ridge point: past it the step is compute-bound. None beyond 4,096."""
    for T in range(1, 4097):
        cost = step_cost(c, [SeqWork(T, context + T, T)], dtype_bytes, weight_dtype_bytes=weight_bytes)
        if cost.intensity >= ridge:
            return T
    return None


def flat_until(costs: list[VerifyCost], context: int, within: float = FLAT_WITHIN) -> int | None:
    """The largest measured k up to which every verify step at `context` cost at most `within` plain
    decode steps; None when even the smallest k cost more."""
    best = None
    for c in sorted((c for c in costs if c.context == context and c.k), key=lambda c: c.k):
        if c.ratio > within:
            break
        best = c.k
    return best


def verify_claim(costs: list[VerifyCost]) -> Verdict:
    """ "Decode leaves compute idle", measured: verifying k drafts costs ≤ FLAT_WITHIN × a decode step
    up to which k, at each context. Holds with k ≥ 4 at every context, roughly with k ≥ 1 at some."""
    contexts = sorted({c.context for c in costs})
    flat = {ctx: flat_until(costs, ctx) for ctx in contexts}
    smallest = min((c for c in costs if c.k), key=lambda c: (c.k, c.ratio))
    worst_first = max((c for c in costs if c.k == smallest.k), key=lambda c: c.ratio)
    nums = dict(
        within=FLAT_WITHIN,
        flat="; ".join(f"C = {ctx}: k ≤ {k}" if k else f"C = {ctx}: none" for ctx, k in flat.items()),
        k1=worst_first.k,
        r1=worst_first.ratio,
        ctx1=worst_first.context,
    )
    if all(k is not None and k >= 4 for k in flat.values()):
        return Verdict("SPEC", HOLDS, "why_spec_verify_holds", nums)
    if any(k is not None for k in flat.values()):
        return Verdict("SPEC", ROUGHLY, "why_spec_verify_roughly", nums)
    return Verdict("SPEC", FAILS, "why_spec_verify_fails", nums)
