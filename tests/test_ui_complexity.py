"""Complexity lab building blocks without a server: the arithmetic (fit points, scaled curves,
closed-form totals against real counted runs), the figures' JSON and the C12 shape table."""

from __future__ import annotations

import numpy as np
import pytest

from app_pages.complexity.figures import (
    GIGA,
    crossover_figure,
    cumulative_figure,
    exponent_figure,
    step_flops_figure,
    step_time_figure,
)
from app_pages.complexity.table import matches_document, shape_frame, walkthrough_md, worked_rows
from engine.config import PRESETS
from lab.complexity import run_with_and_without_cache, step_flops_split
from lab.complexity_math import (
    apparent_exponent,
    crossover_rows,
    exponent,
    first_n_above,
    fit_steps,
    measured_exponents,
    prompt_of_length,
    scaled_theory,
    total_flops,
)
from tests.engine_support import TINY_CONFIG

LLAMA = PRESETS["LLaMA-7B"]


@pytest.fixture(scope="module")
def tiny_runs(tiny):
    ids = prompt_of_length(tiny.tokenizer, 12)
    return run_with_and_without_cache(tiny.model, tiny.tokenizer, ids, 20)


@pytest.mark.parametrize("length", [1, 7, 32, 300])
def test_prompt_of_length_is_exact(tiny, length):
    ids = prompt_of_length(tiny.tokenizer, length)
    assert len(ids) == length and ids == prompt_of_length(tiny.tokenizer, length)


def test_prompt_of_length_rejects_zero(tiny):
    with pytest.raises(ValueError, match="at least 1"):
        prompt_of_length(tiny.tokenizer, 0)


def test_fit_steps_are_log_spaced_from_4():
    steps = fit_steps(127)
    assert steps[0] == 4 and steps[-1] == 127 and steps == sorted(set(steps)) and len(steps) == 12
    ratios = np.diff(np.log(steps))
    assert ratios.max() < 2.5 * ratios.min()  # roughly equal steps in log n
    assert fit_steps(3) == [] and fit_steps(4) == [4] and exponent([1.0] * 4, [4]) is None


def test_exponent_of_a_power_law():
    values = [n**1.5 for n in range(1, 101)]
    assert exponent(values, fit_steps(100)) == pytest.approx(1.5)


def test_scaled_theory_meets_the_measurement_at_the_end():
    measured = [float(n) for n in range(1, 41)]
    for power in (1, 2):
        theory = scaled_theory(10, measured, power)
        assert theory.values[-1] == pytest.approx(40.0) and len(theory.values) == 40
    assert 1 < scaled_theory(10, measured, 1).slope < scaled_theory(10, measured, 2).slope < 3


def test_total_flops_by_hand_for_a_tiny_config():
    # lin 2304, tail 896, head 160, a 64 (tests/test_complexity.py); L = 2, n = 2: contexts 3 and 4
    on = total_flops(TINY_CONFIG, np.array([2]), np.array([2]), kv_cache=True)
    off = total_flops(TINY_CONFIG, np.array([2]), np.array([2]), kv_cache=False)
    assert on[0] == 2 * (2304 + 160) + 64 * (3 + 4)
    assert off[0] == 2304 * (3 + 4) - 896 * (2 + 3) + 2 * 160 + 64 * (6 + 10)


@pytest.mark.parametrize("kv", [True, False])
def test_closed_form_totals_match_the_engine_counts(tiny, tiny_runs, kv):
    c, run = tiny.model.config, tiny_runs[kv]
    n = len(run.step_ms)
    assert total_flops(c, np.array([12]), np.array([n]), kv)[0] == pytest.approx(run.cumulative_flops[-1])
    per_step = [sum(step_flops_split(c, 12 + t, kv)) for t in range(1, n + 1)]
    assert np.add(run.flops_linear, run.flops_attention) == pytest.approx(per_step)


