"""What the claims check measures and keeps (plain records, no tensors), and its single runs; the
comparisons that race two engines are lab/claims_lanes.py, the leak lab/claims_leak.py, the int8 copy
lab/claims_precision.py, and lab/claims_run.py runs them all in order, judging each claim as soon as
what it needs is measured (lab/claims.py).

  run A        one greedy request, eager attention, timed bare; its memory from a replay with the
               probe on: shapes, KV growth, transient peaks, FLOPs/bytes per step, and what reached
               the LM head (C1, C5, C6, C10, C23)
  worked       「今天天气」 through the engine, 3 new tokens (C12)
  scores       an eager prefill with the memory probe: the score matrix's bytes (C2, C20)
  ceilings     lab/hardware.py (cached): this machine's GEMM rate and read bandwidth (C3, C7, C10, C11, C19)
  sweep        lab/sweeps.py in rounds: a short and a long prompt, a short and a long output (C3, C4,
               C7-C11, C18, C19)
  cache        KV cache on and off, raced step by step (C13-C15)
  hol          chats interrupted by one long prompt, whole and chunked prefill raced step by step
               (C17, C21-C24)
  leak         the naive Hugging Face loop against a fresh cache and the engine (C16), when a Hugging
               Face copy of the model is given
  precision    the model beside its int8 copy, interleaved (C19), when one is given

The default settings are sized for a minute on the bundled model and 2 quiet cores (the work is
counted in decode steps: lab/claims_pace.py); the quick check for seconds. Every timed comparison
runs at least 5 rounds or pairs of steps, the fewest an interval can judge by (lab/pairing.py).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace

from engine.config import ModelConfig
from engine.core.llm_engine import Engine, EngineConfig
from engine.core.memory_pass import copy_memory, replay_engine, timed_config
from engine.errors import LabError
from engine.observe.trace import StepRecord
from engine.sampling_params import SamplingParams
from lab.claims_lanes import CacheRace, HolRace
from lab.claims_leak import LeakRun
from lab.claims_precision import PrecisionTiming
from lab.memory_lab import PrefillMemory
from lab.sweeps import MAX_REPEATS, SweepResult, SweepSettings
from lab.workload import text_tokens

WORKED_PROMPT = "今天天气"
CHAT_STEPS = 3  # the chats' steps before the long prompt joins: it lands mid-decode on any machine


@dataclass(frozen=True)
class ClaimSettings:
    prompt_len: int = 128  # run A
    new_tokens: int = 16
    sweep: SweepSettings = SweepSettings(
        prompt_lens=(32, 256), prompt_new_tokens=8, output_prompt_len=32, output_lens=(8, 64), repeats=5
    )
    cache_prompt_len: int = 16
    cache_new_tokens: int = 40
    hol_streams: int = 5  # five chats: five paired gaps, the fewest an interval judges by
    hol_long_prompt: int = 512
    hol_stream_output: int = 24
    hol_chunk: int = 64
    scores_len: int = 512  # an eager prefill long enough that the score matrix is its peak
    leak_requests: int = 4
    leak_new_tokens: int = 8
    budget_s: float = 60.0  # no busy round is measured again past this many seconds into the check

    @property
    def rounds(self) -> int:
        """Rounds of every run-granularity comparison (the sweep, the int8 copy's prefill)."""
        return self.sweep.repeats

    def with_rounds(self, rounds: int) -> ClaimSettings:
        """The same check with more (or fewer) rounds: narrower intervals for the patient."""
        if not 1 <= rounds <= MAX_REPEATS:
            raise LabError(f"Rounds must be between 1 and {MAX_REPEATS}, got {rounds}.")
        return replace(self, sweep=replace(self.sweep, repeats=rounds))

    @classmethod
    def quick(cls) -> ClaimSettings:
        """Smaller runs, the same five rounds: seconds, with wider intervals."""
        return cls(
            prompt_len=32,
            new_tokens=8,
            sweep=SweepSettings(
                prompt_lens=(16, 128), prompt_new_tokens=4, output_prompt_len=16, output_lens=(4, 24), repeats=5
            ),
            cache_new_tokens=16,
            hol_long_prompt=128,
            hol_stream_output=10,
            hol_chunk=32,
            scores_len=256,
            leak_requests=3,
            leak_new_tokens=6,
            budget_s=20.0,
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
        if self.hol_streams < 2 or self.leak_new_tokens < 2:
            raise LabError("The claim checks need at least two chats and two new tokens per leak request.")
        self.sweep.validate(max_position)


@dataclass
class MachineRoofs:
    """This machine's ceilings for the model's dtype, from lab/hardware.py's cached measurement."""

    gemm_gflops: float
    read_gbs: float
    device_name: str

    @property
    def balance(self) -> float:
        """FLOP per byte where the two ceilings meet: above it a step is compute-bound."""
        return self.gemm_gflops / self.read_gbs

    @classmethod
    def measure(cls, device: str, dtype: str, progress: Callable[[str, float], None] | None = None) -> MachineRoofs:
        from lab.hardware import machine_ceilings  # measured once per machine, then read from its cache

        c = machine_ceilings(device, progress=progress)
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
    cache: CacheRace | None = None
    hol: HolRace | None = None
    leak: LeakRun | None = None
    ceilings: MachineRoofs | None = None
    precision: PrecisionTiming | None = None


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


def measure_run_a(model, tokenizer, s: ClaimSettings, data: ClaimData, within=None) -> None:
    """One eager request, timed bare; its memory from a replay of the same tokens with the probe on.
    within(fraction) after each step of either pass."""
    config = EngineConfig(attention="eager", probe_memory=True)
    engine = _recorded_engine(model, tokenizer, timed_config(config), data.head_calls)
    ids, params = text_tokens(tokenizer, s.prompt_len), SamplingParams(max_new_tokens=s.new_tokens, ignore_eos=True)
    engine.add_request(ids, params)
    for i, _ in enumerate(engine.stream()):
        if within:
            within((i + 1) / (3 * s.new_tokens))  # the replay with the probe costs about twice the timed run
    replay = replay_engine(engine, ids, engine.trace.requests[0].output_token_ids, params, config)
    for i, _ in enumerate(replay.stream()):
        if within:
            within(min(1.0, (s.new_tokens + 2 * (i + 1)) / (3 * s.new_tokens)))
    copy_memory(engine.trace.steps, replay.trace.steps)
    data.steps, data.finish_reason = engine.trace.steps, engine.trace.requests[0].finish_reason


def measure_worked(model, tokenizer, data: ClaimData) -> None:
    engine = Engine(model, tokenizer, EngineConfig(probe_memory=False))
    seq = engine.add_request(WORKED_PROMPT, SamplingParams(max_new_tokens=3, ignore_eos=True))
    data.worked_tokens = len(seq.prompt_token_ids)
    for _ in engine.stream():
        pass
    data.worked_steps, data.worked_text = engine.trace.steps, engine.trace.requests[0].text
