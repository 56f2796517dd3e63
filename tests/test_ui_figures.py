"""The figure builders, on real runs of a tiny model: the figure JSON must match the records."""

from __future__ import annotations

import base64
import json
import math
from types import SimpleNamespace

import numpy as np
import pytest

from app_pages.playground.figures import engine_ms_per_token, latency_figure, memory_figure, time_share_figure
from tests.ui_support import run_to_end
from ui.figures_attention import attention_heatmap, attention_matrix, shapes_figure
from ui.figures_kv import kv_bytes_figure, kv_formula, kv_steps, kv_tokens_figure
from ui.run_state import RunStatus
from ui.theme import KIB, MIB

PROMPT = "The quick brown fox jumps over the lazy dog"


@pytest.fixture(scope="module")
def eager_run(tiny):
    return run_to_end(tiny, prompt=PROMPT, max_new_tokens=6, attention="eager")


@pytest.fixture(scope="module")
def no_cache_run(tiny):
    return run_to_end(tiny, prompt=PROMPT, max_new_tokens=4, attention="eager", kv_cache=False)


def as_json(fig) -> dict:
    return json.loads(fig.to_json())


def values(data) -> np.ndarray:
    """A trace's array as JSON has it: a list, or plotly's base64 typed array {dtype, bdata, shape}."""
    if isinstance(data, dict) and "bdata" in data:
        flat = np.frombuffer(base64.b64decode(data["bdata"]), dtype=np.dtype(data["dtype"]))
        shape = data.get("shape")
        return flat.reshape([int(n) for n in str(shape).split(",")]) if shape else flat
    return np.array(data, dtype=float)


def trace_named(spec: dict, name: str) -> dict:
    return next(d for d in spec["data"] if d.get("name") == name)


def assert_labelled(spec: dict, title: str, x_title: str, y_title: str | None = None) -> None:
    layout = spec["layout"]
    assert layout["title"]["text"].replace("<br>", "") == title  # wrapped for phones
    assert layout["xaxis"]["title"]["text"] == x_title
    if y_title is not None:
        assert layout["yaxis"]["title"]["text"] == y_title
    assert layout["showlegend"] is True
    assert all(d.get("name") for d in spec["data"]), "every trace needs a legend name"


def test_run_is_complete(eager_run):
    r = eager_run
    assert r.status == RunStatus.DONE and r.request is not None
    assert [s.phase for s in r.steps] == ["prefill"] + ["decode"] * (len(r.steps) - 1)
    assert len(r.tokens) == len(r.pieces) == len(r.steps) == r.request.metrics.num_output_tokens
    assert all(s.attention is None for s in r.steps), "tensors must not stay in the records"


def test_kv_steps_agree_with_engine_accounting(eager_run):
    rows = kv_steps(eager_run.steps, eager_run.block_size)
    L = eager_run.num_prompt_tokens
    assert [r.cached_tokens for r in rows] == [L + i for i in range(len(rows))]
    assert [r.computed_rows for r in rows] == [L] + [1] * (len(rows) - 1)
    for row, step in zip(rows[:-1], eager_run.steps[:-1]):  # the last step has already freed its blocks
        assert (row.cached_tokens, row.blocks) == (step.kv_tokens, step.kv_blocks)


def test_kv_tokens_figure(eager_run):
    spec = as_json(kv_tokens_figure(eager_run.steps, eager_run.block_size))
    assert_labelled(spec, "KV cache per step: tokens and blocks", "engine step", "tokens")
    assert spec["layout"]["yaxis2"]["title"]["text"] == "blocks"
    prefill, decode = trace_named(spec, "prefill"), trace_named(spec, "decode")
    assert prefill["x"] == [0] and prefill["y"] == [eager_run.num_prompt_tokens]
    assert decode["y"] == [s.seqs[0].context_len for s in eager_run.steps[1:]]
    blocks = trace_named(spec, "blocks allocated (16 tokens each)")
    assert blocks["y"] == [math.ceil(s.seqs[0].context_len / 16) for s in eager_run.steps]
    assert trace_named(spec, "K,V rows computed this step")["y"] == [s.num_tokens for s in eager_run.steps]


