"""Every claim check (lab/claims*.py) tested both ways: "holds" on real engine data where the claim
holds, and not "holds" on a hand-made trace or measurement where it fails; and every verdict's
explanation fills in, in both languages."""

from __future__ import annotations

from pathlib import Path

import pytest

from app_pages import page_file
from engine import load_model
from engine.config import PRESETS
from engine.observe.trace import LayerShapes, SeqStep, StepRecord
from lab.claims import CLAIM_IDS, CLAIM_PAGES, check_all, doc_worked_shapes_match
from lab.claims_hardware import StepUse, c3_check, c7_check, c11_check, c19_check, c20_check
from lab.claims_measure import ClaimData, ClaimSettings, PrecisionTiming, measure_all, measure_precision, measure_run_a
from lab.claims_scaling import (
    ScheduleOutcome,
    c13_check,
    c14_check,
    c15_check,
    c16_check,
    c21_check,
    c22_check,
    c24_check,
    uncached_attention_exponent,
)
from lab.claims_shapes import c1_check, c2_check, c5_check, c6_check, c10_check, c12_check, c23_check
from lab.sweeps import sweep_plan
from lab.verdicts import FAILS, HOLDS, ROUGHLY, UNMEASURABLE, VERDICTS, explain
from tests.text_support import all_tables

LLAMA = PRESETS["LLaMA-7B"]


def step(
    c,
    phase: str,
    T: int,
    C: int,
    ms: float = 10.0,
    kv: int | None = None,
    flops: float = 1e9,
    bytes_moved: float = 1e8,
    peak: int = 1000,
    seq_id: int = 0,
) -> StepRecord:
    """A hand-made step record of one sequence feeding T tokens with C in its cache after the step."""
    seq = SeqStep(seq_id, phase, T, C, False, LayerShapes.for_step(c, T, C))
    return StepRecord(
        step=0,
        start=0.0,
        ms=ms,
        seqs=[seq],
        kv_tokens=C if kv is None else kv,
        kv_bytes=0,
        kv_blocks=0,
        kv_reserved_bytes=0,
        kv_wasted_slots=0,
        kv_free_blocks=0,
        flops=flops,
        flops_linear=flops,
        flops_attention=0.0,
        bytes_moved=bytes_moved,
        peak_bytes=peak,
    )


def request(c, L: int, N: int) -> list[StepRecord]:
    return [step(c, "prefill", L, L, ms=100, flops=1e12, peak=10**8)] + [
        step(c, "decode", 1, L + t, ms=10, flops=1e10, peak=10**6) for t in range(1, N)
    ]


# --- real data ---------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def tiny_run(tiny) -> tuple[ClaimData, list]:
    reports = []
    data = measure_all(
        tiny.model, tiny.tokenizer, ClaimSettings.quick(), "tiny", hf_model=None, progress=reports.append
    )
    return data, reports


@pytest.fixture(scope="module")
def tiny_data(tiny_run) -> ClaimData:
    return tiny_run[0]


def test_the_checks_report_each_part_and_the_sweep_request_by_request(tiny_run):
    reports = tiny_run[1]
    parts = ["ceilings", "run A", "scores", "worked", "sweep", "cache", "hol", "done"]
    assert [r.what for r in reports if r.within == 0] == parts
    fractions = [r.fraction for r in reports]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0
    sweep = [r for r in reports if r.what == "sweep" and r.within > 0]
    assert len(sweep) == len(sweep_plan(ClaimSettings.quick().sweep))  # the bar moves during the longest part
    assert all(r.seconds_left is None for r in reports[:2])  # no pace before a part after the first is timed
    assert all(r.seconds_left is not None for r in reports[2:-1]) and reports[-1].seconds_left is None


@pytest.fixture(scope="module")
def bundled_run_a(bundled) -> ClaimData:
    s = ClaimSettings(prompt_len=128, new_tokens=8)
    data = ClaimData("bundled", bundled.model.config, 4, s)
    measure_run_a(bundled.model, bundled.tokenizer, s, data)
    return data


