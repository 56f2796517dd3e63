"""The precision lab's run: float32's row first (timed alone, on screen within a second or two), then
each other configuration loaded, timed beside float32 (lab/precision_timing.py) and scored against it
(lab/precision.py), its row landing as each part ends; float32's own quality row last.

Loading a format re-reads the model and quantises it (int8 kernels are timed once per machine and
cached), so a run loads each configuration's weights once and lets them go. float32's side of the
scoring (its logits over the text, its greedy continuations) is computed once and kept for the run.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from engine import Engine, EngineConfig, SamplingParams, load_model
from engine.config import ModelConfig
from lab.precision import (
    GREEDY_TOKENS,
    PROMPTS,
    Agreement,
    chunk_logits,
    chunks_agreement,
    greedy_agreement,
    read_text,
)
from lab.precision_formats import FormatConfig, FormatResult, kv_token_bytes, parse_weights
from lab.precision_pace import Part, PrecisionPace, PrecisionProgress
from lab.precision_timing import PREFILL_LEN, SAMPLE_TOKENS, Timing, TimingPlan, time_against, time_reference

Progress = Callable[[PrecisionProgress], None]


@dataclass
class RunSettings:
    spec: str
    configs: list[FormatConfig]
    prefill_len: int = PREFILL_LEN
    repeats: int = 1  # × the paired rounds each configuration is timed for (TimingPlan.repeated)
    quality_tokens: int = 256  # of the text; 0 skips perplexity, KL and top-1
    greedy_prompts: int = 3
    plan: TimingPlan | None = None  # default: TimingPlan.repeated(repeats, prefill_len)

    def __post_init__(self):
        # float32 is every ratio's base: its row comes first, once
        self.configs = [FormatConfig("float32")] + [c for c in self.configs if not c.is_reference]

    @property
    def timing_plan(self) -> TimingPlan:
        return self.plan or TimingPlan.repeated(self.repeats, self.prefill_len)


@dataclass
class PrecisionRun:
    settings: RunSettings
    model: ModelConfig | None = None
    results: list[FormatResult] = field(default_factory=list)
    reference_ppl: float | None = None
    reference_sample: str = ""
    prompt_len: int = 0  # the timed decode's prompt, in tokens
    stopped: bool = False

    @property
    def fewer_threads(self) -> list[FormatResult]:
        """Rows timed on fewer threads than a quiet machine gives: other work held a core meanwhile."""
        return [r for r in self.results if r.timing.threads < r.timing.of_threads]

    @property
    def retaken(self) -> int:
        """Rounds measured again because other work took the machine meanwhile, over every row."""
        return sum(r.timing.retaken for r in self.results)


def parts_of(s: RunSettings) -> list[Part]:
    """The run's parts in order (lab/precision_pace.py)."""
    parts = [Part("reference", 0)]
    scores = bool(s.quality_tokens or s.greedy_prompts)
    for k, c in enumerate(s.configs[1:], start=1):
        dtype, weights = parse_weights(c.weights)
        loads = not (dtype == "float32" and weights == "native")
        parts += [Part("loading", k, dtype, weights, loads), Part("timing", k, dtype, weights)]
        parts += [Part("scoring", k, dtype, weights)] if scores else []
    return parts + ([Part("scoring", 0)] if scores else [])


class _Reference:
    """float32's side of every comparison, computed once: the text's logits and the greedy prompts'
    continuations and logits."""

    def __init__(self, ref, s: RunSettings):
        self.bundle, self.model = ref, ref.model
        self.text_ids = ref.tokenizer(read_text()).input_ids[: s.quality_tokens] if s.quality_tokens else []
        self.prompts = [ref.tokenizer(p).input_ids for p in PROMPTS[: s.greedy_prompts]]
        self.engine = Engine(ref.model, ref.tokenizer, EngineConfig(probe_memory=False))
        self.prompt_logits: dict = {}
        self.continuation = functools.lru_cache(maxsize=None)(self._continue)

    def _continue(self, prompt: tuple[int, ...]) -> list[int]:
        params = SamplingParams(max_new_tokens=GREEDY_TOKENS, ignore_eos=True)
        return self.engine.generate(list(prompt), params).requests[-1].output_token_ids

    @functools.cached_property
    def text_logits(self) -> list:
        return list(chunk_logits(self.model, self.text_ids))

    def score(self, model, kv_dtype: str) -> tuple[Agreement | None, Agreement | None]:
        """(text, greedy) agreement of a format with float32 (float32 itself: model None)."""
        text = greedy = None
        if self.text_ids:
            ours = self.text_logits if model is None else chunk_logits(model, self.text_ids, kv_dtype)
            text = chunks_agreement(ours, self.text_logits, self.text_ids)
        if self.prompts:
            generate = lambda p: self.continuation(tuple(p))  # noqa: E731 - memoised by its tuple
            mine = self.model if model is None else model
            greedy = greedy_agreement(generate, self.model, mine, self.prompts, kv_dtype, self.prompt_logits)
        return text, greedy


