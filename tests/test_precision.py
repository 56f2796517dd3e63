"""The precision lab's numbers (lab/precision.py, lab/precision_formats.py, lab/precision_run.py):
float32 perplexity equals Hugging Face's loss on the same text; the quality bounds hold on the bundled
model (int8 weights within 3 % of float32's perplexity, an int8 KV cache within 1 %); the capacity
arithmetic; a small measurement on a tiny model fills every field, each row's time a ratio to float32
with its interval and n; what is said beside a bfloat16 row."""

from __future__ import annotations

import math

import pytest
import torch
from transformers import AutoModelForCausalLM

from engine import load_model
from engine.config import PRESETS
from lab.precision import chunk_logits, read_text, text_agreement
from lab.precision_formats import (
    GGUF_CHOICE,
    FormatConfig,
    capacity,
    kv_token_bytes,
    mha_twin,
    parse_weights,
    read_bytes,
)
from lab.precision_run import RunSettings, measure
from lab.precision_timing import TimingPlan

SMALL = TimingPlan(decode_rounds=8, prefill_rounds=5, prefill_len=16)  # a tiny model's run, in seconds


def test_float32_perplexity_equals_hugging_faces_loss(tiny_dirs):
    bundle = load_model(str(tiny_dirs["llama"]))
    ids = bundle.tokenizer(read_text()).input_ids[:300]
    ours = text_agreement(bundle.model, bundle.model, ids)
    hf = AutoModelForCausalLM.from_pretrained(tiny_dirs["llama"], dtype=torch.float32)
    with torch.no_grad():
        loss = hf(torch.tensor([ids]), labels=torch.tensor([ids])).loss.item()
    assert ours.tokens == len(ids) - 1
    assert ours.perplexity == pytest.approx(math.exp(loss), rel=1e-4)
    assert ours.kl_mean == pytest.approx(0.0, abs=1e-6) and ours.top1_share == 1.0


def test_chunks_read_earlier_chunks_through_the_cache(tiny_dirs):
    """Logits fed 32 at a time equal one forward over everything (a float32 cache changes nothing)."""
    bundle = load_model(str(tiny_dirs["llama"]))
    ids = bundle.tokenizer(read_text()).input_ids[:100]
    chunked = torch.cat(list(chunk_logits(bundle.model, ids, chunk=32)))
    whole = torch.cat(list(chunk_logits(bundle.model, ids, chunk=100)))
    assert chunked.shape == (100, bundle.model.config.vocab_size)
    assert (chunked - whole).abs().max() < 1e-4


@pytest.fixture(scope="module")
def text_ids(bundled):
    """The first 1,024 tokens of the lab's text (English and Chinese, a few thousand tokens): the whole
    costs the suite a minute more, and bench/precision.py measures it whole."""
    ids = bundled.tokenizer(read_text()).input_ids
    assert len(ids) > 2000
    return ids[:1024]


@pytest.fixture(scope="module")
def ref_logits(bundled, text_ids):
    return list(chunk_logits(bundled.model, text_ids))


def test_int8_weights_stay_within_3_percent_of_float32_perplexity(bundled, text_ids, ref_logits):
    # one kernel forced per activation dtype, the one that is fast with it (int8pack is slow on
    # float32 activations, dequant on bfloat16): the bound is the format's, the kernels compute the
    # same product (test_quant.py checks each against F.linear), and planning both costs 20 s
    for dtype, kernel in (("float32", "dequant"), ("bfloat16", "int8pack")):
        q = load_model("bundled", dtype=dtype, weights="int8", kernels=kernel)
        a = text_agreement(bundled.model, q.model, text_ids, ref_logits=ref_logits)
        assert abs(a.perplexity / a.perplexity_ref - 1) < 0.03, (dtype, a.perplexity, a.perplexity_ref)
        assert a.top1_share > 0.9 and a.kl_mean < 0.05


def test_an_int8_kv_cache_stays_within_1_percent_of_float32_perplexity(bundled, text_ids, ref_logits):
    a = text_agreement(bundled.model, bundled.model, text_ids, kv_dtype="int8", ref_logits=ref_logits)
    assert abs(a.perplexity / a.perplexity_ref - 1) < 0.01, (a.perplexity, a.perplexity_ref)
    assert a.top1_share > 0.95


