"""Checks of the claims about hardware (C3, C7, C11, C19, C20): arithmetic intensity of measured
steps (the engine's count of FLOPs / bytes, engine/observe/costmodel.py) against this machine's
balance point (measured GEMM rate / read bandwidth, lab/hardware.py), the share of each ceiling the
steps reached (timed: an interval over the steps, beside the count), and the memory predictor. GPU
utilisation, power and temperature cannot be read on a CPU: the verdicts say so and check what can be
checked."""

from __future__ import annotations

from dataclasses import dataclass

import torch

from engine.config import ModelConfig
from engine.layers.kv_cache import kv_bytes_per_token
from engine.observe.costmodel import SeqWork, step_cost
from lab.memory_lab import GPU_SIZES_GB, predict_fit, score_bytes
from lab.pairing import GREATER, LESS, RatioInterval, compare
from lab.verdicts import (
    FAILS,
    HOLDS,
    NOT_SEPARABLE,
    ROUGHLY,
    UNMEASURABLE,
    Verdict,
    combined,
    loads_of,
    named,
    tiered,
    value_interval,
)


@dataclass
class PhaseUse:
    """A phase's timed steps against the machine: their intensity (FLOP/B) by the engine's count, and
    the share of each ceiling each step reached, as intervals over the steps (lab/verdicts.value_interval)."""

    intensity: float
    compute: RatioInterval  # achieved FLOP/s / GEMM FLOP/s
    bandwidth: RatioInterval  # achieved bytes/s / read bandwidth

    @classmethod
    def of(
        cls,
        flops: list[float],
        bytes_moved: list[float],
        ms: list[float],
        gemm_gflops: float,
        read_gbs: float,
        load=None,
    ) -> PhaseUse:
        secs = [max(m, 1e-6) / 1e3 for m in ms]
        return cls(
            sum(flops) / sum(bytes_moved),
            value_interval([f / s / 1e9 / gemm_gflops for f, s in zip(flops, secs)], load),
            value_interval([b / s / 1e9 / read_gbs for b, s in zip(bytes_moved, secs)], load),
        )


def percent(r: RatioInterval, name: str) -> dict[str, float | int]:
    """A share's interval as percentages under one name (lab/verdicts.named)."""
    return {k: v if k.endswith("_n") else 100 * v for k, v in named(r, name).items()}


def _shares(use: PhaseUse) -> dict[str, float | int]:
    return percent(use.compute, "compute") | percent(use.bandwidth, "bandwidth")


def c3_check(prefill: PhaseUse, balance: float, prompt_len: int) -> Verdict:
    """Prefill compute-bound, by the count: its intensity above the machine's balance point. Beside it,
    timed: the share of the GEMM rate its steps reached (GPU utilisation cannot be read on a CPU)."""
    nums = dict(i=prefill.intensity, balance=balance, L=prompt_len) | _shares(prefill)
    word = HOLDS if prefill.intensity > balance else FAILS
    return Verdict(
        "C3", word, f"why_c3_{'holds' if word == HOLDS else 'fails'}", nums, prefill.compute, prefill.compute.load
    )


def c7_check(decode: PhaseUse, balance: float) -> Verdict:
    """Decode bandwidth-bound, by the count: its intensity below the balance point. Beside it, timed:
    the share of the read bandwidth and of the GEMM rate its steps reached."""
    nums = dict(i=decode.intensity, balance=balance) | _shares(decode)
    word = HOLDS if decode.intensity < balance else FAILS
    return Verdict(
        "C7", word, f"why_c7_{'holds' if word == HOLDS else 'fails'}", nums, decode.bandwidth, decode.bandwidth.load
    )


def c11_check(proxy: RatioInterval, decode_intensity: float, balance: float, bandwidth: RatioInterval) -> Verdict:
    """Power and temperature are not measurable here; what is: prefill keeps the compute units far
    busier than decode (its share of the GEMM rate ÷ decode's, per request, 3x or more: timed, paired
    within each request), and decode leans on bandwidth instead (its intensity below the balance point,
    which is the same as its bandwidth share exceeding its compute share: counted)."""
    nums = named(proxy, "ratio") | percent(bandwidth, "bw") | dict(i=decode_intensity, balance=balance)
    side = compare(proxy, 3.0)
    if decode_intensity >= balance or side == LESS:
        return Verdict("C11", FAILS, "why_c11_fails", nums, proxy, loads_of(proxy, bandwidth))
    if side == GREATER:
        return Verdict("C11", UNMEASURABLE, "why_c11_proxy_agrees", nums, proxy, loads_of(proxy, bandwidth))
    return Verdict("C11", NOT_SEPARABLE, "why_c11_not_separable", nums, proxy, loads_of(proxy, bandwidth))


