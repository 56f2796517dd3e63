"""The cost model and the projection against numbers computed by hand for LLaMA-7B, and the roofline
helpers, the hardware cache and the engine's roofline run on a tiny model.

LLaMA-7B (config.json): 32 layers, hidden 4096, 32 heads, 32 KV heads (MHA), head_dim 128,
FFN 11008, vocab 32000, untied embeddings.

Parameters, by hand:
  attention per layer  q, k, v, o = 4 x 4096 x 4096                    =    67,108,864
  MLP per layer        gate, up, down = 3 x 4096 x 11008               =   135,266,304
  linear per layer                                                      =   202,375,168
  all 32 layers' linear weights  32 x 202,375,168                       = 6,476,005,376
  + 2 RMSNorms per layer 32 x 2 x 4096 = 262,144; final norm 4,096
  + embedding 32000 x 4096 = 131,072,000; LM head the same (untied)
  total = 6,476,005,376 + 262,144 + 4,096 + 2 x 131,072,000          = 6,738,415,616
Linear FLOPs per token = 2 x 6,476,005,376 = 12,952,010,752; LM head = 2 x 4096 x 32000 = 262,144,000.
Attention FLOPs = 4 x layers x heads x head_dim x pairs = 4 x 32 x 32 x 128 x pairs = 524,288 x pairs.
KV bytes per token (fp16) = 2 x 32 x 32 x 128 x 2 = 524,288.
Weights read per step (fp16) = every parameter except the embedding table, plus the LM head matrix
  = (6,738,415,616 - 131,072,000) x 2 = 13,214,687,232 bytes; plus one embedding row per new token
  (4096 x 2 = 8,192 bytes).
"""

from __future__ import annotations

import json

import pytest

from engine.config import PRESETS
from engine.observe.costmodel import (
    attainable_flops_per_s,
    decode_cost,
    layer_weight_bytes,
    prefill_cost,
    ridge_intensity,
    utilisation,
)
from lab.projection import GPU_PRESETS, kv_capacity, predict_tpot, predict_ttft

LLAMA = PRESETS["LLaMA-7B"]
WEIGHT_READ = 13_214_687_232


def test_llama7b_parameters_and_weight_bytes_by_hand():
    assert LLAMA.num_params == 6_738_415_616
    assert layer_weight_bytes(LLAMA, 2) == WEIGHT_READ
    assert LLAMA.kv_bytes_per_token(2) == 524_288


def test_llama7b_prefill_of_128_tokens_by_hand():
    cost = prefill_cost(LLAMA, 128, dtype_bytes=2)
    # linear: 128 x 12,952,010,752 = 1,657,857,376,256; + one LM head (only the last position) 262,144,000;
    # - the last layer's o and MLP for the 127 positions not sampled: 127 x 2 x (4096 x 4096 + 3 x 4096 x
    # 11008) = 127 x 304,087,040 = 38,619,054,080
    assert cost.flops_linear == 1_657_857_376_256 + 262_144_000 - 38_619_054_080 == 1_619_500_466_176
    # causal pairs 128 x 129 / 2 = 8,256; x 524,288 = 4,328,521,728
    assert cost.flops_attention == 4_328_521_728
    assert cost.flops == 1_623_828_987_904
    # bytes: weights 13,214,687,232 + 128 embedding rows 1,048,576 + KV read 128 x 524,288 + KV written the same
    assert cost.weight_bytes == WEIGHT_READ + 1_048_576
    assert cost.kv_read_bytes == cost.kv_write_bytes == 67_108_864
    assert cost.bytes_moved == 13_349_953_536
    assert cost.intensity == pytest.approx(121.64, abs=0.01)  # ~L FLOP/byte: each weight byte used ~128 times


def test_llama7b_decode_step_by_hand():
    cost = decode_cost(LLAMA, batch=1, context_len=129, dtype_bytes=2)  # 128 cached + the new token
    assert cost.flops_linear == 12_952_010_752 + 262_144_000
    assert cost.flops_attention == 524_288 * 129  # 67,633,152: one query sees 129 keys
    assert cost.flops == 13_281_787_904
    # weights + 1 embedding row + KV read 129 x 524,288 + KV written 524,288
    assert cost.bytes_moved == WEIGHT_READ + 8_192 + 67_633_152 + 524_288 == 13_282_852_864
    assert cost.intensity == pytest.approx(0.99992, abs=1e-5)  # ~1 FLOP per byte at batch 1 in fp16
    # a batch of 8 reads the weights once: 8 x 13,281,787,904 = 106,254,303,232 FLOPs over
    # 13,214,687,232 + 8 x (8,192 + 67,633,152 + 524,288) = 13,760,012,288 bytes: intensity 7.72, ~8x
    batch8 = decode_cost(LLAMA, 8, 129, 2)
    assert batch8.flops == 106_254_303_232 and batch8.bytes_moved == 13_760_012_288
    assert batch8.intensity == pytest.approx(7.722, abs=1e-3)


