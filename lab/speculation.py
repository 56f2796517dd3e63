"""Why speculative decoding pays, measured: what a verify step of k drafted tokens costs against a plain
decode step (the verify-cost curve), and the acceptance rate at which drafting k tokens breaks even.

A decode step reads every weight to produce one token; a verify step reads them once for k + 1
tokens. While the step stays memory-bound the extra rows are nearly free and the curve is flat; it
rises once the rows make the step compute-bound (past the roofline's ridge). With each drafted
token accepted with probability a, independently, a verify step yields (1 − a^(k+1)) / (1 − a)
tokens on average (the accepted prefix plus the model's own token), so drafting k pays when that
exceeds the verify step's cost in decode steps.

The curve is measured on a machine that is never quiet: at each context a plain decode lane and a
lane per k step in turn (lab/lane_rounds.py), so all see the same load, and each k's cost is the
median of its paired ratios to the plain step with its interval and n (lab/pairing.py). The claim
that decode leaves compute idle is judged on those intervals: a k is "flat" where its whole interval
lies at or below FLAT_WITHIN, "rises" where it lies wholly above, and is not separable otherwise.
"""

from __future__ import annotations

import statistics
import threading
from collections.abc import Callable
from dataclasses import dataclass

from engine import EngineConfig, SamplingParams
from engine.config import ModelConfig
from engine.core.speculative import SpeculativeConfig
from engine.errors import LabError
from engine.observe.costmodel import SeqWork, step_cost
from lab.interleaved import Lane
from lab.lane_rounds import advance, finish, lane_rounds
from lab.pairing import GREATER, LESS, RatioInterval, compare
from lab.sweeps import PREFILL_TOKENS_PER_DECODE_STEP
from lab.verdicts import FAILS, HOLDS, NOT_SEPARABLE, ROUGHLY, Verdict
from lab.workload import text_tokens

MAX_VERIFY_K = 64  # the verify-cost curve's longest draft (a run's own drafts stop at 32)
FLAT_WITHIN = 1.2  # "about the cost of one decode step": a verify step within 1.2× of it
ROUNDS = 12  # paired rounds per context: every lane's step, plain's and each k's
WARM_STEPS = 2  # untimed: each lane's prefill and its first verify step (a new shape's one-off costs)
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


def _lane(model, tokenizer, context: int, k: int, steps: int) -> Lane:
    """A lane verifying exactly k drafts a step (k = 0: plain decoding) after `context` prompt tokens,
    with room for `steps` steps even if every draft is accepted, and no more KV than that (an
    engine's default pool is 1 GiB)."""
    spec = FixedDraft(num_tokens=k) if k else None
    room = steps * (k + 1) + 1  # the scheduler drafts only what the budget of new tokens allows
    config = EngineConfig(probe_memory=False, speculative=spec, kv_cache_bytes=0, max_model_len=context + room + 1)
    lane = Lane.of(model, tokenizer, config, f"k={k}")
    lane.engine.add_request(text_tokens(tokenizer, context), SamplingParams(max_new_tokens=room, ignore_eos=True))
    return lane


@dataclass(frozen=True)
class VerifyCost:
    context: int
    k: int
    ms: float  # the median verify step (k = 0: the plain decode step)
    interval: RatioInterval | None = None  # ÷ a plain decode step at the same context, paired; None for k = 0

    @property
    def ratio(self) -> float:
        return self.interval.median if self.interval is not None else 1.0

    @property
    def break_even(self) -> float | None:
        return break_even(self.ratio, self.k)

    @property
    def break_even_range(self) -> tuple[float | None, float | None]:
        """The break-even acceptance at the interval's two ends (None: never pays there)."""
        if self.interval is None:
            return self.break_even, self.break_even
        return break_even(self.interval.low, self.k), break_even(self.interval.high, self.k)


def round_work(ks: list[int]) -> float:
    """One round at one context in decode-step units: a plain step and a verify step of each k (a
    verify step feeds k + 1 tokens, which past a point cost what a prompt's tokens do)."""
    return sum(max(1.0, (k + 1) / PREFILL_TOKENS_PER_DECODE_STEP) for k in [0, *ks])


def curve_work(contexts: list[int], ks: list[int], rounds: int) -> list[float]:
    """Each context's work in decode-step units: its lanes' prefills, then its steps."""
    ks = [k for k in ks if k]
    per_round = round_work(ks)
    return [(1 + len(ks)) * c / PREFILL_TOKENS_PER_DECODE_STEP + (WARM_STEPS + rounds) * per_round for c in contexts]