def measure(
    settings: RunSettings,
    progress: Progress = lambda p: None,
    stop: Callable[[], bool] = lambda: False,
    run: PrecisionRun | None = None,
    reference=None,
    lock=None,
    on_row: Callable[[PrecisionRun], None] = lambda run: None,
) -> PrecisionRun:
    """float32's row, then every configuration in turn (a Stop between parts keeps what was measured).
    `reference`: a float32 bundle of the same model to reuse; `run` fills as it goes and on_row(run)
    follows each row's timing and each row's scores; progress(PrecisionProgress) at every change."""
    run = run or PrecisionRun(settings)
    ref = reference or load_model(settings.spec, dtype="float32")
    run.model = ref.model.config
    s, plan = settings, settings.timing_plan
    pace = PrecisionPace(
        parts_of(s), plan, s.quality_tokens, s.greedy_prompts * GREEDY_TOKENS, ref.model.config.num_params
    )
    prompt = ref.tokenizer(PROMPTS[0]).input_ids
    run.prompt_len = len(prompt)
    step = _Stepper(pace, progress)
    first = step.part(lambda within: time_reference(ref, prompt, plan, lock))
    pace.speeds.step_s, pace.speeds.token_s = first.tpot_ms / 1e3, first.prefill_ms / 1e3 / plan.prefill_len
    run.results.append(_result(ref, s.configs[0], first))
    run.reference_sample = run.results[0].sample
    on_row(run)
    scoring = _Reference(ref, s)
    for k, config in enumerate(s.configs[1:], start=1):
        if stop():
            run.stopped = True
            break
        _one(run, k, config, scoring, step, lock, on_row)
    if not run.stopped and pace.parts[-1].stage == "scoring":
        run.results[0].text, run.results[0].greedy = step.part(lambda within: scoring.score(None, "auto"))
        _note_ppl(run, run.results[0])
        on_row(run)
    progress(pace.at())
    return run


class _Stepper:
    """Runs the pace's parts in order: progress before and within each, its seconds recorded after."""

    def __init__(self, pace: PrecisionPace, progress: Progress):
        self.pace, self.progress = pace, progress

    def part(self, work: Callable[[Callable[[float], None]], object]):
        self.progress(self.pace.at())
        start = time.perf_counter()
        out = work(lambda within: self.progress(self.pace.at(within)))
        self.pace.done(time.perf_counter() - start)
        return out


def _one(run: PrecisionRun, k: int, config: FormatConfig, scoring: _Reference, step: _Stepper, lock, on_row) -> None:
    """Configuration k: loaded, timed beside float32 (its row lands), then scored (its scores land)."""
    s, ref = run.settings, scoring.bundle
    dtype, weights = parse_weights(config.weights)
    own = dtype == "float32" and weights == "native"  # a KV dtype's row: float32's own weights

    def load(within):
        return ref if own else load_model(s.spec, dtype=dtype, weights=weights)

    bundle = step.part(load)
    prompt = ref.tokenizer(PROMPTS[0]).input_ids
    timing: Timing = step.part(
        lambda within: time_against(ref, bundle, config.kv_dtype, prompt, s.timing_plan, lock, within, SAMPLE_TOKENS)
    )
    step.pace.speeds.factors[dtype] = (timing.tpot_ms / timing.ref_tpot_ms, timing.prefill_ms / timing.ref_prefill_ms)
    result = _result(bundle, config, timing)
    run.results.append(result)
    on_row(run)
    if step.pace.parts[-1].stage == "scoring":
        result.text, result.greedy = step.part(lambda within: scoring.score(bundle.model, config.kv_dtype))
        _note_ppl(run, result)
        on_row(run)


def _result(bundle, config: FormatConfig, timing: Timing) -> FormatResult:
    m = bundle.model
    sample = bundle.tokenizer.decode(timing.tokens[:SAMPLE_TOKENS], skip_special_tokens=True)
    kv = kv_token_bytes(m.config, config.kv_dtype, m.dtype)
    kernels = tuple(sorted({lin.decode_kernel for lin in m.linears().values()}))
    return FormatResult(
        config, m.weight_bytes, m.weight_elem_bytes, m.dtype.itemsize, kv, timing, sample=sample, decode_kernels=kernels
    )


def _note_ppl(run: PrecisionRun, result: FormatResult) -> None:
    if result.text is not None and result.text.tokens:
        run.reference_ppl = result.text.perplexity_ref
