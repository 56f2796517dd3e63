"""The precision lab's measurement: each configuration (weights × KV cache dtype) of one model loaded,
timed and scored against float32, plus the arithmetic of what each stores and reads.

    bytes read per decode step = weights as stored + batch × context × KV bytes per token
    KV bytes per token         = 2 × layers × kv_heads × head_dim × element bytes (+ int8's scales)
    tokens that fit            = (memory budget − weights) / KV bytes per token

Timings come from runs with the memory probe off (the engine's own token times); quality from
lab/precision.py. Loading a format re-reads the model and quantises it (int8 kernels are timed once
per machine and cached), so a run loads each configuration's weights once and lets them go.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable
from dataclasses import dataclass, field

import torch

from engine import Engine, EngineConfig, SamplingParams, load_model
from engine.config import ModelConfig
from engine.errors import LabError
from engine.layers.kv_cache import kv_bytes_per_token, kv_storage
from engine.observe.costmodel import SeqWork, StepCost, step_cost
from lab.busy import LoadMeter, MachineLoad, busiest
from lab.precision import GREEDY_TOKENS, PROMPTS, Agreement, greedy_agreement, read_text, text_agreement
from lab.workload import text_tokens

GGUF_CHOICE = "gguf Q4_1 (as stored)"  # the bundled file's own 4-bit blocks, never de-quantised
WEIGHT_CHOICES = ("float32", "bfloat16", "float16", "int8 + float32", "int8 + bfloat16", "w8a8", GGUF_CHOICE)
KV_CHOICES = ("auto", "bfloat16", "float16", "float8_e4m3fn", "int8")


def parse_weights(choice: str) -> tuple[str, str]:
    """A page choice -> (activation dtype, weight format)."""
    table = {
        "float32": ("float32", "native"),
        "bfloat16": ("bfloat16", "native"),
        "float16": ("float16", "native"),
        "int8 + float32": ("float32", "int8"),
        "int8 + bfloat16": ("bfloat16", "int8"),
        "w8a8": ("float32", "w8a8"),
        GGUF_CHOICE: ("float32", "gguf"),
    }
    if choice not in table:
        raise LabError(f"Unknown weights {choice!r}; choose one of {', '.join(table)}.")
    return table[choice]


@dataclass(frozen=True)
class FormatConfig:
    weights: str  # one of WEIGHT_CHOICES
    kv_dtype: str = "auto"

    @property
    def name(self) -> str:
        return self.weights if self.kv_dtype == "auto" else f"{self.weights}, KV {self.kv_dtype}"

    @property
    def is_reference(self) -> bool:
        return self.weights == "float32" and self.kv_dtype in ("auto", "float32")


@dataclass
class FormatResult:
    config: FormatConfig
    weight_bytes: int  # held
    weight_elem_bytes: float  # per linear weight element, as a forward reads it
    act_bytes: int  # activations' element size
    kv_token_bytes: int
    prefill_ms: float
    tpot_ms: float
    text: Agreement | None = None
    greedy: Agreement | None = None
    sample: str = ""  # greedy continuation of PROMPTS[0]
    load: MachineLoad | None = None  # other processes' CPU use while it was timed


def decode_step_cost(
    model: ModelConfig, act_bytes: int, weight_elem_bytes: int, kv_token: int, context: int, batch: int
) -> StepCost:
    """One decode step of `batch` sequences at this context, weights and KV as stored (engine/costmodel)."""
    return step_cost(
        model, [SeqWork(1, context)] * batch, act_bytes, weight_dtype_bytes=weight_elem_bytes, kv_token_bytes=kv_token
    )


def format_cost(model: ModelConfig, r: FormatResult, context: int, batch: int) -> StepCost:
    return decode_step_cost(model, r.act_bytes, r.weight_elem_bytes, r.kv_token_bytes, context, batch)


def read_bytes(model: ModelConfig, r: FormatResult, context: int, batch: int) -> float:
    """Bytes one decode step reads at this context and batch: the weights, then the KV of the context."""
    cost = format_cost(model, r, context, batch)
    return cost.weight_bytes + cost.kv_read_bytes


def kv_token_bytes(model: ModelConfig, kv_dtype: str, act: torch.dtype = torch.float16) -> int:
    """KV bytes per token of a dtype ("auto": the activations' own)."""
    return kv_bytes_per_token(model, kv_storage(kv_dtype, act))


@dataclass
class Capacity:
    name: str
    kv_token_bytes: int
    tokens: int  # KV tokens that fit beside the weights
    sequences: int  # of `context` tokens each


def capacity(
    model: ModelConfig, weight_bytes: float, budget_bytes: float, kv_token: int, context: int, name: str
) -> Capacity:
    room = max(0.0, budget_bytes - weight_bytes)
    tokens = int(room // kv_token)
    return Capacity(name, kv_token, tokens, tokens // max(1, context))


def mha_twin(model: ModelConfig) -> ModelConfig:
    """The same model with one KV head per query head (multi-head attention): GQA's saving undone."""
    from dataclasses import replace

    return replace(model, num_kv_heads=model.num_heads)


@dataclass
class RunSettings:
    spec: str
    configs: list[FormatConfig]
    prompt_len: int = 16
    new_tokens: int = 32
    prefill_len: int = 256
    repeats: int = 2
    quality_tokens: int = 512  # of the text; 0 skips quality
    greedy_prompts: int = 3


@dataclass
class PrecisionRun:
    settings: RunSettings
    model: ModelConfig | None = None
    results: list[FormatResult] = field(default_factory=list)
    reference_ppl: float | None = None
    reference_sample: str = ""
    stopped: bool = False

    @property
    def busiest(self) -> MachineLoad | None:
        """The load of the configuration timed on the busiest machine: one busy timing makes every
        ratio to float32 unreliable."""
        return busiest([r.load for r in self.results])


def timed_request(model, tokenizer, ids: list[int], new_tokens: int, **config) -> tuple[float, float]:
    """(TTFT ms, TPOT ms) of one greedy request, memory probe off (the engine's own token times);
    `config`: more EngineConfig fields (kv_dtype, attention, ...)."""
    engine = Engine(model, tokenizer, EngineConfig(probe_memory=False, **config))
    engine.add_request(ids, SamplingParams(max_new_tokens=new_tokens, ignore_eos=True))
    for _ in engine.stream():
        pass
    m = engine.trace.requests[0].metrics
    return m.ttft_ms, m.tpot_ms or 0.0


def _timing(bundle, kv_dtype: str, settings: RunSettings) -> tuple[float, float]:
    def once(ids: list[int], new: int) -> tuple[float, float]:
        return timed_request(bundle.model, bundle.tokenizer, ids, new, kv_dtype=kv_dtype)

    short = text_tokens(bundle.tokenizer, settings.prompt_len)
    long = text_tokens(bundle.tokenizer, settings.prefill_len)
    once(short, 2)  # warm-up: the first step of a fresh format pays for oneDNN primitives
    tpots = [once(short, settings.new_tokens)[1] for _ in range(settings.repeats)]
    prefills = [once(long, 1)[0] for _ in range(settings.repeats)]
    return statistics.median(prefills), statistics.median(tpots)


def measure(
    settings: RunSettings,
    progress: Callable[[str, int, float], None] = lambda stage, k, f: None,
    stop: Callable[[], bool] = lambda: False,
    run: PrecisionRun | None = None,
    reference=None,
) -> PrecisionRun:
    """Load float32 (the reference; pass `reference`, a float32 bundle of the same model, to reuse
    one), then each configuration in turn: time it and score it. `run` fills as it goes.
    progress(stage, k, fraction): the stage ("reference", "loading", "timing", "perplexity", "greedy",
    "done") of configuration k (1-based; 0 while the reference loads) and how far the whole run is."""
    run = run or PrecisionRun(settings)
    progress("reference", 0, 0.0)
    ref = reference or load_model(settings.spec, dtype="float32")
    run.model = ref.model.config
    text_ids = ref.tokenizer(read_text()).input_ids[: settings.quality_tokens] if settings.quality_tokens else []
    prompts = [ref.tokenizer(p).input_ids for p in PROMPTS[: settings.greedy_prompts]]
    ref_engine = Engine(ref.model, ref.tokenizer, EngineConfig(probe_memory=False))

    def ref_greedy(prompt: list[int]) -> list[int]:
        return (
            ref_engine.generate(prompt, SamplingParams(max_new_tokens=GREEDY_TOKENS, ignore_eos=True))
            .requests[-1]
            .output_token_ids
        )

    run.reference_sample = ref.tokenizer.decode(ref_greedy(prompts[0]) if prompts else [], skip_special_tokens=True)
    n = len(settings.configs)
    for i, config in enumerate(settings.configs):
        if stop():
            run.stopped = True
            break
        progress("loading", i + 1, i / n)
        run.results.append(
            _one(
                ref,
                config,
                settings,
                text_ids,
                prompts,
                ref_greedy,
                lambda stage, f, i=i: progress(stage, i + 1, (i + f) / n),
            )
        )
        ppl = run.results[-1].text
        if ppl is not None and ppl.tokens:
            run.reference_ppl = ppl.perplexity_ref
    progress("done", n, 1.0)
    return run


def _one(ref, config: FormatConfig, settings: RunSettings, text_ids, prompts, ref_greedy, progress) -> FormatResult:
    dtype, weights = parse_weights(config.weights)
    bundle = (
        ref
        if config.is_reference or (dtype == "float32" and weights == "native")
        else load_model(settings.spec, dtype=dtype, weights=weights)
    )
    m = bundle.model
    progress("timing", 0.1)
    with LoadMeter() as meter:
        prefill_ms, tpot_ms = _timing(bundle, config.kv_dtype, settings)
    result = FormatResult(
        config,
        m.weight_bytes,
        m.weight_elem_bytes,
        m.dtype.itemsize,
        kv_token_bytes(m.config, config.kv_dtype, m.dtype),
        prefill_ms,
        tpot_ms,
        load=meter.load,
    )
    if text_ids:
        progress("perplexity", 0.4)
        result.text = text_agreement(ref.model, m, text_ids, config.kv_dtype)
    if prompts:
        progress("greedy", 0.8)
        result.greedy = greedy_agreement(ref_greedy, ref.model, m, prompts, config.kv_dtype)
        sample = (
            Engine(m, bundle.tokenizer, EngineConfig(probe_memory=False, kv_dtype=config.kv_dtype))
            .generate(prompts[0], SamplingParams(max_new_tokens=GREEDY_TOKENS, ignore_eos=True))
            .requests[-1]
            .output_token_ids
        )
        result.sample = bundle.tokenizer.decode(sample, skip_special_tokens=True)
    return result
