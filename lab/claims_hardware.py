"""Checks of the claims about hardware (C3, C7, C11, C19, C20): arithmetic intensity of measured
steps (the cost model's FLOPs / bytes, engine/observe/costmodel.py) against this machine's balance point
(measured GEMM rate / read bandwidth, lab/hardware.py), the share of each ceiling a step reached,
and the memory predictor. GPU utilisation, power and temperature cannot be read on a CPU: the
verdicts say so and check what can be checked."""

from __future__ import annotations

from dataclasses import dataclass

import torch

from engine.config import ModelConfig
from engine.layers.kv_cache import kv_bytes_per_token
from engine.observe.costmodel import SeqWork, step_cost
from engine.observe.trace import StepRecord
from lab.memory_lab import GPU_SIZES_GB, predict_fit, score_bytes
from lab.verdicts import FAILS, HOLDS, ROUGHLY, UNMEASURABLE, Verdict


@dataclass
class StepUse:
    """One step against the machine: intensity (FLOP/B) and the share of each ceiling it reached."""

    intensity: float
    compute_share: float  # achieved FLOP/s / GEMM FLOP/s
    bandwidth_share: float  # achieved bytes/s / read bandwidth

    @classmethod
    def of(cls, step: StepRecord, gemm_gflops: float, read_gbs: float) -> StepUse:
        secs = max(step.ms, 1e-6) / 1e3
        return cls(
            step.flops / step.bytes_moved,
            step.flops / secs / 1e9 / gemm_gflops,
            step.bytes_moved / secs / 1e9 / read_gbs,
        )


def c3_check(prefill: StepUse, balance: float) -> Verdict:
    """Prefill compute-bound: its intensity above the balance point, and a large share of the GEMM rate."""
    nums = dict(
        i=prefill.intensity,
        balance=balance,
        compute=100 * prefill.compute_share,
        bandwidth=100 * prefill.bandwidth_share,
    )
    if prefill.intensity <= balance:
        return Verdict("C3", FAILS, "why_c3_fails", nums)
    return Verdict(
        "C3",
        HOLDS if prefill.compute_share >= 0.5 else ROUGHLY,
        "why_c3_holds" if prefill.compute_share >= 0.5 else "why_c3_roughly",
        nums,
    )


def c7_check(decode: StepUse, balance: float) -> Verdict:
    """Decode bandwidth-bound: intensity below the balance point; bandwidth the busier ceiling."""
    nums = dict(
        i=decode.intensity, balance=balance, compute=100 * decode.compute_share, bandwidth=100 * decode.bandwidth_share
    )
    if decode.intensity >= balance:
        return Verdict("C7", FAILS, "why_c7_fails", nums)
    busy = decode.bandwidth_share >= 0.3 and decode.bandwidth_share > decode.compute_share
    return Verdict("C7", HOLDS if busy else ROUGHLY, "why_c7_holds" if busy else "why_c7_roughly", nums)


def c11_check(prefill: StepUse, decode: StepUse) -> Verdict:
    """Power and temperature are not measurable here; what is: prefill keeps the compute units far
    busier than decode (3x the share or more), decode leans on bandwidth instead."""
    ratio = prefill.compute_share / decode.compute_share if decode.compute_share else float("inf")
    nums = dict(
        pre=100 * prefill.compute_share, dec=100 * decode.compute_share, ratio=ratio, bw=100 * decode.bandwidth_share
    )
    if ratio >= 3 and decode.bandwidth_share > decode.compute_share:
        return Verdict("C11", UNMEASURABLE, "why_c11_proxy_agrees", nums)
    return Verdict("C11", FAILS, "why_c11_fails", nums)


def c19_check(
    decode_share: float, c: ModelConfig, context: int, elem_bytes: int, decode: StepUse, balance: float, precision=None
) -> Verdict:
    """Decode is most of the time (so speeding it matters most), it is bandwidth-bound (so cutting bytes
    helps it), and the KV techniques act on the KV bytes: their share of a decode step's bytes at this
    context says how much they can win here. With `precision` (lab/claims_measure.PrecisionTiming)
    the quantisation lever is measured: int8 weights must speed decode (>= 1.25x) and more than they
    speed prefill."""
    cost = step_cost(c, [SeqWork(1, context)], elem_bytes)
    kv_share = (cost.kv_read_bytes + cost.kv_write_bytes) / cost.bytes_moved
    kv_int8 = kv_bytes_per_token(c, torch.int8) / c.kv_bytes_per_token(elem_bytes)
    nums = dict(
        share=100 * decode_share,
        kv=100 * kv_share,
        C=context,
        gqa=c.num_heads / c.num_kv_heads,
        i=decode.intensity,
        balance=balance,
        kv8=kv_int8,
    )
    if decode_share < 0.5 or decode.intensity >= balance:
        return Verdict("C19", FAILS, "why_c19_fails", nums)
    if precision is not None:
        dec = precision.tpot_ms[0] / precision.tpot_ms[1]
        pre = precision.prefill_ms[0] / precision.prefill_ms[1]
        nums |= dict(
            fmt=precision.fmt,
            dec=dec,
            pre=pre,
            L=precision.prompt_len,
            wb=precision.weight_bytes[1] / precision.weight_bytes[0],
            tpot0=precision.tpot_ms[0],
            tpot1=precision.tpot_ms[1],
        )
        ok = decode_share >= 0.8 and dec >= 1.25 and dec > pre
        return Verdict(
            "C19", HOLDS if ok else ROUGHLY, "why_c19_measured_holds" if ok else "why_c19_measured_roughly", nums
        )
    if decode_share >= 0.8 and kv_share >= 0.5:
        return Verdict("C19", HOLDS, "why_c19_holds", nums)
    return Verdict("C19", ROUGHLY, "why_c19_roughly", nums)


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