def test_kv_bytes_figure_uses_the_formula(eager_run, tiny):
    m = eager_run.model
    per_token = 2 * m.num_layers * m.num_kv_heads * m.head_dim * 4
    assert m.kv_bytes_per_token == per_token == tiny.model.config.kv_bytes_per_token(4)
    spec = as_json(kv_bytes_figure(eager_run.steps, eager_run.block_size, m.num_layers, per_token))
    title = f"KV cache bytes per step (each of the {m.num_layers} layers holds an equal share)"
    assert_labelled(spec, title, "engine step", "MiB")
    tokens = [s.seqs[0].context_len for s in eager_run.steps]
    (total,) = spec["data"]  # one curve on one axis: a layer's share is the same curve, in the hover
    assert total["name"] == "total (MiB)" and "yaxis2" not in spec["layout"]
    assert total["y"] == pytest.approx([n * per_token / MIB for n in tokens])
    assert total["customdata"] == pytest.approx([n * per_token / m.num_layers / KIB for n in tokens])
    assert "KiB per layer" in total["hovertemplate"]


def test_kv_formula_is_filled_in():
    text = kv_formula(30, 3, 64, 12, 4)
    for number in ("30", "3", "64", "12", "4", "552{,}960"):
        assert number in text
    assert r"\text{kv\_heads}" in text
    zh = kv_formula(30, 3, 64, 12, 4, "zh")  # the subscripts follow the language
    assert r"\text{层}" in zh and r"\text{KV 头}" in zh and "layers" not in zh and "552{,}960" in zh


def test_shapes_figure_is_to_scale(eager_run):
    D, L = eager_run.model.head_dim, eager_run.num_prompt_tokens
    spec = as_json(shapes_figure(eager_run.steps, 2, D))
    assert spec["layout"]["title"]["text"].startswith("Attention shapes per head")
    assert spec["layout"]["xaxis"]["title"]["text"] == "elements"
    titles = [a["text"].replace("<br>", "") for a in spec["layout"]["annotations"]]  # wrapped for phones
    assert f"step 0 (prefill): T={L}, C={L}" in titles and f"step 2 (decode): T=1, C={L + 2}" in titles
    scores = [d for d in spec["data"] if d["name"].startswith("S = ")]
    sizes = [(max(d["x"]) - min(d["x"]), max(d["y"]) - min(d["y"])) for d in scores]
    assert sizes == [(L, L), (L + 2, 1)]  # L x L in prefill, 1 x C in decode: widths C, heights T
    q = [d for d in spec["data"] if d["name"].startswith("Q ")]
    assert [(max(d["x"]) - min(d["x"]), max(d["y"]) - min(d["y"])) for d in q] == [(D, L), (D, 1)]
    assert spec["layout"]["yaxis"]["scaleanchor"] == "x"  # one unit is the same length on both axes


def test_a_long_prompts_shapes_leave_room_for_their_labels_and_count_from_zero():
    """At L = 778 the ruler starts at 0 (V rose above Kᵀ into negative numbers) and the range leaves
    room under the lowest matrices and over the highest for their labels (they sat on the axis's
    numbers and on the panel titles)."""
    from types import SimpleNamespace

    def step(i, T, C, phase):
        return SimpleNamespace(step=i, phase=phase, seqs=[SimpleNamespace(num_tokens=T, context_len=C)])

    steps = [step(0, 778, 778, "prefill")] + [step(i, 1, 778 + i, "decode") for i in range(1, 31)]
    spec = as_json(shapes_figure(steps, 30, 64))
    ys = [y for d in spec["data"] for y in d["y"]]
    bottom, top = spec["layout"]["yaxis"]["range"]  # reversed: y grows downwards
    assert min(ys) == 0 and top < 0 and -top >= 0.05 * max(ys)
    assert bottom - max(ys) >= 0.1 * max(ys)
    layout = spec["layout"]  # the legend a fixed 70 px under the plot: clear of the "elements" axis title
    plot_px = layout["height"] - layout["margin"]["t"] - layout["margin"]["b"]
    assert -layout["legend"]["y"] * plot_px >= 69 and layout["margin"]["b"] >= 110


def test_attention_matrix_triangle_then_rows(eager_run):
    L, n = eager_run.num_prompt_tokens, len(eager_run.steps)
    m = attention_matrix(eager_run.attention, layer=1, head=3)
    assert m.shape == (L + n - 1, L + n - 1)
    assert np.isnan(m[0, 1:]).all() and not np.isnan(m[L - 1, :L]).any()  # causal triangle
    assert np.allclose(np.nansum(m, axis=1), 1.0, atol=1e-2)  # each row is a distribution
    raw = eager_run.attention[0][1][3].astype(np.float32)  # (L, L) of layer 1, head 3 in prefill
    assert np.allclose(m[:L, :L][~np.isnan(m[:L, :L])], raw[np.tril(np.ones((L, L), bool))])