def test_roofline_helpers():
    assert ridge_intensity(312e12, 2039e9) == pytest.approx(153.0, abs=0.1)
    assert attainable_flops_per_s(1.0, 312e12, 2039e9) == 2039e9  # bandwidth slope
    assert attainable_flops_per_s(500.0, 312e12, 2039e9) == 312e12  # compute roof
    cost = decode_cost(LLAMA, 1, 129, 2)
    u = utilisation(cost, 0.010, 312e12, 2039e9)  # a 10 ms decode step on an A100
    assert u.bytes_per_s == pytest.approx(1.328e12, rel=1e-3) and u.bandwidth_share == pytest.approx(0.651, abs=1e-3)
    assert u.compute_share == pytest.approx(13_281_787_904 / 0.010 / 312e12)
    with pytest.raises(ValueError, match="positive"):
        utilisation(cost, 0.0, 1.0, 1.0)


def test_projection_by_hand_on_an_a100():
    a100 = GPU_PRESETS["A100 80GB SXM"]
    tpot = predict_tpot(LLAMA, 1, 129, a100.peak_flops_per_s, a100.bytes_per_s, 2, None, 0.7, 0.7)
    assert tpot.bound == "memory"
    assert tpot.seconds == pytest.approx(13_282_852_864 / (0.7 * 2039e9))  # 9.31 ms
    ttft = predict_ttft(LLAMA, 128, a100.peak_flops_per_s, a100.bytes_per_s, 2, 0.7, 0.7)
    assert ttft.compute_s == pytest.approx(1_623_828_987_904 / (0.7 * 312e12))  # 7.44 ms
    assert ttft.weight_read_s == pytest.approx(WEIGHT_READ / (0.7 * 2039e9))  # 9.26 ms
    # a big enough batch crosses the ridge: decode becomes compute-bound
    assert predict_tpot(LLAMA, 1024, 129, a100.peak_flops_per_s, a100.bytes_per_s).bound == "compute"
    with pytest.raises(ValueError, match="efficiency"):
        predict_ttft(LLAMA, 128, 1.0, 1.0, 2, 1.5, 0.7)