def test_all_claims_get_a_verdict_and_an_explanation(tiny_data):
    verdicts = check_all(tiny_data)
    assert list(verdicts) == CLAIM_IDS and set(CLAIM_PAGES) == set(CLAIM_IDS)
    root = Path(__file__).resolve().parent.parent
    assert all((root / page_file(page)).exists() for page in CLAIM_PAGES.values())  # every link leads somewhere
    for v in verdicts.values():
        assert v.verdict in VERDICTS
        for lang in ("en", "zh"):
            assert explain(v, lang).strip()
    # exact on any model: shapes, what reaches the LM head, KV growth, the worked example's count
    for claim in ("C1", "C2", "C5", "C6", "C17", "C20", "C23"):
        assert verdicts[claim].verdict == HOLDS, (claim, verdicts[claim])
    assert verdicts["C12"].verdict == ROUGHLY and verdicts["C12"].numbers["n"] == 9  # not 4 tokens
    assert verdicts["C15"].verdict == FAILS  # the source's O(N²) contradicts its own O(N³)
    assert verdicts["C16"].reason == "why_c16_shown"  # no Hugging Face copy given


def test_shape_claims_on_the_bundled_model(bundled_run_a):
    d, c = bundled_run_a, bundled_run_a.config
    rows = [(h.tokens_in, h.logits_rows) for h in d.head_calls]
    assert rows[0] == (128, 1) and set(rows[1:]) == {(1, 1)}
    assert c1_check(d.steps, 128, c.hidden_size).verdict == HOLDS
    assert c5_check(d.steps, rows, 128).verdict == HOLDS
    assert c6_check(d.steps, rows, c.hidden_size, c.num_heads, d.finish_reason).verdict == HOLDS
    v = c10_check(d.steps, balance=10.0)  # a CPU's balance point: prefill 50+ FLOP/B, decode < 1
    assert v.verdict == HOLDS, v.numbers
    pre = StepUse.of(d.steps[0], 100.0, 10.0)
    dec = StepUse.of(d.steps[4], 100.0, 10.0)
    assert pre.intensity > 30 > 1 > dec.intensity
    assert c3_check(pre, 10.0).verdict in (HOLDS, ROUGHLY) and c7_check(dec, 10.0).verdict in (HOLDS, ROUGHLY)


# --- synthetic traces where the claim fails ------------------------------------------------------
def test_c1_c5_c6_fail_on_made_up_traces():
    c = LLAMA
    chunked = [step(c, "prefill", 4, 4), step(c, "prefill", 4, 8)] + request(c, 8, 3)[1:]
    assert c1_check(chunked, 8, c.hidden_size).verdict == FAILS
    assert c1_check(request(c, 8, 3), 8, c.hidden_size).verdict == HOLDS
    all_rows = [(8, 8), (1, 1), (1, 1)]  # the LM head ran on every prompt position
    assert c5_check(request(c, 8, 3), all_rows, 8).verdict == FAILS
    assert c5_check(request(c, 8, 3), [(8, 1), (1, 1), (1, 1)], 8).verdict == HOLDS
    rows = [(8, 1), (1, 1), (1, 1)]
    assert c6_check(request(c, 8, 3), rows, c.hidden_size, c.num_heads, "length").verdict == HOLDS
    recompute = request(c, 8, 1) + [step(c, "decode", 9, 9), step(c, "decode", 10, 10)]  # no KV cache
    assert c6_check(recompute, rows, c.hidden_size, c.num_heads, "length").verdict == FAILS


def test_c2_both_ways():
    Ls = [32, 128, 512]
    quadratic = [L * (L + 1) / 2 for L in Ls]
    ok = c2_check(request(LLAMA, 8, 2), 8, 512, 32 * 512 * 512 * 4, 32 * 512 * 512 * 4, Ls, quadratic)
    assert ok.verdict == HOLDS
    assert c2_check(request(LLAMA, 8, 2), 8, 512, 0, 32 * 512 * 512 * 4, Ls, quadratic).verdict == ROUGHLY  # sdpa
    linear = c2_check(request(LLAMA, 8, 2), 8, 512, 1, 1, Ls, [float(L) for L in Ls])
    assert linear.verdict == FAILS


def test_c10_c23_fail_on_made_up_traces():
    c = LLAMA
    good = request(c, 8, 4)
    assert c10_check(good, balance=10.0).verdict != HOLDS  # made-up: 10⁴ and 100 FLOP/B, both above the balance
    flat = [step(c, "prefill", 8, 8, ms=5, flops=1e8, peak=10)] + [step(c, "decode", 8, 8 + t) for t in range(1, 4)]
    assert c10_check(flat, balance=10.0).verdict == FAILS
    mixed = [step(c, "prefill", 8, 8)]
    mixed[0].seqs.append(SeqStep(1, "decode", 1, 20, False, LayerShapes.for_step(c, 1, 20)))
    assert c23_check(good, mixed).verdict == HOLDS
    assert c23_check(good, good).verdict == ROUGHLY  # nothing interleaved
    assert c23_check(flat, mixed).verdict == FAILS


