"""Every claim C1-C24 of the source document checked on measured data (lab/claims_measure.py): each
claim names the parts of the check it needs (NEEDS) and is judged as soon as they are measured
(lab/claims_run.py); check_all() judges them all on a finished ClaimData. The rules live in
claims_shapes.py, claims_hardware.py, claims_scaling.py, claims_serving.py and sweep_verdicts.py, as
pure functions tested both ways."""

from __future__ import annotations

import statistics
from collections.abc import Callable

import numpy as np

from engine.config import PRESETS
from engine.observe.costmodel import attention_flops
from lab.claims_hardware import PhaseUse, c3_check, c7_check, c11_check, c19_check, c20_check
from lab.claims_measure import ClaimData
from lab.claims_scaling import c13_check, c14_check, c15_check, c16_paired_check, uncached_attention_exponent
from lab.claims_serving import (
    blocked_ratio,
    blocking_tokens,
    c17_check,
    c21_check,
    c22_check,
    c24_check,
    long_prompt_steps,
    long_ttft_ms,
    worst_gap_ms,
)
from lab.claims_shapes import c1_check, c2_check, c5_check, c6_check, c10_check, c12_check, c23_check
from lab.complexity import crossover_context, shape_table
from lab.pairing import RatioInterval, ratio_interval
from lab.sweep_verdicts import sweep_verdicts
from lab.verdicts import SHOWN, Verdict, exponent_interval, value_interval

CLAIM_IDS = [f"C{i}" for i in range(1, 25)]
# Claims with a timing among their evidence: beside their numbers stands the load other work put on the
# machine while they were timed (the verdict's own reading, lab/verdicts.Verdict.load).
TIMED_CLAIMS = ("C3", "C4", "C7", "C8", "C9", "C11", "C13", "C14", "C16", "C18", "C19", "C21", "C22", "C24")
# The page that shows each claim in depth (a name of app_pages.PAGES).
CLAIM_PAGES = {
    "C1": "playground",
    "C2": "memory",
    "C3": "roofline",
    "C4": "sweeps",
    "C5": "playground",
    "C6": "playground",
    "C7": "roofline",
    "C8": "sweeps",
    "C9": "sweeps",
    "C10": "playground",
    "C11": "roofline",
    "C12": "complexity",
    "C13": "complexity",
    "C14": "complexity",
    "C15": "complexity",
    "C16": "memory",
    "C17": "serving",
    "C18": "sweeps",
    "C19": "precision",
    "C20": "memory",
    "C21": "serving",
    "C22": "serving",
    "C23": "serving",
    "C24": "serving",
}


def doc_worked_shapes_match() -> bool:
    """The document's LLaMA-7B numbers (5.4), by the same arithmetic the complexity lab shows."""
    rows = shape_table(PRESETS["LLaMA-7B"], 4, 3)
    return (
        rows[0].embedding == [1, 4, 4096]
        and rows[0].scores_per_head == [4, 4]
        and rows[0].kv_cache == [32, 2, 4, 32, 128]
        and rows[0].last_position == [1, 4096]
        and rows[1].embedding == [1, 1, 4096]
        and rows[1].scores_per_head == [1, 5]
        and rows[1].context == 5
    )


# --- what the sweep's rounds give the hardware claims --------------------------------------------------
def _long_prompts(d: ClaimData):
    L1 = max(d.settings.sweep.prompt_lens)
    return [p for p in d.sweep.prompt_points if p.prompt_len == L1]


def prefill_use(d: ClaimData) -> PhaseUse:
    """The longest prompt's prefill steps, one a round: counted work and timed shares of the ceilings."""
    pts, ce = _long_prompts(d), d.ceilings
    return PhaseUse.of(
        [p.prefill_flops for p in pts],
        [p.prefill_bytes for p in pts],
        [p.prefill_ms for p in pts],
        ce.gemm_gflops,
        ce.read_gbs,
        d.sweep.load,
    )


def decode_use(d: ClaimData) -> PhaseUse:
    """Every decode step of the output sweep: counted work and timed shares of the ceilings."""
    pts, ce = d.sweep.output_points, d.ceilings
    flops = [f for p in pts for f in p.decode_flops]
    moved = [b for p in pts for b in p.decode_bytes]
    ms = [m for p in pts for _, m in p.decode_steps]
    return PhaseUse.of(flops, moved, ms, ce.gemm_gflops, ce.read_gbs, d.sweep.load)