def _lever(precision) -> str:
    """The int8 lever, timed: HOLDS where decode's speed-up interval lies above 1.25x and above
    prefill's, ROUGHLY where it lies wholly below 1.25x or wholly below prefill's, else NOT_SEPARABLE."""
    dec, pre = precision.decode, precision.prefill
    if not (dec.judgeable and pre.judgeable):
        return NOT_SEPARABLE
    speed = tiered(dec, 1.25, 1.25)
    gap = HOLDS if dec.low > pre.high else FAILS if dec.high < pre.low else NOT_SEPARABLE
    if FAILS in (speed, gap):
        return ROUGHLY
    return combined(speed, gap)


def c19_check(
    decode_share: RatioInterval,
    c: ModelConfig,
    context: int,
    elem_bytes: int,
    decode_intensity: float,
    balance: float,
    precision=None,
) -> Verdict:
    """Decode is most of the time (timed: its share of a long request, ≥ 80 % holds, ≥ 50 % the premise
    still stands), it is bandwidth-bound (counted: intensity below the balance point, so cutting bytes
    helps it), and the KV techniques act on the KV bytes: their share of a decode step's bytes at this
    context (counted) says how much they can win here. With `precision` (lab/claims_precision.py) the
    quantisation lever is measured: int8 weights must speed decode (≥ 1.25x) and more than prefill."""
    cost = step_cost(c, [SeqWork(1, context)], elem_bytes)
    kv_share = (cost.kv_read_bytes + cost.kv_write_bytes) / cost.bytes_moved
    kv_int8 = kv_bytes_per_token(c, torch.int8) / c.kv_bytes_per_token(elem_bytes)
    nums = percent(decode_share, "share")
    nums |= dict(kv=100 * kv_share, C=context, gqa=c.num_heads / c.num_kv_heads, i=decode_intensity, balance=balance)
    nums["kv8"] = kv_int8
    premise = tiered(decode_share, 0.8, 0.5)
    if decode_intensity >= balance or premise == FAILS:
        return Verdict("C19", FAILS, "why_c19_fails", nums, decode_share, decode_share.load)
    if precision is None:
        word = combined(premise, HOLDS if kv_share >= 0.5 else ROUGHLY)
        key = {HOLDS: "holds", ROUGHLY: "roughly", NOT_SEPARABLE: "not_separable"}[word]
        return Verdict("C19", word, f"why_c19_{key}", nums, decode_share, decode_share.load)
    nums |= named(precision.decode, "dec") | named(precision.prefill, "pre")
    nums |= dict(
        fmt=precision.fmt,
        L=precision.prompt_len,
        wb=precision.weight_bytes[1] / precision.weight_bytes[0],
        tpot0=precision.tpot_ms[0],
        tpot1=precision.tpot_ms[1],
    )
    word = combined(premise, _lever(precision))
    key = {HOLDS: "holds", ROUGHLY: "roughly", NOT_SEPARABLE: "not_separable"}[word]
    load = loads_of(decode_share, precision.decode, precision.prefill)
    return Verdict("C19", word, f"why_c19_measured_{key}", nums, precision.decode, load)


def c20_check(
    c: ModelConfig,
    prompt_len: int = 10_000,
    dtype_bytes: int = 2,
    doc_mb: float = 200.0,
    measured_ratio: float | None = None,
) -> Verdict:
    """The L x L trap: the per-head score bytes at L = 10,000 in fp16 against the document's 200 MB, one
    layer's (all heads at once), and a GPU size where weights + KV fit but the eager prefill does not
    while a fused kernel does. measured_ratio: eager score bytes measured here / formula (C2)."""
    per_head = score_bytes(c, prompt_len, prompt_len, dtype_bytes, per_layer=False)
    per_layer = score_bytes(c, prompt_len, prompt_len, dtype_bytes)
    trap = next(
        (
            gb
            for gb in GPU_SIZES_GB
            if predict_fit(c, prompt_len, dtype_bytes, gb).overflow == "attention scores"
            and predict_fit(c, prompt_len, dtype_bytes, gb, fused=True).fits
        ),
        None,
    )
    nums = dict(
        model=c.name,
        L=prompt_len,
        per_head=per_head / 1e6,
        doc=doc_mb,
        per_layer=per_layer / 1e9,
        heads=c.num_heads,
        gpu=trap or "—",
        measured="—" if measured_ratio is None else f"{measured_ratio:.2f}",
    )
    close = abs(per_head / 1e6 / doc_mb - 1) <= 0.1
    if close and trap:
        return Verdict("C20", HOLDS, "why_c20_holds", nums)
    if trap:
        return Verdict("C20", ROUGHLY, "why_c20_roughly", nums)
    return Verdict("C20", FAILS, "why_c20_fails", nums)
