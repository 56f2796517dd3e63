"""vLLM's metric definitions and the analytic cost model, against hand-computed values."""

from __future__ import annotations

import pytest

from engine.config import PRESETS
from engine.observe.costmodel import SeqWork, causal_pairs, step_cost
from engine.observe.request_metrics import RequestMetrics, percentiles, tail_is_max
from lab.remote_metrics import Histogram
from tests.engine_support import TINY_CONFIG


def test_metrics_follow_vllm_definitions():
    m = RequestMetrics.from_times(arrival=1.0, token_times=[1.5, 1.6, 1.8, 2.1])
    assert m.ttft_ms == pytest.approx(500)
    assert m.e2e_ms == pytest.approx(1100)
    assert m.tpot_ms == pytest.approx((1100 - 500) / 3)
    assert m.itl_ms == pytest.approx([100, 200, 300])
    assert RequestMetrics.from_times(0.0, [0.2]).tpot_ms is None


def test_percentiles_interpolate_between_ranks_as_numpy_and_vllm_do():
    """Worked by hand: the p-th percentile of n sorted values sits at rank p/100 · (n − 1), linear
    between the two values around it, once n resolves it: with fewer than 100 / (100 − p) values
    none lies above it, and it is their maximum (a P99 of 5 values is not 96.16, it is 100)."""
    p = percentiles([100, 2, 4, 1, 3])  # sorted: 1 2 3 4 100
    assert p == {"p50": 3, "p90": 100, "p99": 100, "mean": 22, "n": 5}
    ten = percentiles(list(range(1, 11)), ps=(90, 99))
    assert ten == {"p90": pytest.approx(9.1), "p99": 10, "mean": 5.5, "n": 10}  # P90: rank 8.1; P99: the max
    hundred = percentiles(list(range(1, 101)), ps=(90, 99))
    assert hundred["p99"] == pytest.approx(99.01) and hundred["n"] == 100  # rank 98.01: resolved at n = 100
    assert percentiles([7.0]) == {"p50": 7.0, "p90": 7.0, "p99": 7.0, "mean": 7.0, "n": 1}
    empty = percentiles([])
    assert empty.pop("n") == 0 and all(v != v for v in empty.values())  # no values: NaN, not 0
    assert [tail_is_max(99, n) for n in (8, 99, 100)] == [True, True, False]
    assert [tail_is_max(90, n) for n in (9, 10)] == [True, False] and not tail_is_max(50, 2)


def test_percentiles_are_labelled_with_their_n():
    from ui.percentile_labels import shown_stats, stat_cell, stat_label

    assert stat_label("p99", 8, "en") == "max of 8" and stat_label("p90", 40, "en") == "P90 of 40"
    assert stat_label("p99", 8, "zh") == "8 个中的最大值"
    assert shown_stats(("p50", "p90", "p99"), 8) == ["p50", "p90"]  # P90 and P99 of 8: one maximum
    assert shown_stats(("p50", "p90", "p99"), 40) == ["p50", "p90", "p99"]
    assert shown_stats(("p50", "p90", "p99"), 200) == ["p50", "p90", "p99"]
    assert stat_cell(123.45, "p99", 8) == "123.5 (max)" and stat_cell(123.45, "p99", 150) == "123.5"


def test_histogram_quantiles_interpolate_inside_their_bucket_as_prometheus_does():
    """Buckets ≤0.1 s: 5 requests, ≤0.5 s: 3 more, above: 2 more (10 in all)."""
    h = Histogram([(0.1, 5.0), (0.5, 8.0), (float("inf"), 10.0)], 10.0, 3.0)
    assert h.quantile(0.5) == pytest.approx(0.1)  # rank 5: the top of the first bucket
    assert h.quantile(0.2) == pytest.approx(0.1 * 2 / 5)  # rank 2 of 5 in (0, 0.1]
    assert h.quantile(0.7) == pytest.approx(0.1 + 0.4 * 2 / 3)  # rank 7: 2 of 3 into (0.1, 0.5]
    assert h.quantile(0.9) == 0.5  # rank 9 is in the +Inf bucket: its lower bound, as histogram_quantile
    assert Histogram([(0.1, 0.0), (float("inf"), 0.0)], 0.0, 0.0).quantile(0.9) is None


def test_causal_pairs():
    assert causal_pairs(4, 4) == 10  # a 4x4 lower triangle
    assert causal_pairs(1, 9) == 9  # one decode row
    assert causal_pairs(2, 5) == 2 * 3 + 3  # a chunk of 2 after 3 cached tokens


def test_flops_and_bytes_for_a_tiny_config_by_hand():
    # per layer per token: qkv 8*(8+4+4)=128, o 8*8=64, mlp 3*8*16=384 -> 576 MACs; x2 FLOPs x2 layers = 2304
    cost = step_cost(TINY_CONFIG, [SeqWork(num_tokens=3, context_len=3)], dtype_bytes=4)
    # + the LM head on the last position only; - the last layer's o and MLP (2 x (64 + 384) = 896) for the
    # two positions not sampled
    assert cost.flops_linear == 3 * 2304 + 2 * 8 * 10 - 2 * 896
    assert cost.flops_attention == 4 * 2 * 2 * 4 * 6  # 4 x layers x heads x head_dim x 6 causal pairs
    params = TINY_CONFIG.num_params
    assert params == 2 * (128 + 64 + 384 + 16) + 10 * 8 * 2 + 8
    weights = (params - 80) * 4  # every weight but the embedding table (only 3 rows read) ...
    assert cost.weight_bytes == weights + 3 * 8 * 4  # ... plus those rows
    kv_token = 2 * 2 * 1 * 4 * 4
    assert cost.kv_read_bytes == 3 * kv_token and cost.kv_write_bytes == 3 * kv_token


def test_llama7b_decode_is_bandwidth_bound_and_prefill_compute_bound():
    c = PRESETS["LLaMA-7B"]
    decode = step_cost(c, [SeqWork(1, 512)], dtype_bytes=2)
    prefill = step_cost(c, [SeqWork(512, 512)], dtype_bytes=2)
    assert c.num_params == pytest.approx(6.74e9, rel=0.01)
    assert decode.intensity < 2 < 200 < prefill.intensity
