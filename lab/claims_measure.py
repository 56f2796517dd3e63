"""The small set of engine runs the claims page makes when the user clicks "Check all claims", and
what it keeps of them (plain records, no tensors): lab/claims.py turns these into verdicts.

  run A        one greedy request, eager attention, memory probed: shapes, KV growth, step times,
               transient peaks, FLOPs/bytes per step, and what reached the LM head (C1-C3, C5-C7, C10,
               C11, C19, C23)
  scores       an eager prefill of 512 tokens with the memory probe: the score matrix's bytes (C2, C20)
  worked       「今天天气」 through the engine, 3 new tokens (C12)
  mini sweep   lab/sweeps.py at prompt lengths 32, 256, 1024 and output lengths 8, 128, 3 repeats
               (C4, C8, C9, C18)
  cache on/off lab/complexity.py's runs (C13-C15)
  head of line a few chats and one long prompt, without and with chunked prefill (C17, C21-C24)
  leak         lab/memory_lab.py's naive Hugging Face loop against the engine (C16), when a
               Hugging Face copy of the model is given
  ceilings     lab/hardware.py (cached): this machine's GEMM rate and read bandwidth (C3, C7, C10, C11)
  precision    the same model with int8 weights beside it, decode and prefill timed in turn (C19), when
               a quantised copy is given (engine/layers/quant.py)
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import torch

from engine.config import ModelConfig, dtype_name
from engine.core.llm_engine import Engine, EngineConfig
from engine.core.memory_pass import copy_memory, replay_engine, timed_config
from engine.errors import LabError
from engine.observe.trace import StepRecord, Trace
from engine.sampling_params import SamplingParams
from lab.claims_pace import ClaimsPace, ClaimsProgress
from lab.complexity import CacheRun, run_with_and_without_cache
from lab.memory_lab import LeakPoint, PrefillMemory, engine_loop, measure_prefill_memory, naive_hf_loop
from lab.precision_formats import timed_request
from lab.sweeps import SweepResult, SweepSettings, run_sweep
from lab.workload import text_tokens

WORKED_PROMPT = "今天天气"
LEAK_TOPICS = ["the sea", "a mountain", "bread", "the moon", "a river", "winter"]


@dataclass(frozen=True)
class ClaimSettings:
    prompt_len: int = 128  # run A
    new_tokens: int = 24
    sweep: SweepSettings = SweepSettings(
        prompt_lens=(32, 256, 1024), prompt_new_tokens=12, output_prompt_len=64, output_lens=(8, 128), repeats=3
    )
    cache_prompt_len: int = 16
    cache_new_tokens: int = 48
    hol_streams: int = 3
    hol_long_prompt: int = 512
    hol_stream_output: int = 32
    hol_chunk: int = 64
    scores_len: int = 512  # an eager prefill long enough that the score matrix is its peak
    leak_requests: int = 4
    leak_new_tokens: int = 16

    @classmethod
    def quick(cls) -> ClaimSettings:
        """Smaller runs: a few seconds, noisier timings."""
        return cls(
            prompt_len=32,
            new_tokens=8,
            sweep=SweepSettings(
                prompt_lens=(16, 128), prompt_new_tokens=4, output_prompt_len=16, output_lens=(4, 32), repeats=1
            ),
            cache_new_tokens=16,
            hol_streams=2,
            hol_long_prompt=128,
            hol_stream_output=8,
            hol_chunk=32,
            scores_len=256,
            leak_requests=3,
            leak_new_tokens=4,
        )

    def validate(self, max_position: int) -> None:
        need = max(
            self.prompt_len + self.new_tokens,
            self.hol_long_prompt + 16,
            self.scores_len + 2,
            self.cache_prompt_len + self.cache_new_tokens,
            self.leak_requests * (self.leak_new_tokens + 24),
        )
        if need > max_position:
            raise LabError(
                f"The claim checks need {need} tokens of context; this model holds {max_position}. "
                f"The quick check needs fewer: turn it on."
            )
        self.sweep.validate(max_position)


@dataclass
class MachineRoofs:
    """This machine's ceilings for the model's dtype, from lab/hardware.py's cached measurement."""

    gemm_gflops: float
    read_gbs: float
    device_name: str

    @classmethod
    def measure(cls, device: str, dtype: str) -> MachineRoofs:
        from lab.hardware import machine_ceilings  # measured once per machine, then read from its cache

        c = machine_ceilings(device)
        return cls(c.peak_flops(dtype) / 1e9, c.read_bytes_per_s / 1e9, c.device_name)