def prefill_over_decode(d: ClaimData, rates: bool = False) -> RatioInterval:
    """Per request of the longest prompt: its prefill step's time over its median decode step's (or, with
    `rates`, the prefill's FLOP/s over the decode steps': prefill's share of the GEMM rate over decode's)."""
    values = []
    for p in _long_prompts(d):
        dec = [ms for _, ms in p.decode_steps]
        if rates:
            values.append(
                (p.prefill_flops / p.prefill_ms) / statistics.median(f / m for f, m in zip(p.decode_flops, dec))
            )
        else:
            values.append(p.prefill_ms / statistics.median(dec))
    return value_interval(values, d.sweep.load, d.sweep.retaken)


def decode_share(d: ClaimData) -> RatioInterval:
    """Decode's share of each request's time at the longest output."""
    N1 = max(d.settings.sweep.output_lens)
    shares = [p.decode_share for p in d.sweep.output_points if p.max_new_tokens == N1]
    return value_interval(shares, d.sweep.load, d.sweep.retaken)


# --- the claims, each from the parts it needs -----------------------------------------------------------
def _c2(d: ClaimData) -> Verdict:
    s = d.settings
    Ls = sorted({s.prompt_len, s.scores_len, *s.sweep.prompt_lens})  # counted: any lengths will do
    return c2_check(
        d.steps,
        s.prompt_len,
        s.scores_len,
        d.scores.scores_bytes,
        d.scores.formula_scores,
        Ls,
        [attention_flops(d.config, L, L) for L in Ls],
    )


def _cache(d: ClaimData, claim: str) -> Verdict:
    race, load = d.cache, d.cache.load
    on, off = race.runs[True], race.runs[False]
    total = {kv: list(np.add(r.flops_linear, r.flops_attention)) for kv, r in race.runs.items()}
    ctx = race.contexts[False]
    if claim == "C13":
        slower = ratio_interval(off.step_ms, on.step_ms, 0, load)
        growth = exponent_interval(ctx, [a / b for a, b in zip(off.step_ms, on.step_ms)], load)
        cross = crossover_context(d.config, False)
        return c13_check(ctx, race.fed[False], off.flops_attention, total[False], slower, growth, cross)
    if claim == "C14":
        ctx_on = race.contexts[True]
        growth = exponent_interval(ctx_on, on.step_ms, load)
        return c14_check(ctx_on, race.fed[True], on.flops_attention, total[True], growth, crossover_context(d.config))
    n = np.arange(1, len(off.step_ms) + 1)
    half = len(n) // 2
    measured = exponent_interval(list(n[half:]), list(np.cumsum(off.step_ms)[half:]), load)
    return c15_check(uncached_attention_exponent(d.config, 64), measured, crossover_context(d.config, False), max(ctx))


def _serving(d: ClaimData, claim: str) -> Verdict:
    whole, chunked, load = d.hol.lanes[False], d.hol.lanes[True], d.hol.load
    (a, _), (b, _) = whole, chunked
    if claim == "C17":
        return c17_check(a, max(len(r.prompt_token_ids) + len(r.output_token_ids) for r in a.requests))
    if claim == "C23":
        return c23_check(d.steps, b.steps)
    most = (blocking_tokens(*whole)[0], blocking_tokens(*chunked)[0])
    if claim == "C21":
        tokens, typical = blocking_tokens(*whole)
        prefill = max(s.ms for s in a.steps if s.num_tokens == tokens)
        return c21_check(tokens, typical, d.settings.hol_long_prompt, blocked_ratio(*whole, load), prefill)
    (worst_a, gaps), (worst_b, _) = worst_gap_ms(*whole), worst_gap_ms(*chunked)
    if claim == "C22":
        moved = sum(s.bytes_moved for s in b.steps) / sum(s.bytes_moved for s in a.steps)
        span = [max(r.finish_time for r in t.requests) - min(r.arrival for r in t.requests) for t in (a, b)]
        mixed = sum(s.phase == "mixed" for s in b.steps)
        return c22_check(most, mixed, moved, (worst_a, worst_b), gaps, span[1] / span[0], load)
    steps = (long_prompt_steps(*whole), long_prompt_steps(*chunked))
    ttft = (long_ttft_ms(*whole), long_ttft_ms(*chunked))
    return c24_check(steps, most, ttft, (worst_a, worst_b), load)


