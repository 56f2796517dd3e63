"""C19's measurement: the model beside a quantised copy (engine/layers/quant.py), interleaved.

Decode: one request on each model, raced step by step (lab/interleaved.py): decode step i of one pairs
with decode step i of the other, and the speed-up is the median of those paired ratios with its
interval. Prefill has one step a request, so it pairs at run granularity: rounds of one prefill on
each model, in alternating order (lab/pairing.interleave), busy rounds measured again.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable
from dataclasses import dataclass

from engine.config import dtype_name
from engine.core.llm_engine import EngineConfig
from engine.sampling_params import SamplingParams
from lab.interleaved import Lane, race, step_ratio
from lab.pairing import RatioInterval, interleave
from lab.precision_formats import timed_request
from lab.sweeps import PREFILL_TOKENS_PER_DECODE_STEP as P
from lab.workload import text_tokens

QUANTISED_STEP_COST = 0.7  # an int8 decode step beside a float32 one, about (fewer bytes to read)


@dataclass
class PrecisionTiming:
    """The model beside a quantised copy: speed-ups (as loaded ÷ quantised, paired) and what each holds."""

    fmt: str  # e.g. "int8 + bfloat16"
    decode: RatioInterval  # decode step time, as loaded ÷ quantised, step by step
    prefill: RatioInterval  # prefill time, as loaded ÷ quantised, round by round
    tpot_ms: tuple[float, float]  # medians of the decode steps (as loaded, quantised)
    weight_bytes: tuple[int, int]
    prompt_len: int


def precision_work(decode_prompt: int, new_tokens: int, prefill_len: int, rounds: int) -> float:
    """Its work in decode steps: warm-ups, the raced decode, the prefill rounds (both models)."""
    per_model = 2 + decode_prompt / P + new_tokens + rounds * (1 + prefill_len / P)
    return per_model * (1 + QUANTISED_STEP_COST)


def measure_precision(
    model,
    quantized,
    tokenizer,
    decode_ids: list[int],
    new_tokens: int,
    prefill_len: int,
    rounds: int,
    deadline: float | None = None,
    within: Callable[[float], None] | None = None,
) -> PrecisionTiming:
    """Decode (a short prompt, batch 1) raced step by step, prefill (prefill_len tokens) in rounds."""
    for m in (model, quantized):
        timed_request(m, tokenizer, decode_ids, 2)  # warm-up: a fresh format's first step pays for its set-up
    lanes = {
        name: Lane.of(m, tokenizer, EngineConfig(probe_memory=False), name)
        for name, m in (("loaded", model), ("quantised", quantized))
    }
    for lane in lanes.values():
        lane.engine.add_request(decode_ids, SamplingParams(max_new_tokens=new_tokens, ignore_eos=True))
    steps = [0]

    def on_step(_name, _event) -> None:
        steps[0] += 1
        if within:
            within(0.5 * steps[0] / (2 * new_tokens))

    load = race(lanes, on_step=on_step)
    decode = step_ratio(lanes["loaded"], lanes["quantised"], "decode", load)
    long = text_tokens(tokenizer, prefill_len)
    arms = {
        name: (lambda m=m: timed_request(m, tokenizer, long, 1)[0]) for name, m in (("loaded", model), ("q", quantized))
    }
    prefill = interleave(
        arms, rounds, deadline=deadline, on_round=lambda done, total: within and within(0.5 + 0.5 * done / total)
    ).ratio("loaded", "q")
    return PrecisionTiming(
        f"{quantized.weight_format} + {dtype_name(quantized.dtype)}",
        decode,
        prefill,
        (
            statistics.median(lanes["loaded"].phase_ms("decode")),
            statistics.median(lanes["quantised"].phase_ms("decode")),
        ),
        (model.weight_bytes, quantized.weight_bytes),
        len(long),
    )