def test_apparent_exponents_show_when_the_cube_appears():
    ns = np.array([64, 1024, 1 << 20])
    off, on = apparent_exponent(LLAMA, ns, False), apparent_exponent(LLAMA, ns, True)
    assert 1.9 < off[0] < 2.1 and off[-1] > 2.9  # quadratic at LLaMA-7B's context, cubic only far beyond
    assert 0.95 < on[0] < 1.1 and on[-1] > 1.9
    n3 = first_n_above(LLAMA, 2.5)
    assert n3 is not None and n3 > LLAMA.max_position


def test_crossover_rows():
    row = crossover_rows({"LLaMA-7B": LLAMA})[0]
    assert row.attention_per_key == 4 * 32 * 32 * 128 and row.with_cache * row.attention_per_key >= row.linear_per_token
    # the last layer's o and MLP: 2 x (4096 x 4096 + 3 x 4096 x 11008) = 304,087,040, which only the sampled token
    # runs; uncached C* = 2 (lin - tail) / a = 2 x 12,647,923,712 / 524,288 = 48,248
    assert row.tail_per_token == 304_087_040 and row.without_cache == 48_248 and row.max_position == 2048


def layout_ok(fig) -> dict:
    layout = fig.to_plotly_json()["layout"]
    assert layout["title"]["text"] and layout["xaxis"]["title"]["text"] and layout["yaxis"]["title"]["text"]
    assert layout["showlegend"] is True
    return layout


def test_cumulative_figures_fit_and_scale(tiny_runs):
    for kind in ("ms", "flops"):
        fig = cumulative_figure(tiny_runs, 12, kind)
        layout = layout_ok(fig)
        assert layout["xaxis"]["type"] == "log" and layout["yaxis"]["type"] == "log"
        names = [d.name for d in fig.data]
        assert names[0].startswith("with KV cache: measured, slope ") and names[1].startswith("document's Σ(L+t),")
        assert names[3].startswith("document's Σ(L+t)²")
        scale = 1 if kind == "ms" else GIGA
        off = tiny_runs[False].cumulative_ms if kind == "ms" else tiny_runs[False].cumulative_flops
        assert list(fig.data[2].y) == pytest.approx([v / scale for v in off])
        assert fig.data[3].y[-1] == pytest.approx(fig.data[2].y[-1])  # the curve meets the measurement
    slope = measured_exponents(tiny_runs[True])[1]
    assert f"slope {slope:.2f}" in cumulative_figure(tiny_runs, 12, "flops").data[0].name


def test_step_figures(tiny_runs):
    fig = step_time_figure(tiny_runs, 12)
    layout_ok(fig)
    assert list(fig.data[0].x)[0] == 13 and list(fig.data[1].y) == pytest.approx(tiny_runs[False].step_ms)
    fig = step_flops_figure(tiny_runs, 12, "zh")
    layout_ok(fig)
    assert [d.name for d in fig.data] == [
        "有 KV 缓存：线性层",
        "有 KV 缓存：注意力",
        "无 KV 缓存：线性层",
        "无 KV 缓存：注意力",
    ]
    assert len(set(fig.data[0].y)) == 1 and fig.data[2].y[-1] > fig.data[2].y[0]  # flat vs growing


def test_crossover_and_exponent_figures():
    fig = crossover_figure(LLAMA)
    layout_ok(fig)
    row = crossover_rows({"LLaMA-7B": LLAMA})[0]
    marks = {d.name: d.x[0] for d in fig.data if len(d.x) == 2}
    assert marks[f"attention overtakes, with cache: {row.with_cache:,} tokens"] == row.with_cache
    assert marks["the model's context: 2,048 tokens"] == 2048
    fig = exponent_figure({"LLaMA-7B": LLAMA, "tiny": TINY_CONFIG})
    layout_ok(fig)
    levels = {d.name: d.y[0] for d in fig.data if d.name.startswith("document")}
    assert levels == {"document: O(N³) without cache": 3, "document: O(N²) with cache": 2}
    assert len(fig.data) == 2 * 2 + 2


def by_tensor(table) -> dict[str, list[str]]:
    """The shape table as {tensor: [value at step 0, step 1, ...]}."""
    return {row[0]: list(row[1:]) for row in table.itertuples(index=False)}


