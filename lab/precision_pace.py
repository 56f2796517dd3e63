"""How far a precision run is and how long it has left, re-estimated from what it has measured.

A run is parts, in order: the float32 row (timed alone), then for each other configuration its
loading, its timing beside float32 and its scoring, and last float32's own quality row. Each part's
seconds are estimated from the speeds measured so far: float32's decode step and prefill token (its
row, the first part), each activation dtype's speed against float32 (the latest configuration
measured with it: a bfloat16 step without a fast kernel costs ten float32 steps, and the second
bfloat16 configuration should be expected to be slow too), and loading's pace against its prior. A
part that is done counts its real seconds; the time left is the sum of the estimates still ahead.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from lab.precision_timing import MIN_ROUNDS, REFERENCE_STEPS, SAMPLE_TOKENS, WARM_STEPS, TimingPlan

LOAD_S = 3.0  # a prior: seconds to load and convert the bundled model (135 M parameters) in a format
LOAD_FACTOR = {"native": 1.0, "int8": 2.0, "w8a8": 1.5, "gguf": 1.0}  # quantising costs more than a cast
LOGITS_COST = 1.3  # scoring computes every row's logits (the LM head for each token), not the last one's
RETAKES = 1.15  # a share of rounds measured again on a busy machine


@dataclass(frozen=True)
class Part:
    stage: str  # "reference", "loading", "timing", "scoring"
    k: int  # the configuration's index in the run (0: float32)
    activations: str = "float32"
    weights: str = "native"
    loads: bool = True  # a KV-dtype row reuses float32's weights: nothing to load


@dataclass(frozen=True)
class PrecisionProgress:
    stage: str
    k: int  # 1-based configuration number; 0 before the first
    fraction: float
    seconds_left: float | None
    within: float = 0.0  # how far the running part is


@dataclass
class Speeds:
    """What the run has measured so far, in seconds."""

    step_s: float | None = None  # a float32 decode step
    token_s: float | None = None  # a float32 prefill token
    factors: dict[str, tuple[float, float]] = field(default_factory=dict)  # activations -> (decode, prefill) ÷ float32
    load_actual: float = 0.0  # seconds the loads so far took
    load_prior: float = 0.0  # and what their prior said

    @property
    def load_scale(self) -> float:
        return self.load_actual / self.load_prior if self.load_prior else 1.0

    scored_reference: bool = False  # float32's logits and continuations are computed once


class PrecisionPace:
    def __init__(self, parts: list[Part], plan: TimingPlan, text_tokens: int, greedy_tokens: int, params: float):
        self.parts, self.plan = parts, plan
        self.text_tokens, self.greedy_tokens, self.params = text_tokens, greedy_tokens, params
        self.speeds = Speeds()
        self.actual: list[float] = []  # seconds of each finished part

    def estimate(self, part: Part) -> float:
        s = self.speeds
        if part.stage == "loading":
            return self._load_prior(part) * s.load_scale
        step, token = s.step_s or 0.0, s.token_s or 0.0
        f_decode, f_prefill = s.factors.get(part.activations, (1.0, 1.0))
        if part.stage == "reference":
            return (WARM_STEPS + REFERENCE_STEPS) * step + 4 * self.plan.prefill_len * token
        if part.stage == "timing":
            return self._timing(step, f_decode, self.plan.prefill_len * token * (1 + f_prefill))
        ref = 0.0 if s.scored_reference else self.greedy_tokens * step + self._scored(token)
        return ref + self._scored(token * (f_prefill if part.k else 1.0))

    def _load_prior(self, part: Part) -> float:
        return LOAD_S * self.params / 135e6 * LOAD_FACTOR.get(part.weights, 1.0) if part.loads else 0.0

    def _timing(self, step_s: float, f_decode: float, prefill_pair_s: float) -> float:
        """Warm-up and decode rounds (both lanes), the format's untimed steps to its sample's length,
        then the prefill rounds after their untimed pair (lab/precision_timing.time_against)."""
        p, pair_s = self.plan, step_s * (1 + f_decode)
        rounds = max(MIN_ROUNDS, min(p.decode_rounds, int(p.decode_budget_s / max(pair_s, 1e-6))))
        prefills = max(MIN_ROUNDS, min(p.prefill_rounds, int(p.prefill_budget_s / max(prefill_pair_s, 1e-6))))
        sample = max(0, SAMPLE_TOKENS - WARM_STEPS - rounds) * step_s * f_decode
        return (WARM_STEPS + RETAKES * rounds) * pair_s + sample + (1 + RETAKES * prefills) * prefill_pair_s

    def _scored(self, token_s: float) -> float:
        """One model's forwards over the text and the greedy prompts' continuations."""
        return (self.text_tokens + self.greedy_tokens) * token_s * LOGITS_COST

    def done(self, seconds: float) -> None:
        """The next part ended after `seconds`: loading re-scales its prior from it."""
        part = self.parts[len(self.actual)]
        if part.stage == "loading" and part.loads:
            self.speeds.load_actual += seconds
            self.speeds.load_prior += self._load_prior(part)
        if part.stage == "scoring":
            self.speeds.scored_reference = True
        self.actual.append(seconds)

    def at(self, within: float = 0.0) -> PrecisionProgress:
        """The running part (the first not done), `within` of the way through it."""
        i = len(self.actual)
        if i >= len(self.parts):
            return PrecisionProgress("done", max(p.k for p in self.parts) + 1, 1.0, None)
        ahead = [self.estimate(p) for p in self.parts[i:]]
        left = ahead[0] * (1 - within) + sum(ahead[1:])
        spent = sum(self.actual) + ahead[0] * within
        fraction = spent / (spent + left) if spent + left > 0 else 0.0
        known = self.speeds.step_s is not None
        return PrecisionProgress(self.parts[i].stage, self._k(i), fraction, left if known else None, within)

    def _k(self, i: int) -> int:
        return self.parts[i].k + 1
