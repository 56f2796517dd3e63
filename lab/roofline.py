"""Measured steps placed on a roofline: run prompts through the real engine at several batch sizes
(continuous batching: B sequences decode together) and keep, per step, the cost model's FLOPs and
bytes beside the measured wall time.

  intensity   = FLOPs / bytes moved                 (engine/observe/costmodel.py, per step)
  achieved    = FLOPs / measured step time          (FLOP/s)
A decode step of B sequences reads the weights once for all B, so its intensity grows ~B-fold and
it climbs the bandwidth slope toward the compute roof; a prefill of L tokens starts far right.

The batch sizes race (lab/interleaved.py): one engine per batch size, a step each in turn, so the i-th
decode step of every batch size runs through the same seconds of the machine and pairs with the others'
(`rate_ratio`: how much faster B sequences compute than one, with its interval and n).
"""

from __future__ import annotations

import statistics
import threading
from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import dataclass

from engine.core.llm_engine import Engine, EngineConfig
from engine.errors import LabError
from engine.sampling_params import SamplingParams
from lab.busy import MachineLoad
from lab.interleaved import Lane, race
from lab.pairing import RatioInterval, ratio_interval

MAX_BATCH = 64


class _Rates:
    """Where a step (or a phase's median step) sits on the roofline; needs flops, bytes_moved, ms."""

    flops: float
    bytes_moved: float
    ms: float

    @property
    def intensity(self) -> float:
        return self.flops / self.bytes_moved

    @property
    def flops_per_s(self) -> float:
        return self.flops / (self.ms / 1e3)

    @property
    def bytes_per_s(self) -> float:
        return self.bytes_moved / (self.ms / 1e3)


@dataclass
class RooflinePoint(_Rates):
    batch: int  # concurrent sequences in the run
    phase: str  # "prefill", "decode" or "mixed"
    step: int
    num_tokens: int
    flops: float
    bytes_moved: float
    ms: float


def _config(batch: int) -> EngineConfig:
    # no memory probe: it runs Python on every op and would be timed with the step
    return EngineConfig(probe_memory=False, max_num_seqs=max(batch, 1), max_num_batched_tokens=1 << 16)


def _engine(model, tokenizer, batch: int) -> Engine:
    return Engine(model, tokenizer, _config(batch))


def run_batch(model, tokenizer, prompt_ids: list[int], batch: int, decode_steps: int) -> list[RooflinePoint]:
    """One run of `batch` copies of the prompt: their prefill, then `decode_steps` steps decoding all of them."""
    engine = _engine(model, tokenizer, batch)
    params = SamplingParams(max_new_tokens=decode_steps + 1, ignore_eos=True)
    for _ in range(batch):
        engine.add_request(list(prompt_ids), params)
    points = []
    for event in engine.stream():
        s = event.step
        points.append(RooflinePoint(batch, s.phase, s.step, s.num_tokens, s.flops, s.bytes_moved, s.ms))
    return points


def check_settings(prompt_len: int, batch_sizes: list[int], decode_steps: int, max_model_len: int) -> None:
    if not batch_sizes:
        raise LabError("Pick at least one batch size.")
    if any(not 1 <= b <= MAX_BATCH for b in batch_sizes):
        raise LabError(f"Batch sizes must be between 1 and {MAX_BATCH}.")
    if decode_steps < 1:
        raise LabError("Run at least one decode step.")
    if prompt_len < 1:
        raise LabError("The prompt must have at least one token.")
    if prompt_len + decode_steps + 1 > max_model_len:
        raise LabError(
            f"{prompt_len} prompt tokens + {decode_steps + 1} generated exceed this model's context "
            f"of {max_model_len} tokens; shorten one of them."
        )


def run_roofline(
    model,
    tokenizer,
    prompt_ids: list[int],
    batch_sizes: list[int],
    decode_steps: int,
    progress: Callable[[int, int], None] | None = None,
    lock: threading.Lock | None = None,
    on_round: Callable[[list[RooflinePoint]], None] | None = None,
) -> tuple[list[RooflinePoint], MachineLoad]:
    """Every step of every batch size's run, raced a step each in turn (smallest batch first in the
    points); progress(steps done, steps in all) after each step; on_round(the points so far) after
    each round of one step per batch size, off every lane's clock. Returns the points and the load
    other processes put on the machine meanwhile."""
    check_settings(len(prompt_ids), batch_sizes, decode_steps, model.config.max_position)
    sizes = sorted(set(batch_sizes))
    with lock or nullcontext():  # new shapes pay one-off costs: not timed
        for batch in sizes:
            run_batch(model, tokenizer, prompt_ids[:4], batch, 1)
    params = SamplingParams(max_new_tokens=decode_steps + 1, ignore_eos=True)
    lanes = {batch: Lane.of(model, tokenizer, _config(batch), f"B={batch}") for batch in sizes}
    for batch, lane in lanes.items():
        for _ in range(batch):
            lane.engine.add_request(list(prompt_ids), params)
    total, done = len(sizes) * (decode_steps + 1), [0]

    def so_far() -> list[RooflinePoint]:
        return [
            RooflinePoint(batch, s.phase, s.step, s.num_tokens, s.flops, s.bytes_moved, s.ms)
            for batch, lane in lanes.items()
            for s in lane.steps
        ]

    def on_step(_name, _event) -> None:
        done[0] += 1
        if progress:
            progress(min(done[0], total), total)
        if on_round and done[0] % len(sizes) == 0:
            on_round(so_far())

    load = race(lanes, on_step, lock)
    return so_far(), load


def rate_ratio(
    points: list[RooflinePoint], batch: int, base: int, phase: str = "decode", load: MachineLoad | None = None
) -> RatioInterval | None:
    """FLOP/s of `batch`'s i-th step of `phase` ÷ `base`'s i-th, as far as both went (the steps raced
    in turn, so each pair saw the same load); None without a pair."""
    mine = [p for p in points if p.batch == batch and p.phase == phase]
    theirs = [p for p in points if p.batch == base and p.phase == phase]
    n = min(len(mine), len(theirs))
    if n == 0:
        return None
    return ratio_interval([p.flops_per_s for p in mine[:n]], [p.flops_per_s for p in theirs[:n]], 0, load)


@dataclass
class PhaseSummary(_Rates):
    phase: str
    batch: int
    num_steps: int
    flops: float  # medians over the phase's steps
    bytes_moved: float
    ms: float


def summarise(points: list[RooflinePoint]) -> list[PhaseSummary]:
    """Median step per (phase, batch), prefill first: the numbers the utilisation table shows."""
    groups: dict[tuple[str, int], list[RooflinePoint]] = {}
    for p in points:
        groups.setdefault((p.phase, p.batch), []).append(p)
    order = {"prefill": 0, "mixed": 1, "decode": 2}
    rows = []
    for (phase, batch), ps in sorted(groups.items(), key=lambda kv: (order.get(kv[0][0], 3), kv[0][1])):
        rows.append(
            PhaseSummary(
                phase,
                batch,
                len(ps),
                statistics.median(p.flops for p in ps),
                statistics.median(p.bytes_moved for p in ps),
                statistics.median(p.ms for p in ps),
            )
        )
    return rows