def test_c12_both_ways():
    c = LLAMA
    doc = [step(c, "prefill", 4, 4), step(c, "decode", 1, 5), step(c, "decode", 1, 6)]
    assert doc_worked_shapes_match()
    assert c12_check(doc, 4, True, c).verdict == HOLDS
    nine = [step(c, "prefill", 9, 9), step(c, "decode", 1, 10), step(c, "decode", 1, 11)]
    assert c12_check(nine, 9, True, c).verdict == ROUGHLY
    assert c12_check(doc, 4, False, c).verdict == FAILS
    assert c12_check([step(c, "prefill", 4, 4), step(c, "decode", 5, 5)], 4, True, c).verdict == FAILS


def test_hardware_checks_both_ways():
    assert c3_check(StepUse(60.0, 0.7, 0.1), 10.0).verdict == HOLDS
    assert c3_check(StepUse(60.0, 0.2, 0.1), 10.0).verdict == ROUGHLY
    assert c3_check(StepUse(2.0, 0.05, 0.8), 10.0).verdict == FAILS  # below the balance point
    assert c7_check(StepUse(0.5, 0.02, 0.6), 10.0).verdict == HOLDS
    assert c7_check(StepUse(40.0, 0.6, 0.2), 10.0).verdict == FAILS  # a big batch: compute-bound
    assert c11_check(StepUse(60, 0.5, 0.1), StepUse(0.5, 0.02, 0.6)).verdict == UNMEASURABLE
    assert c11_check(StepUse(60, 0.1, 0.1), StepUse(0.5, 0.08, 0.05)).verdict == FAILS
    long_ctx = c19_check(0.95, LLAMA, 32_000, 2, StepUse(0.5, 0.02, 0.6), 10.0)
    assert long_ctx.verdict == HOLDS  # at 32k context the KV cache outweighs LLaMA-7B's weights
    assert c19_check(0.95, LLAMA, 200, 2, StepUse(0.5, 0.02, 0.6), 10.0).verdict == ROUGHLY
    assert c19_check(0.3, LLAMA, 200, 2, StepUse(0.5, 0.02, 0.6), 10.0).verdict == FAILS


def test_c19_from_a_measured_int8_copy(tiny):
    """Measured: int8 weights must speed decode (>= 1.25x) and more than prefill for "holds"."""
    use = StepUse(0.5, 0.02, 0.6)
    fast = PrecisionTiming("int8 + bfloat16", (60.0, 36.0), (700.0, 1200.0), (538, 135), 512)
    v = c19_check(0.95, LLAMA, 200, 2, use, 10.0, fast)
    assert v.verdict == HOLDS and v.numbers["dec"] == pytest.approx(60 / 36) and v.reason == "why_c19_measured_holds"
    slow = PrecisionTiming("int8 + float32", (60.0, 150.0), (700.0, 800.0), (538, 135), 512)
    assert c19_check(0.95, LLAMA, 200, 2, use, 10.0, slow).verdict == ROUGHLY
    both = PrecisionTiming("w8a8 + float32", (60.0, 40.0), (700.0, 300.0), (538, 164), 512)  # prefill gains more
    assert c19_check(0.95, LLAMA, 200, 2, use, 10.0, both).verdict == ROUGHLY
    assert c19_check(0.3, LLAMA, 200, 2, use, 10.0, fast).verdict == FAILS  # the premise first
    q = load_model(str(tiny.path), dtype="bfloat16", weights="int8").model
    timing = measure_precision(tiny.model, q, tiny.tokenizer, ClaimSettings.quick(), repeats=1)
    assert timing.fmt == "int8 + bfloat16" and min(timing.tpot_ms + timing.prefill_ms) > 0
    assert timing.weight_bytes[1] < timing.weight_bytes[0] / 2


def test_c20_both_ways():
    v = c20_check(LLAMA)
    assert v.verdict == HOLDS and v.numbers["per_head"] == pytest.approx(200.0) and v.numbers["per_layer"] == 6.4
    assert v.numbers["gpu"] == 24
    assert c20_check(LLAMA, doc_mb=20.0).verdict == ROUGHLY  # a wrong per-head figure
    assert c20_check(LLAMA, prompt_len=1000).verdict == FAILS  # short prompts: no trap


