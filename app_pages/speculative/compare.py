"""The same prompt decoded plainly and with speculation (prompt lookup or a draft model, whose drafting
is inside the engine's step time), both timed bare, in rounds (plain then speculative, then the other
way round: lab/pairing.interleave), so both see the same load; and what the comparison says: tokens
per step (counted), the cost of a step and the speed-up (plain ms per token ÷ speculative's, the
median of the rounds' ratios with its interval and n).

No Streamlit here: the run tab drives `run_both` and draws its progress."""

from __future__ import annotations

import statistics
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from engine.core.draft_model import with_draft_model
from engine.core.speculative import SpeculativeConfig
from engine.errors import LabError
from lab.pairing import RatioInterval, interleave
from ui.run_driver import run_steps, start_run
from ui.run_state import RunResult, RunSettings

WARM_TOKENS = 4  # an untimed short run of each config first: new shapes pay one-off kernel set-up
ROUNDS = 6  # plain and speculative runs, paired: the fewest an interval judges by, and one more
ARMS = ("plain", "spec")


@dataclass
class SpecComparison:
    k: int
    plain: RunResult
    spec: RunResult
    drafter: str = "prompt_lookup"  # or "int8": this model's int8 copy as the draft model
    adaptive: bool = False  # k followed the acceptance, starting at k
    speedup: RatioInterval | None = None  # plain ms per decode token ÷ speculative's, round by round
    tpot_ms: dict[str, list[float]] = field(default_factory=dict)  # "plain" / "spec": each kept round's TPOT

    @property
    def same_tokens(self) -> bool:
        return [t.token_id for t in self.plain.tokens] == [t.token_id for t in self.spec.tokens]

    def median_tpot(self, arm: str) -> float | None:
        values = [v for v in self.tpot_ms.get(arm, []) if v is not None]
        return statistics.median(values) if values else None


@dataclass(frozen=True)
class DecodeSummary:
    """The decode phase of both runs, from the engine's own step times. With the same tokens out,
    speed-up = plain ms per token ÷ speculative ms per token = tokens per step ÷ step-cost ratio."""

    plain_ms_per_token: float
    steps: int  # speculative decode steps
    tokens: int  # tokens they produced
    spec_ms_per_step: float
    drafted: int
    accepted: int
    drafting_steps: int

    @property
    def per_step(self) -> float:
        return self.tokens / self.steps

    @property
    def ratio(self) -> float:
        return self.spec_ms_per_step / self.plain_ms_per_token

    @property
    def speedup(self) -> float:
        return self.per_step / self.ratio

    @property
    def acceptance(self) -> float | None:
        return self.accepted / self.drafted if self.drafted else None

    def step_cost(self, speedup: RatioInterval) -> RatioInterval:
        """A speculative step's cost in plain steps, with its interval: tokens per step (counted, the
        same every round) ÷ the speed-up, so its ends are the speed-up's ends swapped."""
        k = self.per_step
        return replace(speedup, median=k / speedup.median, low=k / speedup.high, high=k / speedup.low)


def _decode(result: RunResult) -> tuple[list, int]:
    steps = [s for s in result.steps if s.phase == "decode"]
    decode_ids = {s.step for s in steps}
    return steps, sum(tok.step in decode_ids for tok in result.tokens)


def decode_summary(c: SpecComparison) -> DecodeSummary | None:
    """None when either run has no decode step (one token, or stopped before its second)."""
    plain, plain_tokens = _decode(c.plain)
    spec, spec_tokens = _decode(c.spec)
    if not plain or not spec or not plain_tokens:
        return None
    seqs = [s.seqs[0] for s in spec]
    return DecodeSummary(
        plain_ms_per_token=sum(s.ms for s in plain) / plain_tokens,
        steps=len(spec),
        tokens=spec_tokens,
        spec_ms_per_step=sum(s.ms for s in spec) / len(spec),
        drafted=sum(q.drafted for q in seqs),
        accepted=sum(q.accepted for q in seqs),
        drafting_steps=sum(bool(q.drafted) for q in seqs),
    )


def settings_for(prompt: str, max_new: int, k: int) -> RunSettings:
    """Greedy, no chat template, no instruments: the timed runs of the comparison."""
    return RunSettings(prompt=prompt, chat=False, max_new_tokens=max_new, probe_memory=False, speculative_k=k)


def ms_per_token(result: RunResult) -> float:
    """A run's decode time per token it decoded (the engine's own step times)."""
    steps, tokens = _decode(result)
    return sum(s.ms for s in steps) / tokens if tokens else 0.0


def _drafter(bundle, k: int, draft_model, adaptive: bool) -> SpeculativeConfig | None:
    if draft_model is not None:
        config = SpeculativeConfig(method="draft_model", model=draft_model.name, num_tokens=k, adaptive=adaptive)
        return with_draft_model(config, bundle.tokenizer, lambda _spec, _weights: draft_model)
    return SpeculativeConfig(num_tokens=k, adaptive=adaptive) if adaptive else None


def run_both(
    bundle,
    prompt: str,
    k: int,
    max_new: int,
    lock,
    progress: Callable[[int, str, int], None],
    draft_model=None,
    adaptive: bool = False,
    rounds: int = ROUNDS,
    on_round: Callable[[SpecComparison, int], None] | None = None,
) -> SpecComparison:
    """Plain and speculative runs in `rounds` interleaved rounds (the order alternating; a round taken
    while other work kept the machine busy is run again, within a budget); progress(rounds kept, arm,
    tokens so far) after each step; on_round(the comparison so far, rounds kept) after each kept round,
    its counted work and TPOTs filled in, its speed-up not yet (that is judged over all the rounds).
    A bad prompt or setting raises LabError before anything runs. draft_model: a loaded bundle with
    the same tokenizer that drafts instead of prompt lookup (engine/core/draft_model.py); adaptive: k
    starts at k and follows the acceptance."""
    if not prompt.strip():
        raise LabError("The prompt is empty: type some text to run.")
    spec = _drafter(bundle, k, draft_model, adaptive)
    for kk in (0, k):  # untimed: both configs' shapes once
        engine, warm = start_run(bundle, settings_for(prompt, min(WARM_TOKENS, max_new), kk), spec if kk else None)
        for _ in run_steps(engine, warm, lock):
            pass
    last: dict[str, RunResult] = {}
    tpot: dict[str, list[float]] = {arm: [] for arm in ARMS}
    kept_rounds = [0]

    def arm(name: str, kk: int) -> Callable[[], float]:
        def one() -> float:
            engine, result = start_run(bundle, settings_for(prompt, max_new, kk), spec if kk else None)
            for _ in run_steps(engine, result, lock):
                progress(kept_rounds[0], name, len(result.tokens))
            last[name] = result
            return ms_per_token(result)

        return one

    drafter = "int8" if draft_model is not None else "prompt_lookup"

    def kept(done: int, total: int) -> None:
        kept_rounds[0] = done
        for name in ARMS:
            tpot[name].append(last[name].metrics.tpot_ms if last[name].metrics else None)
        if on_round is not None:
            so_far = {arm: list(v) for arm, v in tpot.items()}
            on_round(SpecComparison(k, last["plain"], last["spec"], drafter, adaptive, None, so_far), done)

    got = interleave({"plain": arm("plain", 0), "spec": arm("spec", k)}, rounds, rounds // 4, on_round=kept)
    return SpecComparison(k, last["plain"], last["spec"], drafter, adaptive, got.ratio("plain", "spec"), tpot)
