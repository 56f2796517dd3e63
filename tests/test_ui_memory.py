"""The memory lab's building blocks without a server: parsing, the sweep on a tiny model, the
predictor's tables and figures, heatmap aggregation and downloads, the leak figures. Figure JSON
must match the records it was drawn from."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from PIL import Image

from app_pages.memory.figures import (
    breakdown_figure,
    difference_figure,
    leak_memory_figure,
    leak_speed_figure,
    sweep_peak_figure,
)
from app_pages.memory.fit import (
    FitVariant,
    fit_figure,
    fit_table,
    fit_variants,
    fmt_si,
    max_fit_length,
    max_length_table,
    score_numbers,
)
from app_pages.memory.heat import csv_text, layer_matrices, layers_csv, layers_figure, mean_matrix, png_bytes, tile
from app_pages.memory.sweep import (
    WHERE_THE_PEAKS_ARE,
    Comparison,
    SweepPlan,
    SweepStatus,
    Variant,
    comparisons,
    new_result,
    parse_chunks,
    parse_lengths,
    peak_slopes,
    run_sweep,
    seconds_left,
)
from engine import load_model
from engine.config import PRESETS
from lab.catalogues import SHARED
from lab.catalogues import keys as catalogue_keys
from lab.memory_lab import LeakPoint, predict_fit
from tests.ui_support import run_to_end
from ui.figures_attention import attention_matrix
from ui.memory_leak import LeakResult, check_settings
from ui.theme import MIB

ROOT = Path(__file__).resolve().parent.parent
MY_FILES = [*ROOT.glob("app_pages/memory/*.py"), ROOT / "ui" / "memory_leak.py"]


def as_json(fig) -> dict:
    return json.loads(fig.to_json())


def trace(fig: dict, name: str) -> dict:
    return next(d for d in fig["data"] if d.get("name") == name)


def test_every_literal_key_the_page_uses_exists():
    keys = {k for f in MY_FILES for k in re.findall(r'\bt\("([a-z0-9_]+)"', f.read_text())}
    known = catalogue_keys(SHARED) | catalogue_keys("memory")
    assert keys and not keys - known, sorted(keys - known)


@pytest.mark.parametrize(
    "text, expected",
    [
        ("64, 128,256", [64, 128, 256]),
        ("2048 64 64", [64, 2048]),
        ("1_024；", None),
        ("512，1024", [512, 1024]),
    ],
)
def test_parse_lengths(text, expected):
    if expected is None:
        with pytest.raises(ValueError, match="whole numbers"):
            parse_lengths(text, 4095)
    else:
        assert parse_lengths(text, 4095) == expected


@pytest.mark.parametrize(
    "text, message",
    [
        ("", "at least one"),
        ("abc", "whole numbers"),
        ("0, 64", "positive"),
        ("64, 5000", "at most 4095"),
        (",".join(str(i) for i in range(1, 20)), "too many"),
    ],
)
def test_bad_lengths_get_a_clear_message(text, message):
    with pytest.raises(ValueError, match=message):
        parse_lengths(text, 4095)


def test_messages_follow_the_language():
    with pytest.raises(ValueError, match="必须是用逗号分隔的整数"):
        parse_lengths("x", 100, "zh")
    assert parse_chunks("") == [] and parse_chunks("256, 128") == [128, 256]
    with pytest.raises(ValueError):
        parse_chunks("1,2,3,4,5")


def test_plan_skips_chunks_as_long_as_the_prompt():
    plan = SweepPlan([64, 256, 1024], ["eager", "sdpa"], [256])
    assert plan.variants == [Variant("eager"), Variant("sdpa"), Variant("eager", 256), Variant("sdpa", 256)]
    assert (256, Variant("eager", 256)) not in plan.points() and (1024, Variant("sdpa", 256)) in plan.points()
    assert len(plan.points()) == 3 * 2 + 2
    with pytest.raises(ValueError, match="backend"):
        SweepPlan([64], [], [])


@pytest.fixture(scope="module")
def tiny_long(tiny_dirs):
    return load_model(str(tiny_dirs["llama-4k"]))


@pytest.fixture(scope="module")
def sweep(tiny_long):
    result = new_result(tiny_long, SweepPlan([64, 1024, 2048], ["eager", "sdpa"], [512]))
    done = list(run_sweep(tiny_long, result))
    assert done == list(range(len(result.plan.points()) + 1)) and result.status == SweepStatus.DONE
    return result


def test_a_timed_length_lands_after_the_memory_points(tiny_long):
    """The sweep times eager against sdpa at the lengths asked, after its memory points: each one's
    median and eager ÷ sdpa paired over the rounds, one more item done, and its seconds."""
    result = new_result(tiny_long, SweepPlan([64], ["eager", "sdpa"], [], timed=[64], rounds=5))
    done = list(run_sweep(tiny_long, result))
    assert done == [0, 1, 2, 3] and result.status == SweepStatus.DONE and len(result.seconds) == 3
    (timing,) = result.timings
    assert timing.L == 64 and timing.ratio.n == 5 and timing.eager_ms > 0 and timing.sdpa_ms > 0
    assert seconds_left(result) is None or seconds_left(result) == 0  # nothing left


def test_sweep_comparison_at_2048_agrees_with_the_formula(sweep, tiny_long):
    c = tiny_long.model.config
    rows = {r.L: r for r in comparisons(sweep)}
    assert set(rows) == {64, 1024, 2048}
    r = rows[2048]
    assert r.formula == c.num_heads * 2048 * 2048 * 4 and r.eager_scores == r.formula
    assert abs(r.ratio - 1) <= 0.10 and r.verdict == "mem_why_agree"
    short = rows[64]  # where its peaks are, read from the tags, says why it is not the formula
    sites = (short.eager_site, short.sdpa_site)
    assert all(sites) and short.verdict == WHERE_THE_PEAKS_ARE.get(sites, "mem_why_elsewhere")


@pytest.mark.parametrize(
    "eager_scores, ratio, sites, verdict",
    [
        (90, 1.05, ("attention", "MLP"), "mem_why_agree"),
        (0, 0.2, ("MLP", "MLP"), "mem_why_mlp"),
        (90, 0.5, ("attention", "MLP"), "mem_why_gap"),
        (90, 0.8, ("attention", "attention"), "mem_why_attention"),
        (0, 0.3, ("MLP", "attention"), "mem_why_swapped"),
        (120, 1.3, ("attention", "attention"), "mem_why_half"),
        (0, 0.1, ("other", "MLP"), "mem_why_elsewhere"),
    ],
)
def test_the_verdict_follows_where_each_peak_was(eager_scores, ratio, sites, verdict):
    formula = 100
    row = Comparison(64, 1000 + int(ratio * formula), 1000, formula, eager_scores, True, *sites)
    assert row.verdict == verdict


def test_peak_slopes_are_the_measured_exponents(sweep):
    slopes = {s.variant: s for s in peak_slopes(sweep)}
    eager = slopes[Variant("eager")]
    assert (eager.L0, eager.L1) == (1024, 2048)
    peaks = {p.prompt_len: p.peak_bytes for p in sweep.points if p.backend == "eager" and p.chunk is None}
    assert 2**eager.exponent == pytest.approx(peaks[2048] / peaks[1024])
    assert eager.exponent > 1.5 > slopes[Variant("sdpa")].exponent  # the L² matrix against L activations
    assert Variant("eager", 512) in slopes  # chunked: measured at 1024 and 2048


def test_sweep_figures_match_the_measurements(sweep):
    fig = as_json(sweep_peak_figure(sweep))
    assert fig["layout"]["title"]["text"].startswith("Prefill peak above baseline")
    assert fig["layout"]["xaxis"]["title"]["text"] and fig["layout"]["yaxis"]["title"]["text"].endswith("log scale)")
    eager = trace(fig, "measured peak: eager")
    points = {p.prompt_len: p for p in sweep.points if p.backend == "eager" and p.chunk is None}
    assert eager["x"] == [64, 1024, 2048]
    assert eager["y"] == pytest.approx([points[L].peak_bytes / MIB for L in (64, 1024, 2048)])
    formula = trace(fig, "formula: heads × L × L × bytes (one layer's scores)")
    assert formula["y"] == pytest.approx([sweep.num_heads * L * L * 4 / MIB for L in (64, 1024, 2048)])
    chunked = trace(fig, "formula, chunks of 512: heads × 512 × L × bytes")
    assert chunked["x"] == [1024, 2048] and chunked["y"][1] == pytest.approx(sweep.num_heads * 512 * 2048 * 4 / MIB)
    assert trace(fig, "measured peak: sdpa, chunks of 512")["x"] == [1024, 2048]

    bars = as_json(breakdown_figure(sweep, with_weights=True))
    assert [d["name"] for d in bars["data"]] == ["weights", "KV cache", "activations", "attention scores"]
    total = np.sum([d["y"] for d in bars["data"]], axis=0) * MIB
    ordered = sorted(sweep.points, key=lambda p: (p.prompt_len, p.chunk or 0, p.backend))
    assert total == pytest.approx([sweep.weight_bytes + p.kv_bytes + p.peak_bytes for p in ordered])
    assert len(as_json(breakdown_figure(sweep, with_weights=False))["data"]) == 3

    diff = as_json(difference_figure(comparisons(sweep)))
    measured = trace(diff, "measured eager − sdpa (label: ÷ formula)")
    assert measured["y"][-1] == pytest.approx(comparisons(sweep)[-1].difference / MIB)


def test_score_numbers_for_llama_7b_at_10k():
    n = score_numbers(PRESETS["LLaMA-7B"], 10_000, 2)
    assert (n.per_head, n.per_layer, n.all_layers) == (200_000_000, 6_400_000_000, 204_800_000_000)
    assert n.kv_cache == 5_242_880_000 and n.weights == 6_738_415_616 * 2
    assert fmt_si(n.per_head) == "200.0 MB" and fmt_si(n.per_layer) == "6.4 GB" and fmt_si(999) == "999 B"


def test_fit_table_names_the_overflowing_term():
    table = fit_table(PRESETS["LLaMA-7B"], 10_000, 2, chunk=1024)
    assert list(table.columns) == [
        "GPU",
        "eager (materialised scores)",
        "fused kernel (FlashAttention-style)",
        "eager, chunks of 1024",
    ]
    row24 = table.iloc[0]
    assert row24["GPU"] == "24 GB" and row24["eager (materialised scores)"].startswith("OOM at attention scores")
    assert row24["fused kernel (FlashAttention-style)"].startswith("fits")
    assert table.iloc[1]["eager (materialised scores)"].startswith("fits")  # 40 GB
    seventy = fit_table(PRESETS["Llama-3-70B"], 1000, 2, chunk=512)
    assert seventy.iloc[0, 1].startswith("OOM at weights")


@pytest.mark.parametrize(
    "variant", [FitVariant("eager"), FitVariant("fused", fused=True), FitVariant("chunked", chunk=1024)]
)
def test_longest_prompt_that_fits_is_the_boundary(variant):
    c = PRESETS["LLaMA-7B"]
    L = max_fit_length(c, 2, 24, variant)
    fits = lambda n: predict_fit(c, n, 2, 24, fused=variant.fused, chunk=variant.chunk).fits  # noqa: E731
    assert L > 0 and fits(L) and not fits(L + 1)
    assert max_fit_length(PRESETS["Llama-3-70B"], 2, 24, variant) == 0  # the weights alone do not fit
    table = max_length_table(c, 2, 1024)
    assert table.iloc[0][variant.label()] == L


def test_fit_figure_stacks_the_terms_against_the_gpu_sizes():
    c = PRESETS["LLaMA-7B"]
    fig = as_json(fit_figure(c, 10_000, 2, 1024))
    assert (
        fig["layout"]["title"]["text"].replace("<br>", "")
        == "Predicted prefill peak, LLaMA-7B, L = 10,000, 2 bytes per value"
    )
    assert fig["layout"]["xaxis"]["title"]["text"] == "memory (GB = 10⁹ bytes)"
    scores = trace(fig, "attention scores")
    assert scores["x"] == pytest.approx([6.4, 0.0, 32 * 1024 * 10_000 * 2 / 1e9])
    for gb in (24, 40, 80, 141):
        assert trace(fig, f"GPU {gb} GB")["x"] == [gb, gb]
    # each bar's name sits above it, so on a phone the bars keep the chart's width
    assert fig["layout"]["yaxis"]["showticklabels"] is False
    notes = fig["layout"]["annotations"]
    assert [a["text"] for a in notes] == [v.label() for v in fit_variants(1024)]
    assert all(a["xanchor"] == "left" and a["xref"] == "paper" for a in notes)


@pytest.fixture(scope="module")
def captured(tiny):
    return run_to_end(tiny, prompt="The quick brown fox jumps", max_new_tokens=4, attention="eager", probe_memory=False)


def test_mean_over_heads_and_every_layer(captured):
    heads = captured.model.num_heads
    mean = mean_matrix(captured.attention, 1, heads)
    stack = np.stack([attention_matrix(captured.attention, 1, h) for h in range(heads)])
    np.testing.assert_allclose(mean, stack.mean(axis=0))
    assert np.isnan(mean[0, 1]) and np.nansum(mean, axis=1) == pytest.approx(np.ones(mean.shape[0]), abs=1e-2)
    mats = layer_matrices(captured.attention, heads)
    assert list(mats) == [0, 1]
    fig = as_json(layers_figure(mats))
    assert len([d for d in fig["data"] if d["type"] == "heatmap"]) == 2
    assert fig["layout"]["title"]["text"].replace("<br>", "") == "Attention probabilities, mean over heads, 2 layers"
    grid = tile(list(mats.values()), cols=2)
    assert grid.shape == (mean.shape[0], 2 * mean.shape[1] + 1) and np.isnan(grid[:, mean.shape[1]]).all()


def test_every_layer_marks_where_prefill_ends(captured):
    """The caption speaks of the dashed line: each tile has it, the legend names it once, and its
    colour shows on the white legend (a white line did not)."""
    mats = layer_matrices(captured.attention, captured.model.num_heads)
    prefill_rows = captured.attention[0][0].shape[1]
    fig = as_json(layers_figure(mats, "en", prefill_rows))
    lines = [d for d in fig["data"] if d["type"] == "scatter"]
    assert len(lines) == len(mats) and all(d["y"] == [prefill_rows - 0.5] * 2 for d in lines)
    assert [d.get("showlegend", True) for d in lines] == [True] + [False] * (len(mats) - 1)
    assert lines[0]["name"] == "prefill ends, decode rows below" and lines[0]["line"]["color"] != "white"


def test_png_download_draws_the_matrix(captured):
    matrix = attention_matrix(captured.attention, 0, 0)
    image = Image.open(io.BytesIO(png_bytes(matrix, max_px=400)))
    cell = min(32, 400 // max(matrix.shape))
    assert image.format == "PNG" and image.size == (matrix.shape[1] * cell, matrix.shape[0] * cell)
    px = image.convert("RGB").load()
    assert px[cell * matrix.shape[1] - 1, 0] == (255, 255, 255)  # the future: blank
    i, j = np.unravel_index(np.nanargmax(matrix), matrix.shape)
    assert px[int(j) * cell, int(i) * cell] == (0xFD, 0xE7, 0x25)  # the maximum: Viridis' top
    with pytest.raises(ValueError):
        png_bytes(np.zeros((0, 0)))


def test_csv_download_round_trips(captured):
    matrix = attention_matrix(captured.attention, 1, 2)
    labels = [p.label for p in captured.prompt + captured.pieces]
    frame = pd.read_csv(io.StringIO(csv_text(matrix, labels)), index_col=0)
    assert frame.shape == matrix.shape and frame.columns[0] == f"0: {labels[0]}"
    np.testing.assert_allclose(frame.to_numpy(), matrix, rtol=1e-5, atol=1e-6)
    long = pd.read_csv(io.StringIO(layers_csv(layer_matrices(captured.attention, 4), labels)))
    assert list(long.columns) == ["layer", "query", "query_token", "key", "key_token", "probability"]
    assert len(long) == 2 * int(np.isfinite(matrix).sum())


def test_leak_settings_and_figures():
    with pytest.raises(ValueError, match="between 2 and"):
        check_settings(1, 8, 8192)
    with pytest.raises(ValueError, match="context"):
        check_settings(30, 60, 512)
    check_settings(8, 8, 8192)
    naive = [LeakPoint(i, (i + 1) * MIB, (i + 1) * MIB, 10 * (i + 1), 20.0 + i) for i in range(4)]
    ours = [LeakPoint(i, 0, 0, 0, 18.0) for i in range(4)]
    assert LeakResult(4, 3, naive, ours).growth_per_request == MIB
    mem = as_json(leak_memory_figure(naive, ours))
    assert trace(mem, "naive HF loop (cache never released)")["y"] == [1, 2, 3, 4]
    assert trace(mem, "engine (blocks freed)")["y"] == [0, 0, 0, 0]
    assert mem["layout"]["yaxis"]["title"]["text"] == "tensor memory still alive (MiB)"
    speed = as_json(leak_speed_figure(naive, ours))
    assert trace(speed, "naive HF loop (cache never released)")["x"] == [1, 2, 3, 4]
    assert speed["layout"]["yaxis"]["title"]["text"] == "time per token (ms)"
