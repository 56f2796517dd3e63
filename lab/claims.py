"""Every claim C1-C24 of the source document checked on measured data (lab/claims_measure.py):
check_all() turns one ClaimData into one Verdict per claim. The rules live in claims_shapes.py,
claims_hardware.py, claims_scaling.py and sweep_verdicts.py, as pure functions tested both ways."""

from __future__ import annotations

import numpy as np

from engine.config import PRESETS
from engine.observe.costmodel import attention_flops
from engine.observe.request_metrics import percentiles
from lab.claims_hardware import StepUse, c3_check, c7_check, c11_check, c19_check, c20_check
from lab.claims_measure import ClaimData
from lab.claims_scaling import (
    c13_check,
    c14_check,
    c15_check,
    c16_check,
    c17_check,
    c21_check,
    c22_check,
    c24_check,
    chat_gaps,
    schedule_outcome,
    uncached_attention_exponent,
)
from lab.claims_shapes import c1_check, c2_check, c5_check, c6_check, c10_check, c12_check, c23_check
from lab.complexity import crossover_context, shape_table
from lab.sweep_verdicts import sweep_verdicts
from lab.verdicts import SHOWN, Verdict, log_slope

CLAIM_IDS = [f"C{i}" for i in range(1, 25)]
# Claims whose verdict rests on measured times (shares of a ceiling, exponents, ratios, gaps): on a busy
# machine these become "unreliable" (lab/verdicts.unreliable_when_busy). Shapes, bytes and counts do not,
# nor C15 (judged on the counted exponent). C11's proxy is a ratio of timed shares; C16's leak is bytes,
# but whether it slows each token is a timing (its busy text keeps the bytes).
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


def _hardware(d: ClaimData) -> tuple[StepUse, StepUse, float]:
    ce = d.ceilings
    pre = next(s for s in d.steps if s.phase == "prefill")
    dec = [s for s in d.steps if s.phase == "decode"]
    dec_mid = sorted(dec, key=lambda s: s.ms)[len(dec) // 2]  # the median step: one slow step is noise
    return (
        StepUse.of(pre, ce.gemm_gflops, ce.read_gbs),
        StepUse.of(dec_mid, ce.gemm_gflops, ce.read_gbs),
        ce.gemm_gflops / ce.read_gbs,
    )


def _cache_checks(d: ClaimData) -> list[Verdict]:
    on, off = d.cache_runs[True], d.cache_runs[False]
    L = d.settings.cache_prompt_len
    contexts = [L + 1 + i for i in range(len(on.step_ms))]
    cross_off, cross_on = crossover_context(d.config, False), crossover_context(d.config, True)
    n = np.arange(1, len(off.step_ms) + 1)
    half = len(n) // 2
    measured_total = log_slope(list(n[half:]), list(np.cumsum(off.step_ms)[half:]))
    return [
        c13_check(contexts, off.step_ms, off.flops_attention, sum(on.step_ms), sum(off.step_ms), cross_off),
        c14_check(contexts, on.step_ms, on.flops_attention, cross_on),
        c15_check(uncached_attention_exponent(d.config, 64), measured_total, cross_off, max(contexts)),
    ]


def _serving_checks(d: ClaimData) -> list[Verdict]:
    (plain, labels_a), (chunked, labels_b) = d.hol[False], d.hol[True]
    long_id = next(k for k, v in labels_a.items() if v == "long prompt")
    long_prefill = max(
        (s.ms for s in plain.steps if any(q.seq_id == long_id and q.phase == "prefill" for q in s.seqs)), default=0.0
    )
    gaps_a, gaps_b = chat_gaps(plain, labels_a), chat_gaps(chunked, labels_b)

    def throughput(trace) -> float:
        start = min(r.arrival for r in trace.requests)
        end = max(r.finish_time for r in trace.requests)
        return sum(len(r.output_token_ids) for r in trace.requests) / (end - start)

    max_len = max(len(r.prompt_token_ids) + len(r.output_token_ids) for r in plain.requests)
    decode_gap = float(np.median(gaps_a))  # the chats' pace: most of their steps run no prefill
    whole = schedule_outcome(plain, labels_a, 3 * decode_gap)
    chunks = schedule_outcome(chunked, labels_b, 3 * decode_gap)
    return [
        c17_check(plain, max_len),
        c21_check(gaps_a, long_prefill),
        c22_check(
            percentiles(gaps_a)["p99"],
            percentiles(gaps_b)["p99"],
            throughput(plain),
            throughput(chunked),
            sum(s.phase == "mixed" for s in chunked.steps),
            min(len(gaps_a), len(gaps_b)),
        ),
        c24_check(whole, chunks, decode_gap, long_prefill),
    ]


def check_all(d: ClaimData) -> dict[str, Verdict]:
    """One verdict per claim, in order C1..C24."""
    c, s = d.config, d.settings
    rows = [(i.tokens_in, i.logits_rows) for i in d.head_calls]
    pre_use, dec_use, balance = _hardware(d)
    sweep = {v.claim: v for v in sweep_verdicts(d.sweep)}
    Ls = sorted(set(p.prompt_len for p in d.sweep.prompt_points))
    c2 = c2_check(
        d.steps,
        s.prompt_len,
        s.scores_len,
        d.scores.scores_bytes,
        d.scores.formula_scores,
        Ls,
        [attention_flops(c, L, L) for L in Ls],
    )
    last_ctx = max(q.context_len for st in d.steps for q in st.seqs)
    share = d.sweep.by_output("decode_share")
    verdicts = [
        c1_check(d.steps, s.prompt_len, c.hidden_size),
        c2,
        c3_check(pre_use, balance),
        sweep["C4"],
        c5_check(d.steps, rows, s.prompt_len),
        c6_check(d.steps, rows, c.hidden_size, c.num_heads, d.finish_reason),
        c7_check(dec_use, balance),
        sweep["C8"],
        sweep["C9"],
        c10_check(d.steps, balance),
        c11_check(pre_use, dec_use),
        c12_check(d.worked_steps, d.worked_tokens, doc_worked_shapes_match(), c),
        *_cache_checks(d),
        (
            c16_check(
                [p.cache_bytes for p in d.leak_naive],
                [p.ms_per_token for p in d.leak_naive],
                [p.cache_bytes for p in d.leak_engine],
            )
            if d.leak_naive
            else Verdict("C16", SHOWN, "why_c16_shown")
        ),
        sweep["C18"],
        c19_check(share[max(share)].median, c, last_ctx, d.elem_bytes, dec_use, balance, d.precision),
        c20_check(PRESETS["LLaMA-7B"], measured_ratio=c2.numbers["ratio"]),
    ]
    serving = _serving_checks(d)
    verdicts[16:16] = serving[:1]  # C17 before C18
    verdicts += serving[1:3] + [c23_check(d.steps, d.hol[True][0].steps), serving[3]]
    out = {v.claim: v for v in verdicts}
    assert list(out) == CLAIM_IDS, list(out)
    return out