def test_capacity_and_gqa_arithmetic():
    llama3 = PRESETS["Llama-3-8B"]  # 32 query heads, 8 KV heads
    fp16 = kv_token_bytes(llama3, "float16")
    assert fp16 == 2 * 32 * 8 * 128 * 2 and kv_token_bytes(mha_twin(llama3), "float16") == 4 * fp16
    assert kv_token_bytes(llama3, "int8") == 2 * 32 * 8 * 128 + 2 * 32 * 8 * 4  # one float32 scale per token/head
    c = capacity(llama3, 16e9, 80e9, fp16, 4096, "x")
    assert c.tokens == int(64e9 // fp16) and c.sequences == c.tokens // 4096
    assert capacity(llama3, 90e9, 80e9, fp16, 4096, "x").tokens == 0  # weights alone do not fit
    with pytest.raises(ValueError, match="Unknown weights 'int3'"):
        parse_weights("int3")


def test_a_measurement_fills_every_row(tiny_dirs):
    configs = [FormatConfig("float32"), FormatConfig("int8 + float32"), FormatConfig("float32", "int8")]
    seen, rows = [], []
    run = measure(
        RunSettings(str(tiny_dirs["llama"]), configs, quality_tokens=96, greedy_prompts=2, plan=SMALL),
        progress=seen.append,
        on_row=lambda run: rows.append(len(run.results)),
    )
    assert [r.config for r in run.results] == configs and not run.stopped
    ref, int8, kv8 = run.results
    assert ref.text.kl_mean == pytest.approx(0, abs=1e-6) and run.reference_ppl == pytest.approx(ref.text.perplexity)
    assert int8.weight_bytes < ref.weight_bytes / 2 and int8.weight_elem_bytes == 1
    assert kv8.kv_token_bytes < ref.kv_token_bytes / 3 and kv8.weight_bytes == ref.weight_bytes
    assert ref.decode_ratio is None and ref.prefill_ratio is None  # float32 is the base of every ratio
    for r in run.results:
        assert r.tpot_ms > 0 and r.prefill_ms > 0 and r.greedy.tokens == 2 * 24 and r.sample
    for r in (int8, kv8):  # timed beside float32: a ratio, its interval and n, never a bare number
        for ratio in (r.decode_ratio, r.prefill_ratio):
            assert ratio.n >= 5 and ratio.low <= ratio.median <= ratio.high and ratio.judgeable
    assert read_bytes(run.model, kv8, 4096, 8) < read_bytes(run.model, ref, 4096, 8)
    assert rows == [1, 2, 2, 3, 3, 3]  # each row lands when timed, again when scored; float32's scores last
    assert seen[-1].stage == "done" and seen[-1].fraction == 1.0
    assert [(p.stage, p.k) for p in seen if p.within == 0] == [
        ("reference", 1),
        ("loading", 2),
        ("timing", 2),
        ("scoring", 2),
        ("loading", 3),
        ("timing", 3),
        ("scoring", 3),
        ("scoring", 1),
        ("done", 3),
    ]  # the page says "configuration k of 3" from these
    assert all(p.seconds_left is not None for p in seen[1:-1])  # an estimate once float32's row is timed


def test_the_gguf_blocks_agree_with_float32_exactly(bundled_dir):
    """The lab's Q4_1 row: the file's blocks as stored against float32 made from them, the same numbers
    (no divergence, the same perplexity) at under a fifth of the bytes."""
    run = measure(
        RunSettings(
            str(bundled_dir),
            [FormatConfig("float32"), FormatConfig(GGUF_CHOICE)],
            quality_tokens=64,
            greedy_prompts=1,
            plan=TimingPlan(decode_rounds=5, prefill_rounds=5, prefill_len=16),
        ),
        reference=load_model(str(bundled_dir), kernels="gemv"),  # float32 on the C kernels, as gguf's
    )
    ref, gguf = run.results
    assert gguf.text.kl_mean == 0 and gguf.text.perplexity == ref.text.perplexity
    assert gguf.greedy.top1 == gguf.greedy.tokens > 0 and gguf.sample == ref.sample
    assert gguf.weight_bytes < ref.weight_bytes / 5 and gguf.weight_elem_bytes == 20 / 32


def test_the_bundled_models_caption_says_its_weights_are_4_bit(bundled, tiny):
    """Its "float32" is float32 arithmetic on Q4_1 weights: the caption says so, in both languages;
    a model loaded from its own float weights says nothing of the kind."""
    from ui.run_state import ModelInfo
    from ui.widgets import model_summary

    for lang in ("en", "zh"):
        assert "Q4_1" in model_summary(ModelInfo.from_bundle(bundled), lang)
        assert "Q4_1" not in model_summary(ModelInfo.from_bundle(tiny), lang)


def test_the_time_left_follows_the_speeds_measured_so_far():
    """A run's parts take what the pace expects of the speeds it has measured: the estimate made once
    float32's row is timed is within 30 % of the time left, and a slow bfloat16 configuration makes
    the next bfloat16 one expected slow."""
    from lab.precision_pace import Part, PrecisionPace

    parts = [Part("reference", 0), Part("loading", 1, "bfloat16"), Part("timing", 1, "bfloat16")]
    parts += [Part("scoring", 1, "bfloat16"), Part("loading", 2, "bfloat16", "int8"), Part("timing", 2, "bfloat16")]
    parts += [Part("scoring", 2, "bfloat16"), Part("scoring", 0)]
    pace = PrecisionPace(parts, TimingPlan(), 256, 72, 135e6)
    assert pace.at().seconds_left is None  # nothing measured: no estimate
    pace.done(1.0)
    pace.speeds.step_s, pace.speeds.token_s = 0.022, 0.0013
    expected = pace.at().seconds_left
    truth = [pace.estimate(p) for p in parts[1:]]  # a machine whose parts take what the pace expects
    assert expected == pytest.approx(sum(truth), rel=0.3)
    before = pace.estimate(parts[5])
    for p in parts[1:3]:
        pace.done(pace.estimate(p))
    pace.speeds.factors["bfloat16"] = (10.0, 10.0)  # measured: a bfloat16 step costs ten float32 steps
    assert pace.estimate(parts[5]) > 2 * before
    assert 0 < pace.at(0.5).fraction < 1 and pace.at(0.5).within == 0.5


def test_what_a_bfloat16_row_is_told_about_this_cpu():
    from lab.precision_notes import CONVERTED, NATIVE, NONE, UNKNOWN, bf16_kernel, gpu_projection

    assert bf16_kernel("fpu sse2 avx avx2 fma", "x86_64") == (NONE, ["avx2"])
    assert bf16_kernel("avx2 avx512f avx512bw avx512vl avx512dq", "x86_64")[0] == CONVERTED
    assert bf16_kernel("avx2 avx512f avx512bw avx512vl avx512dq avx512_bf16 amx_bf16", "x86_64") == (
        NATIVE,
        ["avx512_bf16", "amx_bf16"],
    )
    assert bf16_kernel("fp asimd bf16", "aarch64") == (NATIVE, ["bf16"]) and bf16_kernel("", "x86_64")[0] == UNKNOWN
    p = gpu_projection(PRESETS["Llama-3-8B"], 512)
    assert p.gpu == "H100 SXM" and 0.45 < p.ratio < 0.55  # memory-bound at batch 1: the bytes' ratio


def _default_timing(bundled_dir, bundled):
    """The page's default configurations, timed as the page times them (the scoring left out: it is
    not timed), on the bundled model."""
    from app_pages.precision.run import DEFAULT_KV, DEFAULT_WEIGHTS

    configs = [FormatConfig(w) for w in DEFAULT_WEIGHTS] + [FormatConfig("float32", kv) for kv in DEFAULT_KV]
    return measure(RunSettings(str(bundled_dir), configs, quality_tokens=0, greedy_prompts=0), reference=bundled)


@pytest.fixture(scope="module")
def quiet_default(bundled_dir, bundled):
    """Taken before the busy test's spinner starts (a module fixture is set up before a test's own)."""
    return _default_timing(bundled_dir, bundled)


def test_a_busy_core_leaves_the_defaults_verdicts_or_makes_them_not_separable(
    quiet_default, bundled_dir, bundled, busy_core
):
    """With one core spinning in another process, each default row's verdict against float32 (decode
    and prefill) is the one measured without it, or "not separable here": never the opposite."""
    from lab.pairing import GREATER, LESS, compare

    busy = _default_timing(bundled_dir, bundled)
    assert [r.config for r in busy.results] == [r.config for r in quiet_default.results]
    for q, b in zip(quiet_default.results[1:], busy.results[1:]):
        for quiet_r, busy_r in ((q.decode_ratio, b.decode_ratio), (q.prefill_ratio, b.prefill_ratio)):
            verdicts = {compare(quiet_r), compare(busy_r)}
            assert verdicts != {GREATER, LESS}, (q.config.name, quiet_r, busy_r)  # never the opposite
            assert busy_r.n >= 5 and busy_r.load is not None
        assert b.timing.threads < b.timing.of_threads == torch.get_num_threads()  # the free cores only
    assert busy.results[0].timing.threads < busy.results[0].timing.of_threads  # float32's own row too