def test_cache_checks_both_ways():
    ctx = list(range(17, 65))
    quad = [0.01 * C * C for C in ctx]
    lin = [float(C) for C in ctx]
    flat = [15.0 + 0.001 * C for C in ctx]
    assert c13_check(ctx, quad, quad, 100.0, 900.0, 600).verdict == HOLDS
    assert c13_check(ctx, lin, quad, 100.0, 900.0, 600).verdict == ROUGHLY  # linear layers dominate
    assert c13_check(ctx, flat, quad, 100.0, 110.0, 600).verdict == FAILS  # no growth, no cost
    assert c13_check(ctx, flat, quad, 100.0, 900.0, 600).verdict == FAILS  # slower, but flat in C
    assert c14_check(ctx, lin, lin, 300).verdict == HOLDS
    assert c14_check(ctx, flat, lin, 300).verdict == ROUGHLY  # weights dominate a cached step
    assert c14_check(ctx, quad, lin, 300).verdict == FAILS
    counted = uncached_attention_exponent(LLAMA, 64)
    assert 2.8 < counted < 3.1
    assert c15_check(counted, 2.0, 600, 64).verdict == FAILS
    assert c15_check(2.0, 2.0, 600, 64).verdict == HOLDS


def test_leak_and_serving_checks_both_ways():
    kib = 1024
    assert c16_check([10 * kib, 20 * kib, 30 * kib], [10.0, 12.0, 16.0], [0, 0, 0]).verdict == HOLDS
    assert c16_check([10 * kib, 20 * kib, 30 * kib], [10.0, 10.1, 10.2], [0, 0, 0]).verdict == ROUGHLY
    assert c16_check([10 * kib, 10 * kib, 10 * kib], [10.0, 10.0, 10.0], [0, 0, 0]).verdict == FAILS  # freed
    gaps = [20.0] * 40 + [400.0]
    assert c21_check(gaps, 420.0).verdict == HOLDS
    assert c21_check([20.0] * 41, 420.0).verdict == FAILS  # nobody waited
    assert c22_check(400.0, 60.0, 50.0, 49.0, 8).verdict == HOLDS
    assert c22_check(400.0, 300.0, 50.0, 40.0, 8).verdict == ROUGHLY
    assert c22_check(400.0, 420.0, 50.0, 50.0, 8).verdict == FAILS
    assert c22_check(400.0, 60.0, 50.0, 50.0, 0).verdict == FAILS  # never interleaved


def test_the_phases_conflict_check_both_ways():
    """C24 at a decode objective of 3 × 20 ms gaps and a prefill objective of 1.5 × 250 ms."""
    whole = ScheduleOutcome(chats_met=0, chats=3, worst_gap_ms=400.0, long_ttft_ms=300.0, seconds=2.0)
    traded = ScheduleOutcome(chats_met=3, chats=3, worst_gap_ms=55.0, long_ttft_ms=900.0, seconds=2.0)
    held = c24_check(whole, traded, 20.0, 250.0)
    assert held.verdict == HOLDS and (held.numbers["itl"], held.numbers["ttft"]) == (60.0, 375.0)
    assert (held.numbers["ga"], held.numbers["gb"]) == (0.5, 1.5)  # the long prompt met its objective, then the chats
    both_better = ScheduleOutcome(chats_met=2, chats=3, worst_gap_ms=80.0, long_ttft_ms=250.0, seconds=2.0)
    assert c24_check(whole, both_better, 20.0, 250.0).verdict == ROUGHLY  # no trade: chunks helped both
    served = ScheduleOutcome(chats_met=3, chats=3, worst_gap_ms=50.0, long_ttft_ms=350.0, seconds=2.0)
    assert c24_check(whole, served, 20.0, 250.0).verdict == FAILS  # one schedule served both phases


def test_settings_are_checked(tiny):
    with pytest.raises(ValueError, match="need 1040 tokens"):
        ClaimSettings(hol_long_prompt=1024).validate(512)


def test_strings_of_both_pages():
    """Every key of the sweeps and claims contexts and of the shared one (the verdicts') in both
    languages, with the same placeholders (a verdict's numbers fill both), and no key shared with
    another page's context."""
    import re

    mine = ["sweeps", "claims", "shared"]
    tables = {name: table for name, table in all_tables().items() if name in mine}
    others = [table for name, table in all_tables().items() if name not in mine]
    for table in tables.values():
        for key, (en, zh) in table.items():
            assert en.strip() and zh.strip(), key
            assert set(re.findall(r"{(\w+)", en)) == set(re.findall(r"{(\w+)", zh)), key
            assert not any(key in other for other in others), key
    keys = [k for table in tables.values() for k in table]
    assert len(keys) == len(set(keys))
    for claim in CLAIM_IDS:
        assert f"claim_{claim}" in tables["claims"]