def test_attention_heatmap_escapes_labels(eager_run):
    m = attention_matrix(eager_run.attention, 0, 0)
    labels = ["<script>alert(1)</script>"] * m.shape[1]
    spec = as_json(attention_heatmap(m, labels, eager_run.num_prompt_tokens, 0, 0))
    assert_labelled(spec, "Attention probabilities, layer 0, head 0", "key position: token", "query position: token")
    heat = spec["data"][0]
    assert np.allclose(values(heat["z"]), m, equal_nan=True)
    text = json.dumps(spec)
    assert "<script>" not in text and "&lt;script&gt;" in text
    assert trace_named(spec, "prefill ends, decode rows below")["y"][0] == eager_run.num_prompt_tokens - 0.5


def test_latency_figure_matches_metrics(eager_run):
    metrics = eager_run.request.metrics
    spec = as_json(latency_figure(eager_run.tokens, eager_run.arrival))
    assert_labelled(spec, "Latency of each output token", "output token (#)", "time (ms)")
    assert trace_named(spec, "TTFT (prefill)")["y"] == pytest.approx([metrics.ttft_ms])
    assert trace_named(spec, "ITL (decode)")["y"] == pytest.approx(metrics.itl_ms)
    tpot = trace_named(spec, f"TPOT = {metrics.tpot_ms:.1f} ms")
    assert tpot["y"] == pytest.approx([metrics.tpot_ms] * 2)
    with_steps = as_json(latency_figure(eager_run.tokens, eager_run.arrival, steps=eager_run.steps))
    engine = trace_named(with_steps, "the engine's own time behind it")["y"]
    assert engine == pytest.approx([s.ms for s in eager_run.steps])  # one step per token, unchunked
    gaps = [metrics.ttft_ms, *metrics.itl_ms]
    assert all(e <= g for e, g in zip(engine, gaps))  # the engine's time is inside the wait for the token


def test_a_chunked_prefills_steps_all_stand_behind_the_first_token():
    from engine.observe.trace import TokenEvent

    steps = [SimpleNamespace(step=i, ms=ms) for i, ms in enumerate([30.0, 40.0, 50.0, 10.0])]
    tokens = [TokenEvent(0, k, 1, "x", "decode", step, 0.0) for k, step in enumerate([2, 3])]
    assert engine_ms_per_token(tokens, steps) == [120.0, 10.0]  # three prefill chunks, then one decode


def test_time_share_adds_up_to_e2e(eager_run):
    metrics = eager_run.metrics
    spec = as_json(time_share_figure(metrics))
    assert_labelled(spec, "Where the request's time went", "time (ms)")
    values = [d["x"][0] for d in spec["data"]]
    assert values == pytest.approx([metrics.ttft_ms, metrics.e2e_ms - metrics.ttft_ms])
    assert sum(values) == pytest.approx(metrics.e2e_ms)


def test_memory_figure(eager_run):
    steps = eager_run.steps
    spec = as_json(memory_figure(steps, eager_run.block_size, eager_run.model.kv_bytes_per_token))
    assert_labelled(spec, "Peak transient memory per step", "engine step", "MiB")
    assert trace_named(spec, "peak, prefill")["y"] == pytest.approx([steps[0].peak_bytes / MIB])
    assert trace_named(spec, "peak, decode")["y"] == pytest.approx([s.peak_bytes / MIB for s in steps[1:]])
    assert steps[0].peak_bytes > max(s.peak_bytes for s in steps[1:])  # the prefill spike


def test_no_cache_run_recomputes(no_cache_run):
    rows = kv_steps(no_cache_run.steps, no_cache_run.block_size)
    L = no_cache_run.num_prompt_tokens
    assert [r.cached_tokens for r in rows] == [0] * len(rows)  # nothing is kept between steps
    assert [r.computed_rows for r in rows] == [L + i for i in range(len(rows))]
    m = attention_matrix(no_cache_run.attention, 0, 0)  # recomputed steps keep only the new token's row
    assert m.shape == (L + len(rows) - 1, L + len(rows) - 1)


def test_figures_in_chinese(eager_run):
    spec = as_json(kv_tokens_figure(eager_run.steps, eager_run.block_size, lang="zh"))
    assert spec["layout"]["title"]["text"] == "每步的 KV 缓存：token 与块"
    assert {d["name"] for d in spec["data"]} >= {"预填充", "解码"}