@dataclass
class HeadCall:
    """One forward: the tokens fed in and the rows of logits that came out of the LM head."""

    tokens_in: int
    logits_rows: int


@dataclass
class ClaimData:
    model: str
    config: ModelConfig
    elem_bytes: int
    settings: ClaimSettings
    steps: list[StepRecord] = field(default_factory=list)  # run A
    head_calls: list[HeadCall] = field(default_factory=list)  # run A, one per step
    finish_reason: str | None = None
    scores: PrefillMemory | None = None  # an eager prefill of scores_len tokens, memory probed
    worked_steps: list[StepRecord] = field(default_factory=list)
    worked_tokens: int = 0
    worked_text: str = ""
    sweep: SweepResult | None = None
    cache_runs: dict[bool, CacheRun] = field(default_factory=dict)
    hol: dict[bool, tuple[Trace, dict[int, str]]] = field(default_factory=dict)  # chunked? -> trace, labels
    leak_naive: list[LeakPoint] = field(default_factory=list)
    leak_engine: list[LeakPoint] = field(default_factory=list)
    ceilings: MachineRoofs | None = None
    precision: PrecisionTiming | None = None


@dataclass
class PrecisionTiming:
    """The model beside a quantised copy: medians of interleaved runs (ms), and what each holds."""

    fmt: str  # e.g. "int8 + bfloat16"
    tpot_ms: tuple[float, float]  # (as loaded, quantised)
    prefill_ms: tuple[float, float]
    weight_bytes: tuple[int, int]
    prompt_len: int


def _recorded_engine(model, tokenizer, config: EngineConfig, calls: list[HeadCall]) -> Engine:
    """An engine whose runner notes each forward's tokens in and logits rows out (this engine only:
    the shared weights are not touched)."""
    engine = Engine(model, tokenizer, config)
    run = engine.runner.run

    def recording_run(batch, capture=None):
        logits = run(batch, capture)
        calls.append(HeadCall(sum(item.num_tokens for item in batch), int(logits.shape[0])))
        return logits

    engine.runner.run = recording_run
    return engine


def measure_run_a(model, tokenizer, s: ClaimSettings, data: ClaimData) -> None:
    """One eager request, timed bare; its memory from a replay of the same tokens with the probe on."""
    config = EngineConfig(attention="eager", probe_memory=True)
    engine = _recorded_engine(model, tokenizer, timed_config(config), data.head_calls)
    ids, params = text_tokens(tokenizer, s.prompt_len), SamplingParams(max_new_tokens=s.new_tokens, ignore_eos=True)
    engine.add_request(ids, params)
    for _ in engine.stream():
        pass
    replay = replay_engine(engine, ids, engine.trace.requests[0].output_token_ids, params, config)
    for _ in replay.stream():
        pass
    copy_memory(engine.trace.steps, replay.trace.steps)
    data.steps, data.finish_reason = engine.trace.steps, engine.trace.requests[0].finish_reason


def measure_worked(model, tokenizer, data: ClaimData) -> None:
    engine = Engine(model, tokenizer, EngineConfig(probe_memory=False))
    seq = engine.add_request(WORKED_PROMPT, SamplingParams(max_new_tokens=3, ignore_eos=True))
    data.worked_tokens = len(seq.prompt_token_ids)
    for _ in engine.stream():
        pass
    data.worked_steps, data.worked_text = engine.trace.steps, engine.trace.requests[0].text


def measure_hol(model, tokenizer, s: ClaimSettings, data: ClaimData, chat_steps: int = 3) -> None:
    """A few chats decoding when one long prompt arrives, without and with chunked prefill. The long
    prompt joins after the chats' first `chat_steps` steps (not at a wall-clock time), so it lands in
    the middle of their decoding on a fast machine and a slow one alike."""
    chats = [(text_tokens(tokenizer, 32 + 4 * i, offset=i), f"chat {i + 1}") for i in range(s.hol_streams)]
    long_ids = text_tokens(tokenizer, s.hol_long_prompt)
    max_len = max(s.hol_long_prompt + 16, max(len(ids) for ids, _ in chats) + s.hol_stream_output)
    for chunked in (False, True):
        config = EngineConfig(
            probe_memory=False,
            chunked_prefill=chunked,
            max_model_len=max_len,
            max_num_batched_tokens=s.hol_chunk if chunked else max(8192, max_len),
        )
        engine = Engine(model, tokenizer, config)
        labels = {
            engine.add_request(ids, SamplingParams(max_new_tokens=s.hol_stream_output, ignore_eos=True)).seq_id: label
            for ids, label in chats
        }
        for _ in range(chat_steps):
            engine.step()
        labels[engine.add_request(long_ids, SamplingParams(max_new_tokens=16, ignore_eos=True)).seq_id] = "long prompt"
        for _ in engine.stream():
            pass
        data.hol[chunked] = (engine.trace, labels)