def verify_costs(
    model,
    tokenizer,
    contexts: list[int],
    ks: list[int],
    rounds: int = ROUNDS,
    progress: Callable[[int, float], None] | None = None,
    lock: threading.Lock | None = None,
    on_round: Callable[[list[VerifyCost]], None] | None = None,
) -> list[VerifyCost]:
    """The verify-cost curve: at each context a plain decode lane and a lane verifying each k, a step
    each in turn; each k's cost the median of its paired ratios to the plain step, with its interval
    and n. progress(context index, fraction of that context done) after its warm-up and each round;
    on_round(the curve so far) after each kept round: the contexts done, then this one's medians so
    far (no interval yet: it is judged over all the rounds)."""
    ks = sorted({k for k in ks if k})
    out: list[VerifyCost] = []

    def each_round(i: int, context: int, records: dict, before: list[VerifyCost]) -> Callable[[int, int], None]:
        def kept(done: int, total: int) -> None:
            if progress is not None:
                progress(i, (WARM_STEPS + done) / (WARM_STEPS + total))
            if on_round is not None and done:
                medians = {k: statistics.median(r.ms for r in records[k]) for k in [0, *ks]}
                on_round(before + [VerifyCost(context, k, ms) for k, ms in medians.items()])

        return kept

    for i, context in enumerate(contexts):
        lanes = {k: _lane(model, tokenizer, context, k, WARM_STEPS + rounds + rounds // 4) for k in [0, *ks]}
        advance(lanes, WARM_STEPS, lock)
        records: dict = {}
        kept = each_round(i, context, records, list(out))
        kept(0, rounds)
        got = lane_rounds(lanes, rounds, lock, rounds // 4, on_round=kept, kept=records)
        finish(lanes)
        out.append(VerifyCost(context, 0, statistics.median(got.ms(0))))
        out += [VerifyCost(context, k, statistics.median(got.ms(k)), got.ratio(k, 0)) for k in ks]
    return out


def ridge_tokens(c: ModelConfig, context: int, dtype_bytes: int, weight_bytes: float, ridge: float) -> int | None:
    """The fewest tokens a verify step must feed (k drafts + 1) for the cost model's arithmetic
    intensity to reach the roofline's ridge point: past it the step is compute-bound. None beyond 4,096."""
    for T in range(1, 4097):
        cost = step_cost(c, [SeqWork(T, context + T, T)], dtype_bytes, weight_dtype_bytes=weight_bytes)
        if cost.intensity >= ridge:
            return T
    return None


def flat_walk(costs: list[VerifyCost], context: int, within: float = FLAT_WITHIN) -> tuple[int | None, str]:
    """At `context`, k by k: the largest k up to which every verify step's whole interval lies at or
    below `within` (None: not even the smallest), and how the walk ended: "all" (every k measured is
    flat), "rises" (the next k's interval lies wholly above) or "unclear" (it straddles `within`)."""
    best = None
    for c in sorted((c for c in costs if c.context == context and c.k), key=lambda c: c.k):
        side = compare(c.interval, within)
        if side != LESS:
            return best, "rises" if side == GREATER else "unclear"
        best = c.k
    return best, "all"


def flat_until(costs: list[VerifyCost], context: int, within: float = FLAT_WITHIN) -> int | None:
    return flat_walk(costs, context, within)[0]


def _flat_words(walks: dict[int, tuple[int | None, str]]) -> str:
    words = []
    for ctx, (k, end) in walks.items():
        text = f"C = {ctx}: k ≤ {k}" if k else f"C = {ctx}: none"
        words.append(text + (", then not separable" if end == "unclear" else ""))
    return "; ".join(words)


def verify_claim(costs: list[VerifyCost]) -> Verdict:
    """ "Decode leaves compute idle", measured: verifying k drafts costs ≤ FLAT_WITHIN × a decode step
    up to which k, at each context. Holds with k ≥ 4 at every context; not separable where a context
    short of that ends on an interval that straddles FLAT_WITHIN; else roughly with k ≥ 1 at some."""
    contexts = sorted({c.context for c in costs})
    walks = {ctx: flat_walk(costs, ctx) for ctx in contexts}
    smallest = min(c.k for c in costs if c.k)
    worst = max((c for c in costs if c.k == smallest), key=lambda c: c.ratio)
    r = worst.interval
    nums = dict(within=FLAT_WITHIN, flat=_flat_words(walks), k1=worst.k, r1=worst.ratio, ctx1=worst.context)
    nums |= dict(low=r.low, high=r.high, n=r.n)
    if all(k is not None and k >= 4 for k, _ in walks.values()):
        return Verdict("SPEC", HOLDS, "why_spec_verify_holds", nums)
    if any(end == "unclear" and (k or 0) < 4 for k, end in walks.values()):
        return Verdict("SPEC", NOT_SEPARABLE, "why_spec_verify_not_separable", nums)
    if any(k is not None for k, _ in walks.values()):
        return Verdict("SPEC", ROUGHLY, "why_spec_verify_roughly", nums)
    return Verdict("SPEC", FAILS, "why_spec_verify_fails", nums)