def _c19(d: ClaimData) -> Verdict:
    s = d.settings.sweep
    return c19_check(
        decode_share(d),
        d.config,
        s.output_prompt_len + max(s.output_lens),
        d.elem_bytes,
        decode_use(d).intensity,
        d.ceilings.balance,
        d.precision,
    )


def _sweep(claim: str) -> Callable[[ClaimData], Verdict]:
    return lambda d: next(v for v in sweep_verdicts(d.sweep) if v.claim == claim)


JUDGES: dict[str, tuple[tuple[str, ...], Callable[[ClaimData], Verdict]]] = {
    "C1": (("run A",), lambda d: c1_check(d.steps, d.settings.prompt_len, d.config.hidden_size)),
    "C2": (("run A", "scores"), _c2),
    "C3": (
        ("ceilings", "sweep"),
        lambda d: c3_check(prefill_use(d), d.ceilings.balance, max(d.settings.sweep.prompt_lens)),
    ),
    "C4": (("sweep",), _sweep("C4")),
    "C5": (
        ("run A",),
        lambda d: c5_check(d.steps, [(i.tokens_in, i.logits_rows) for i in d.head_calls], d.settings.prompt_len),
    ),
    "C6": (
        ("run A",),
        lambda d: c6_check(
            d.steps,
            [(i.tokens_in, i.logits_rows) for i in d.head_calls],
            d.config.hidden_size,
            d.config.num_heads,
            d.finish_reason,
        ),
    ),
    "C7": (("ceilings", "sweep"), lambda d: c7_check(decode_use(d), d.ceilings.balance)),
    "C8": (("sweep",), _sweep("C8")),
    "C9": (("sweep",), _sweep("C9")),
    "C10": (
        ("run A", "ceilings", "sweep"),
        lambda d: c10_check(d.steps, d.ceilings.balance, prefill_over_decode(d), max(d.settings.sweep.prompt_lens)),
    ),
    "C11": (
        ("ceilings", "sweep"),
        lambda d: c11_check(
            prefill_over_decode(d, rates=True), decode_use(d).intensity, d.ceilings.balance, decode_use(d).bandwidth
        ),
    ),
    "C12": (("worked",), lambda d: c12_check(d.worked_steps, d.worked_tokens, doc_worked_shapes_match(), d.config)),
    "C13": (("cache",), lambda d: _cache(d, "C13")),
    "C14": (("cache",), lambda d: _cache(d, "C14")),
    "C15": (("cache",), lambda d: _cache(d, "C15")),
    "C16": (
        ("leak",),
        lambda d: (
            c16_paired_check(
                [p.cache_bytes for p in d.leak.naive], [p.cache_bytes for p in d.leak.engine], d.leak.slowdown
            )
            if d.leak
            else Verdict("C16", SHOWN, "why_c16_shown")
        ),
    ),
    "C17": (("hol",), lambda d: _serving(d, "C17")),
    "C18": (("sweep",), _sweep("C18")),
    "C19": (("ceilings", "sweep", "precision"), _c19),
    "C20": (("run A", "scores"), lambda d: c20_check(PRESETS["LLaMA-7B"], measured_ratio=_c2(d).numbers["ratio"])),
    "C21": (("hol",), lambda d: _serving(d, "C21")),
    "C22": (("hol",), lambda d: _serving(d, "C22")),
    "C23": (("run A", "hol"), lambda d: _serving(d, "C23")),
    "C24": (("hol",), lambda d: _serving(d, "C24")),
}


def needs(claim: str, parts: list[str]) -> set[str]:
    """The parts a claim waits for, among those this check runs (without a Hugging Face copy there is
    no leak part, and C16 is shown on its page; without an int8 copy C19 argues from the roofline)."""
    return set(JUDGES[claim][0]) & set(parts)


def judge(claim: str, d: ClaimData) -> Verdict:
    return JUDGES[claim][1](d)


def check_all(d: ClaimData) -> dict[str, Verdict]:
    """One verdict per claim, in order C1..C24, on a finished ClaimData."""
    return {c: judge(c, d) for c in CLAIM_IDS}