def measure_precision(model, quantized, tokenizer, s: ClaimSettings, repeats: int = 2) -> PrecisionTiming:
    """Decode (a short prompt, batch 1) and prefill (a long prompt) of both models, interleaved."""
    short, long = text_tokens(tokenizer, s.cache_prompt_len), text_tokens(tokenizer, s.hol_long_prompt)
    for m in (model, quantized):
        timed_request(m, tokenizer, short, 2)  # warm-up: a fresh format's first step pays for its kernels' set-up
    tpot: dict[int, list[float]] = {0: [], 1: []}
    prefill: dict[int, list[float]] = {0: [], 1: []}
    for _ in range(repeats):
        for i, m in enumerate((model, quantized)):
            tpot[i].append(timed_request(m, tokenizer, short, s.cache_new_tokens)[1])
            prefill[i].append(timed_request(m, tokenizer, long, 1)[0])
    fmt = f"{quantized.weight_format} + {dtype_name(quantized.dtype)}"
    return PrecisionTiming(
        fmt,
        (statistics.median(tpot[0]), statistics.median(tpot[1])),
        (statistics.median(prefill[0]), statistics.median(prefill[1])),
        (model.weight_bytes, quantized.weight_bytes),
        len(long),
    )


def measure_all(
    model,
    tokenizer,
    s: ClaimSettings,
    name: str = "model",
    hf_model=None,
    ceilings: MachineRoofs | None = None,
    progress: Callable[[ClaimsProgress], None] | None = None,
    quantized=None,
    clock: Callable[[], float] = time.perf_counter,
) -> ClaimData:
    """Every run the checks need, in order; progress(ClaimsProgress) before each part, and within the
    sweep after each of its requests. `quantized`: the same model with int8 weights (engine/layers/quant.py),
    for C19's measured verdict."""
    s.validate(model.config.max_position)
    data = ClaimData(name, model.config, torch.empty((), dtype=model.dtype).element_size(), s)
    prompts = [
        f"Request {i + 1}: write one sentence about {LEAK_TOPICS[i % len(LEAK_TOPICS)]}."
        for i in range(s.leak_requests)
    ]

    def sweep_progress(done: int, total: int, _what: str) -> None:
        if progress and done:  # done = 0: the sweep's warm-up
            progress(pace.at(sweep_part, done / total))

    parts: list[tuple[str, Callable[[], None]]] = [
        (
            "ceilings",
            lambda: setattr(
                data, "ceilings", ceilings or MachineRoofs.measure(model.device.type, dtype_name(model.dtype))
            ),
        ),
        ("run A", lambda: measure_run_a(model, tokenizer, s, data)),
        ("scores", lambda: setattr(data, "scores", measure_prefill_memory(model, tokenizer, s.scores_len, "eager"))),
        ("worked", lambda: measure_worked(model, tokenizer, data)),
        ("sweep", lambda: setattr(data, "sweep", run_sweep(model, tokenizer, s.sweep, name, progress=sweep_progress))),
        (
            "cache",
            lambda: setattr(
                data,
                "cache_runs",
                run_with_and_without_cache(
                    model, tokenizer, text_tokens(tokenizer, s.cache_prompt_len), s.cache_new_tokens
                ),
            ),
        ),
        ("hol", lambda: measure_hol(model, tokenizer, s, data)),
    ]
    if hf_model is not None:
        parts.append(
            (
                "leak",
                lambda: (
                    setattr(data, "leak_naive", naive_hf_loop(hf_model, tokenizer, prompts, s.leak_new_tokens, False)),
                    setattr(data, "leak_engine", engine_loop(model, tokenizer, prompts, s.leak_new_tokens, False)),
                ),
            )
        )
    if quantized is not None:
        parts.append(
            ("precision", lambda: setattr(data, "precision", measure_precision(model, quantized, tokenizer, s)))
        )
    sweep_part = [what for what, _ in parts].index("sweep")
    pace = ClaimsPace([what for what, _ in parts], s, clock)
    for i, (_, fn) in enumerate(parts):
        if progress:
            progress(pace.at(i))
        fn()
    if progress:
        progress(pace.at(len(parts)))
    return data
