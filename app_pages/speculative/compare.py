"""The same prompt decoded plainly and with speculation (prompt lookup or a draft model, whose drafting
is inside the engine's step time), both timed bare, and what the comparison says: tokens per step,
the cost of a step, the speed-up and where it comes from.

No Streamlit here: the run tab drives `run_both` and draws its progress."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from engine.core.draft_model import with_draft_model
from engine.core.speculative import SpeculativeConfig
from engine.errors import LabError
from lab.busy import MachineLoad
from ui.run_driver import run_steps, start_run
from ui.run_state import RunResult, RunSettings

WARM_TOKENS = 4  # an untimed short run of each config first: new shapes pay one-off kernel set-up


@dataclass
class SpecComparison:
    k: int
    plain: RunResult
    spec: RunResult
    drafter: str = "prompt_lookup"  # or "int8": this model's int8 copy as the draft model
    adaptive: bool = False  # k followed the acceptance, starting at k

    @property
    def same_tokens(self) -> bool:
        return [t.token_id for t in self.plain.tokens] == [t.token_id for t in self.spec.tokens]

    @property
    def load(self) -> MachineLoad | None:
        """The busier of the two runs' loads: a ratio of their timings is as reliable as the worse one."""
        loads = [r.load for r in (self.plain, self.spec) if r.load is not None]
        return max(loads, key=lambda m: (m.busy, m.other_cores or 0.0), default=None)


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


def run_both(
    bundle,
    prompt: str,
    k: int,
    max_new: int,
    lock,
    progress: Callable[[int, int], None],
    draft_model=None,
    adaptive: bool = False,
) -> SpecComparison:
    """Plain, then speculative; progress(run index 0 or 1, tokens so far) after each step. A bad
    prompt or setting raises LabError before anything runs. draft_model: a loaded bundle with the
    same tokenizer that drafts instead of prompt lookup (engine/core/draft_model.py); adaptive: k starts
    at k and follows the acceptance (SpeculativeConfig.next_k)."""
    if not prompt.strip():
        raise LabError("The prompt is empty: type some text to run.")
    spec = SpeculativeConfig(num_tokens=k, adaptive=adaptive) if adaptive else None
    if draft_model is not None:
        config = SpeculativeConfig(method="draft_model", model=draft_model.name, num_tokens=k, adaptive=adaptive)
        spec = with_draft_model(config, bundle.tokenizer, lambda _spec, _weights: draft_model)
    for kk in (0, k):  # untimed: both configs' shapes once
        engine, warm = start_run(bundle, settings_for(prompt, min(WARM_TOKENS, max_new), kk), spec if kk else None)
        for _ in run_steps(engine, warm, lock):
            pass
    results = []
    for i, kk in enumerate((0, k)):
        engine, result = start_run(bundle, settings_for(prompt, max_new, kk), spec if kk else None)
        for _ in run_steps(engine, result, lock):
            progress(i, len(result.tokens))
        results.append(result)
    drafter = "int8" if draft_model is not None else "prompt_lookup"
    return SpecComparison(k, *results, drafter=drafter, adaptive=adaptive)