def test_llama7b_table_matches_the_document():
    rows = worked_rows(LLAMA, 4, 3)
    table = shape_frame(rows)
    assert list(table.columns) == ["tensor", "step 0 · prefill", "step 1 · decode", "step 2 · decode"]
    shapes = by_tensor(table)
    assert shapes["embedding [B, T, hidden]"] == ["[1, 4, 4096]", "[1, 1, 4096]", "[1, 1, 4096]"]
    assert shapes["scores per head (T×C)"] == ["4×4", "1×5", "1×6"]
    assert shapes["KV cache [layers, 2, C, kv_heads, head_dim]"][:2] == ["[32, 2, 4, 32, 128]", "[32, 2, 5, 32, 128]"]
    assert shapes["C (KV length)"] == ["4", "5", "6"] and shapes["T (tokens in)"] == ["4", "1", "1"]
    assert set(shapes["last position [B, hidden]"]) == {"[1, 4096]"} and shapes["logits [B, vocab]"][0] == "[1, 32000]"
    assert matches_document(LLAMA, rows) and not matches_document(LLAMA, worked_rows(LLAMA, 9, 3))
    text = walkthrough_md(LLAMA, rows, True)
    assert "4×4" in text and "1×5" in text and "from 4 to 5 tokens" in text and "grouped-query" not in text
    assert list(shape_frame(rows, "zh").columns)[1] == "第 0 步 · 预填充"


def test_gqa_and_no_cache_walkthrough():
    c = PRESETS["Llama-3-8B"]
    rows = worked_rows(c, 4, 3, kv_cache=False)
    assert rows[1].scores_per_head == [5, 5]
    text = walkthrough_md(c, rows, False)
    assert "kv_heads = 8" in text and "4× smaller" in text and "5×5" in text


@pytest.mark.parametrize("args, message", [((0, 3), "empty"), ((4, 0), "between 1 and"), ((2040, 10), "context")])
def test_worked_rows_reject_bad_input(args, message):
    with pytest.raises(ValueError, match=message):
        worked_rows(LLAMA, *args)


def test_the_race_pairs_each_decode_step_and_counts_the_same_work(tiny, tiny_runs):
    """Cache on and off raced a step each in turn: the same tokens and the same counted FLOPs as the
    runs one after the other, every i-th decode step of one paired with the other's."""
    from lab.complexity_race import race_cache

    race = race_cache(tiny.model, tiny.tokenizer, prompt_of_length(tiny.tokenizer, 12), 20)
    for kv in (True, False):
        assert race.runs[kv].tokens == tiny_runs[kv].tokens
        assert race.runs[kv].flops_linear == tiny_runs[kv].flops_linear
        assert race.runs[kv].flops_attention == tiny_runs[kv].flops_attention
    assert race.contexts == list(range(13, 32)) and race.ratio.n == 19
    assert race.tokens_recomputed == sum(c - 1 for c in race.contexts)
    bins = race.binned(8)
    assert [(a, b) for a, b, _ in bins] == [(13, 20), (21, 28), (29, 31)] and all(r.n >= 2 for _, _, r in bins)
    assert race.flops_ratio() > 1


def test_a_time_exponent_comes_with_an_interval_that_covers_the_truth():
    from lab.complexity_math import time_exponent

    rng = np.random.default_rng(3)
    n = np.arange(1, 128)
    flat = 20 + rng.normal(0, 1.5, n.size)  # with the cache: every step costs the same
    growing = 1.3 * (8 + n) + rng.normal(0, 4, n.size)  # without: a step costs its context
    on, off = time_exponent(list(flat)), time_exponent(list(growing))
    truth_off = exponent(list(np.cumsum(1.3 * (8 + n))), fit_steps(127))
    assert on.low <= 1.0 <= on.high and off.low <= truth_off <= off.high and on.n == 127
    assert on.high - on.low < 0.1 and off.value > on.value
    assert time_exponent(list(growing)) == off  # seeded: the same run, the same interval
    assert time_exponent([20.0, 21.0, 19.0]) is None  # too few steps to fit
