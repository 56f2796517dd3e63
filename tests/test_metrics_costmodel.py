"""vLLM's metric definitions and the analytic cost model, against hand-computed values."""

from __future__ import annotations

import pytest

from engine.config import PRESETS, ModelConfig
from engine.costmodel import SeqWork, causal_pairs, step_cost
from engine.metrics import RequestMetrics, percentiles

TINY = ModelConfig(
    name="t",
    num_layers=2,
    hidden_size=8,
    num_heads=2,
    num_kv_heads=1,
    head_dim=4,
    ffn_size=16,
    vocab_size=10,
    max_position=64,
)


def test_metrics_follow_vllm_definitions():
    m = RequestMetrics.from_times(arrival=1.0, token_times=[1.5, 1.6, 1.8, 2.1])
    assert m.ttft_ms == pytest.approx(500)
    assert m.e2e_ms == pytest.approx(1100)
    assert m.tpot_ms == pytest.approx((1100 - 500) / 3)
    assert m.itl_ms == pytest.approx([100, 200, 300])
    assert RequestMetrics.from_times(0.0, [0.2]).tpot_ms is None


def test_percentiles():
    p = percentiles([1, 2, 3, 4, 100])
    assert p["p50"] == 3 and p["mean"] == 22


def test_causal_pairs():
    assert causal_pairs(4, 4) == 10  # a 4x4 lower triangle
    assert causal_pairs(1, 9) == 9  # one decode row
    assert causal_pairs(2, 5) == 2 * 3 + 3  # a chunk of 2 after 3 cached tokens


def test_flops_and_bytes_for_a_tiny_config_by_hand():
    # per layer per token: qkv 8*(8+4+4)=128, o 8*8=64, mlp 3*8*16=384 -> 576 MACs; x2 FLOPs x2 layers = 2304
    cost = step_cost(TINY, [SeqWork(num_tokens=3, context_len=3)], dtype_bytes=4)
    assert cost.flops_linear == 3 * 2304 + 2 * 8 * 10  # + the LM head on the last position only
    assert cost.flops_attention == 4 * 2 * 2 * 4 * 6  # 4 x layers x heads x head_dim x 6 causal pairs
    params = TINY.num_params
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