def test_kv_capacity_mha_vs_gqa_by_hand():
    # 80 GB x 0.9 = 72e9; LLaMA-7B weights 6,738,415,616 x 2 = 13,476,831,232 -> 58,523,168,768 bytes free;
    # one 4096-token sequence of fp16 KV = 4096 x 524,288 = 2,147,483,648 -> 27 sequences
    cap = kv_capacity(LLAMA, 80e9, 4096, 2, 2)
    assert cap.free_bytes == pytest.approx(58_523_168_768) and cap.num_seqs == 27
    assert kv_capacity(LLAMA, 80e9, 4096, 2, 1).num_seqs == 54  # fp8 / int8 KV: half the bytes
    # Llama-3-8B: 8 KV heads -> 2 x 32 x 8 x 128 x 2 = 131,072 bytes per token, a quarter of LLaMA-7B's
    l3 = PRESETS["Llama-3-8B"]
    assert l3.kv_bytes_per_token(2) == 131_072
    assert kv_capacity(l3, 80e9, 4096, 2, 2).num_seqs == int((72e9 - l3.num_params * 2) // (4096 * 131_072))
    assert kv_capacity(PRESETS["Llama-3-70B"], 80e9, 4096).num_seqs == 0  # 141 GB of weights
    with pytest.raises(ValueError, match="context"):
        kv_capacity(LLAMA, 80e9, 0)


def test_hardware_cache_is_keyed_by_machine(tmp_path, monkeypatch):
    from lab import hardware

    monkeypatch.setenv(hardware.CACHE_ENV, str(tmp_path / "hw.json"))
    calls = []

    def fake_measure(device, progress=None):
        calls.append(device)
        return hardware.DeviceCeilings(
            device,
            "test CPU",
            1e10,
            {"float32": 1e11, "bfloat16": None, "float16": None},
            "k",
            2,
            "t",
            key=hardware.machine_key(device),
            read_how="a fake read",
        )

    monkeypatch.setattr(hardware, "measure_device_ceilings", fake_measure)
    first = hardware.machine_ceilings("cpu")
    assert hardware.machine_ceilings("cpu").read_bytes_per_s == first.read_bytes_per_s and calls == ["cpu"]
    hardware.machine_ceilings("cpu", remeasure=True)
    assert calls == ["cpu", "cpu"]
    assert list(json.loads((tmp_path / "hw.json").read_text())) == [hardware.machine_key("cpu")]
    assert first.ridge_point("float32") == 10.0
    with pytest.raises(ValueError, match="bfloat16"):
        first.peak_flops("bfloat16")
    monkeypatch.setattr(hardware, "machine_key", lambda device="cpu": "another machine")
    assert hardware.cached_ceilings("cpu") is None  # another machine never reuses this measurement


def test_ceilings_measured_busy_are_marked_and_measured_again_when_quiet(tmp_path, monkeypatch):
    """A cached entry measured while other work took the cores (or, before that was kept, at a load
    average of a task per core) is marked busy; the roofline page's call measures it again once the
    machine reads quiet, and not while it is still busy; other callers keep the cache."""
    from lab import hardware

    monkeypatch.setenv(hardware.CACHE_ENV, str(tmp_path / "hw.json"))
    other = iter([1.2, 0.0])

    def fake_measure(device, progress=None):
        return hardware.DeviceCeilings(
            device, "test CPU", 1e10, {"float32": 1e11}, "k", 2, "t", key=hardware.machine_key(device),
            read_how="a fake read", other_cores=next(other), cores=2,
        )  # fmt: skip

    monkeypatch.setattr(hardware, "measure_device_ceilings", fake_measure)
    first = hardware.machine_ceilings("cpu")
    assert first.busy and first.machine.other_cores == 1.2
    monkeypatch.setattr(hardware, "quiet_now", lambda seconds=0.5: False)
    assert hardware.machine_ceilings("cpu", refresh_busy=True).busy  # still busy now: kept
    monkeypatch.setattr(hardware, "quiet_now", lambda seconds=0.5: True)
    assert hardware.machine_ceilings("cpu").busy  # only the page that asks refreshes it
    fresh = hardware.machine_ceilings("cpu", refresh_busy=True)
    assert not fresh.busy and not hardware.cached_ceilings("cpu").busy  # measured again, and cached
    legacy = hardware.DeviceCeilings("cpu", "x", 1e10, {}, "k", 2, "t", load_average=5.2, cores=2)
    assert legacy.busy and legacy.machine is None  # the load average, not a reading of other work
    assert not hardware.DeviceCeilings("cpu", "x", 1e10, {}, "k", 2, "t", load_average=0.3, cores=2).busy


def test_a_cached_read_roof_that_does_not_say_how_is_measured_again(tmp_path, monkeypatch):
    """Entries from before the read roof named its method measured torch.sum alone, which a decode on
    the C kernel can outrun: they are not reused."""
    from engine.observe.machine import write_cache
    from lab import hardware

    monkeypatch.setenv(hardware.CACHE_ENV, str(tmp_path / "hw.json"))
    old = {"device": "cpu", "device_name": "x", "read_bytes_per_s": 1e10, "gemm_flops_per_s": {"float32": 1e11},
           "gemm_kernel": "k", "threads": 2, "torch_version": "t"}  # fmt: skip
    write_cache(tmp_path / "hw.json", {hardware.machine_key("cpu"): old})
    assert hardware.cached_ceilings("cpu") is None
    write_cache(tmp_path / "hw.json", {hardware.machine_key("cpu"): old | {"read_how": "torch.sum over 1 GiB"}})
    assert hardware.cached_ceilings("cpu").read_how == "torch.sum over 1 GiB"


def test_the_read_roof_is_the_faster_of_torch_sum_and_the_c_kernel(monkeypatch):
    from lab import hardware

    rate, how = hardware.measure_read("cpu", 1 << 26, 2)
    assert rate > 0 and how.endswith("over 0.0625 GiB")
    monkeypatch.setattr(hardware, "_c_stream_rate", lambda n, r: 1e15)  # a stream faster than any sum
    assert hardware.measure_read("cpu", 1 << 26, 1) == (1e15, "our C gemv, one row over 0.0625 GiB")
    monkeypatch.setattr(hardware, "_c_stream_rate", lambda n, r: None)  # no C kernels here
    assert hardware.measure_read("cpu", 1 << 26, 1)[1] == "torch.sum over 0.0625 GiB"


def test_engine_roofline_run_on_tiny(tiny):
    from lab.roofline import rate_ratio, run_roofline, summarise

    landed = []
    points, load = run_roofline(tiny.model, tiny.tokenizer, list(range(10, 22)), [1, 2], 3, on_round=landed.append)
    assert [len(x) for x in landed] == [2, 4, 6, 8] and landed[-1] == points  # a step per batch size a round
    assert [(p.batch, p.phase) for p in points] == [(1, "prefill")] + [(1, "decode")] * 3 + [(2, "prefill")] + [
        (2, "decode")
    ] * 3
    assert all(p.ms > 0 and p.flops > 0 for p in points)
    rows = summarise(points)
    assert [(r.phase, r.batch, r.num_steps) for r in rows] == [
        ("prefill", 1, 1),
        ("prefill", 2, 1),
        ("decode", 1, 3),
        ("decode", 2, 3),
    ]
    r = rate_ratio(points, 2, 1, load=load)  # the batch sizes raced a step each in turn: decode steps pair
    assert r.n == 3 and r.load is load and rate_ratio(points, 4, 1) is None
    with pytest.raises(ValueError, match="context"):
        run_roofline(tiny.model, tiny.tokenizer, list(range(500)), [1], 20)
