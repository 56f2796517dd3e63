"""Calibration: the projection's formulas (lab/projection.py) fed with THIS machine's measured
ceilings (lab/hardware.py, efficiency 1: they are already achievable rates) against the TTFT and
TPOT the engine really shows here, on the loaded model.

  ratio = measured / predicted      (1.0: the model explains the machine; > 1: overheads it omits)

A second prediction adds the third regime the two roofs leave out, overhead: each step's op count
(counted with a TorchDispatchMode, not timed) x the measured cost of one tiny op.

The measured side is timed in rounds, one run per prompt length each, the lengths' order alternating
(lab/pairing.round_order); a round run while other work took the machine is run again, within a budget.
Each ratio is the median of the rounds' measured ÷ predicted with an order-statistics interval and n
(lab/pairing.ratio_interval), the busiest round's load beside it.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from torch.utils._python_dispatch import TorchDispatchMode

from engine.core.llm_engine import Engine, EngineConfig
from engine.errors import LabError
from engine.sampling_params import SamplingParams
from lab.busy import LoadMeter, MachineLoad, busiest
from lab.hardware import DeviceCeilings
from lab.pairing import RatioInterval, ratio_interval, round_order
from lab.projection import predict_tpot, predict_ttft

DTYPE_BYTES = {"float32": 4, "bfloat16": 2, "float16": 2}


@dataclass
class CalibrationRow:
    metric: str  # "TTFT" or "TPOT"
    prompt_len: int
    predicted_ms: float  # the two roofs alone
    measured_ms: float  # the median of the rounds
    overhead_ms: float = 0.0  # + ops in the step x measured per-op overhead
    runs: list[float] = field(default_factory=list)  # every round's measurement (ms)
    retaken: int = 0  # rounds run again because other work took the machine meanwhile
    load: MachineLoad | None = None  # the busiest round's

    @property
    def ratio(self) -> float:
        return self.measured_ms / self.predicted_ms

    @property
    def ratio_with_overhead(self) -> float:
        return self.measured_ms / (self.predicted_ms + self.overhead_ms)

    def interval(self, with_overhead: bool = False) -> RatioInterval:
        """measured ÷ predicted over the rounds: median, interval, n (the busiest load beside it)."""
        runs = self.runs or [self.measured_ms]
        predicted = self.predicted_ms + (self.overhead_ms if with_overhead else 0.0)
        return ratio_interval(runs, [predicted] * len(runs), self.retaken, self.load)


class _OpCounter(TorchDispatchMode):
    """Counts the aten ops a forward dispatches (no timing)."""

    def __init__(self):
        super().__init__()
        self.count = 0

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.count += 1
        return func(*args, **(kwargs or {}))


def ops_per_step(model, tokenizer, prompt_ids: list[int]) -> tuple[int, int]:
    """(ops in the prefill step, ops in one decode step) of a batch-1 request on this engine."""
    engine = Engine(model, tokenizer, EngineConfig(probe_memory=False))
    engine.add_request(list(prompt_ids), SamplingParams(max_new_tokens=2, ignore_eos=True))
    counts = []
    while engine.has_unfinished:
        with _OpCounter() as counter:
            engine.step()
        counts.append(counter.count)
    return counts[0], counts[1]


def predicted_ms(
    c, dtype: str, ceilings: DeviceCeilings, prompt_len: int, new_tokens: int, ops: tuple[int, int] = (0, 0)
) -> tuple[float, float]:
    """(TTFT, TPOT) in ms from the ceilings; TPOT averaged over the decode steps' contexts L+2 .. L+N.
    With `ops` (prefill, decode op counts) each step also pays ops x the measured per-op overhead."""
    peak, bw, nbytes = ceilings.peak_flops(dtype), ceilings.read_bytes_per_s, DTYPE_BYTES[dtype]
    per_op = ceilings.op_overhead_s or 0.0
    ttft = predict_ttft(c, prompt_len, peak, bw, nbytes, 1.0, 1.0).seconds + ops[0] * per_op
    contexts = range(prompt_len + 2, prompt_len + new_tokens + 1)
    tpot = statistics.fmean(predict_tpot(c, 1, ctx, peak, bw, nbytes, None, 1.0, 1.0).seconds for ctx in contexts)
    return ttft * 1e3, (tpot + ops[1] * per_op) * 1e3


def measured_ms(model, tokenizer, prompt_ids: list[int], new_tokens: int) -> tuple[float, float]:
    """(TTFT, TPOT) in ms of one batch-1 greedy request through the engine (vLLM's definitions)."""
    engine = Engine(model, tokenizer, EngineConfig(probe_memory=False))
    engine.add_request(list(prompt_ids), SamplingParams(max_new_tokens=new_tokens, ignore_eos=True))
    for _ in engine.stream():
        pass
    m = engine.trace.requests[0].metrics
    return m.ttft_ms, m.tpot_ms


@dataclass
class MeasuredRounds:
    """Every kept round's (TTFT, TPOT) per prompt length, and how busy the machine was."""

    runs: dict[int, list[tuple[float, float]]]
    loads: list[MachineLoad] = field(default_factory=list)
    retaken: int = 0


def measure_rounds(
    model,
    tokenizer,
    prompts: dict[int, list[int]],
    new_tokens: int,
    repeats: int,
    progress: Callable[[int, int], None] | None = None,
    deadline: float | None = None,
) -> MeasuredRounds:
    """`repeats` rounds of one run per length, in lab.pairing.round_order; a busy round is run again at
    most repeats // 2 times and not past `deadline` (a time.perf_counter() value)."""
    lengths = list(prompts)
    out, done, total = MeasuredRounds({L: [] for L in lengths}), 0, len(lengths) * repeats
    while len(out.loads) < repeats:
        meter, got = LoadMeter().start(), {}
        for L in round_order(lengths, len(out.loads) + out.retaken):
            got[L] = measured_ms(model, tokenizer, prompts[L], new_tokens)
        load = meter.stop()
        in_time = deadline is None or time.perf_counter() < deadline
        if load.busy and out.retaken < repeats // 2 and in_time:
            out.retaken += 1
            continue
        for L in lengths:
            out.runs[L].append(got[L])
        out.loads.append(load)
        done += len(lengths)
        if progress:
            progress(done, total)
    return out


def calibrate(
    model,
    tokenizer,
    ceilings: DeviceCeilings,
    prompts: dict[int, list[int]],
    new_tokens: int = 16,
    repeats: int = 5,
    progress: Callable[[int, int], None] | None = None,
    deadline: float | None = None,
) -> list[CalibrationRow]:
    """Predicted vs measured TTFT and TPOT per prompt length (medians of `repeats` rounds, with them)."""
    if new_tokens < 2:
        raise LabError("TPOT needs at least 2 generated tokens.")
    if repeats < 1:
        raise LabError("Run each length at least once.")
    dtype = str(model.dtype).removeprefix("torch.")
    c = model.config
    measured_ms(model, tokenizer, next(iter(prompts.values()))[:4], 2)  # one-off costs of a fresh process
    got = measure_rounds(model, tokenizer, prompts, new_tokens, repeats, progress, deadline)
    load, rows = busiest(got.loads), []
    for length, ids in prompts.items():
        runs = got.runs[length]
        p_ttft, p_tpot = predicted_ms(c, dtype, ceilings, len(ids), new_tokens)
        o_ttft, o_tpot = predicted_ms(c, dtype, ceilings, len(ids), new_tokens, ops_per_step(model, tokenizer, ids))
        for metric, i, predicted, with_ops in (("TTFT", 0, p_ttft, o_ttft), ("TPOT", 1, p_tpot, o_tpot)):
            values = [r[i] for r in runs]
            rows.append(
                CalibrationRow(
                    metric, length, predicted, statistics.median(values), with_ops - predicted, values,
                    got.retaken, load,
                )
            )  # fmt: skip
    return rows
