"""The KV hand-off calculator (lab/pd_transfer.py) against hand-worked numbers and the engine's own bytes."""

from __future__ import annotations

import pytest

from engine.config import PRESETS
from engine.errors import LabError
from lab.pd_transfer import LINKS, MLA_PRESETS, calculator, kv_transfer_bytes, mla_transfer_bytes, transfer_rows


def test_llama3_8b_hands_over_128_kib_per_token_in_bf16():
    c = PRESETS["Llama-3-8B"]  # 32 layers, 8 KV heads of 128: GQA
    assert kv_transfer_bytes(c, 1) == 32 * 2 * 8 * 128 * 2 == 128 * 1024
    assert kv_transfer_bytes(c, 4096) == 512 * 1024**2
    assert kv_transfer_bytes(c, 4096, "fp8") == 256 * 1024**2
    assert kv_transfer_bytes(c, 1, "int8") == 64 * 1024 + 32 * 2 * 8 * 4  # the scales travel too


def test_a_transfer_hides_behind_a_long_prefill_on_a_fast_link_only():
    rows = {r.link: r for r in transfer_rows(PRESETS["Llama-3-8B"], 4096, "H100 SXM")}
    assert set(rows) == set(LINKS)
    nv, eth = rows["NVLink 4 (H100, per direction)"], rows["25 GbE"]
    assert nv.transfer_s == pytest.approx(512 * 1024**2 / 450e9)
    assert nv.hides and not eth.hides  # ~1.2 ms against ~170 ms on 25 GbE; the prefill takes tens of ms
    assert nv.prefill_s == eth.prefill_s > nv.transfer_s


def test_the_engines_own_hand_off_moves_the_formulas_bytes(tiny):
    from engine import Engine, EngineConfig, SamplingParams
    from engine.core.kv_transfer import prefill

    engine = Engine(tiny.model, tiny.tokenizer, EngineConfig(probe_memory=False, kv_dtype="bfloat16"))
    h = prefill(engine, "The quick brown fox", SamplingParams(max_new_tokens=2))
    assert h.nbytes == kv_transfer_bytes(tiny.model.config, h.num_tokens, "bfloat16")


def test_mla_hands_over_one_compressed_latent_per_token_and_layer():
    m = MLA_PRESETS["DeepSeek-V3 (MLA)"]
    assert mla_transfer_bytes(m, 1) == 61 * 576 * 2 == 70_272  # ~69 KiB: about half of Llama-3-8B's 128 KiB
    assert mla_transfer_bytes(m, 1, "int8") == 61 * 576 + 61 * 4
    n, rows, links = calculator("DeepSeek-V3 (MLA)", 1000, "H100 SXM", "bfloat16")
    assert n == 70_272_000 and rows is None  # no dense prefill projection for a mixture of experts
    assert dict(links)["25 GbE"] == pytest.approx(n / (25 / 8 * 1e9))
    dense, rows, _ = calculator("Llama-3-8B", 1000, "H100 SXM", "bfloat16")
    assert dense == kv_transfer_bytes(PRESETS["Llama-3-8B"], 1000) and len(rows) == len(LINKS)


def test_bad_input_is_named():
    with pytest.raises(LabError, match="Unknown KV dtype"):
        kv_transfer_bytes(PRESETS["Llama-3-8B"], 10, "fp4")
    with pytest.raises(LabError, match="at least one token"):
        kv_transfer_bytes(PRESETS["Llama-3-8B"], 0)
