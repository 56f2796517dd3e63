"""The roofline lab page under streamlit.testing's AppTest, on a tiny random model. The hardware cache
points at a temporary file; the first visit measures it (a few seconds, with progress)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import torch

from app_pages import page_file
from lab.busy import MachineLoad
from lab.hardware import CACHE_ENV
from tests.app_helpers import errors, table_with
from tests.figure_checks import charts

PAGE = page_file("roofline")


@pytest.fixture(scope="module")
def cache_file(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("hw") / "hardware.json"


@pytest.fixture
def app_env(cache_file, monkeypatch) -> None:
    monkeypatch.setenv(CACHE_ENV, str(cache_file))  # a file of the module's own: its first app measures


def test_ceilings_measured_once_and_cached(app, cache_file):
    data = json.loads(cache_file.read_text())
    ((key, entry),) = data.items()
    assert "threads=" in key and "torch=" in key and entry["device"] == "cpu"
    assert entry["read_bytes_per_s"] > 1e8 and entry["gemm_flops_per_s"]["float32"] > 1e8
    table = table_with(app, "GEMM GFLOP/s")
    assert list(table["dtype"]) == ["float32", "bfloat16", "float16"]
    assert float(table["GEMM GFLOP/s"][0]) == pytest.approx(entry["gemm_flops_per_s"]["float32"] / 1e9, abs=0.1)
    shown = {m.label: m.value for m in app.metric}
    assert shown["read bandwidth"] == f"{entry['read_bytes_per_s'] / 1e9:.1f} GB/s"
    # re-measuring writes a new measurement (a later timestamp) under the same key, with progress
    at = app.button(key="rf_remeasure").click().run()
    assert not at.exception and not errors(at)
    fresh = json.loads(cache_file.read_text())[key]
    assert fresh["measured_at"] > entry["measured_at"]
    assert any(s.label == "Ceilings measured and cached" for s in at.get("status"))
    assert fresh["load_average"] is not None and any("Load average when measured" in c.value for c in at.caption)


def test_roofline_points_for_both_phases(app):
    assert any("Run the roofline" in i.value for i in app.info)
    app.number_input(key="rf_L").set_value(16)
    app.number_input(key="rf_steps").set_value(3)
    app.multiselect(key="rf_batches").set_value([1, 4])
    at = app.button(key="rf_run").click().run()
    assert not at.exception and not errors(at), errors(at)
    result = at.session_state["rf_result"]
    fig = charts(at)["Roofline: measured steps against this machine's ceilings (log-log)"]
    assert fig["layout"]["xaxis"]["type"] == "log" and fig["layout"]["yaxis"]["type"] == "log"
    by_name = {d["name"]: d for d in fig["data"]}
    prefill, decode = by_name["prefill steps"], by_name["decode steps"]
    assert len(prefill["x"]) == 2 and len(decode["x"]) == 2 * 3  # one prefill + 3 decode steps per batch size
    # each point is cost-model FLOPs / bytes against FLOPs / measured time
    p = next(p for p in result.points if p.phase == "decode")
    assert decode["x"][0] == pytest.approx(p.flops / p.bytes_moved)
    assert decode["y"][0] == pytest.approx(p.flops / (p.ms / 1e3) / 1e9)
    # decode at B=4 is ~4x as intense as at B=1 (one weight read shared by 4 tokens)
    med = by_name["decode: median per batch size"]
    assert med["text"] == ["B=1", "B=4"] and med["x"][1] / med["x"][0] == pytest.approx(4, rel=0.2)
    assert any(n.startswith("ridge point") for n in by_name) and any(n.startswith("roof float32") for n in by_name)
    util = table_with(at, "% of compute roof")
    assert list(util["phase"]) == ["prefill", "prefill", "decode", "decode"] and list(util["B"]) == [1, 4, 1, 4]
    assert any("Not available on CPU" in c.value for c in at.caption)
    assert at.get("status")[-1].label.startswith("Done: 8 steps measured (L = 16)")
    reading = next(m.value for m in at.markdown if "Left of the ridge point" in m.value)
    s = result.summary[0]
    roof = min(result.ceilings.peak_flops(result.dtype), s.intensity * result.ceilings.read_bytes_per_s)
    assert f"prefill B = 1 {s.flops_per_s / roof:.0%}" in reading  # judged whatever the load: it stands beside
    # B=4 against B=1: the batch sizes raced a step each in turn, so the i-th decode steps pair
    paired = next(c.value for c in at.caption if c.value.startswith("Decode FLOP/s at B = 4 ÷ at B = 1"))
    assert "], n = 3" in paired
    result.load = MachineLoad(2.0, 2, 1.0)
    at = at.run()
    paired = next(c.value for c in at.caption if c.value.startswith("Decode FLOP/s at B = 4 ÷ at B = 1"))
    assert paired.endswith(" · ⚠ 2.0/2 cores busy with other work.")  # beside the ratio, never instead of it
    reading = next(m.value for m in at.markdown if "Left of the ridge point" in m.value)
    assert "⚠ 2.0/2 cores busy with other work" in reading and "is not judged" not in reading
    assert any("other processes kept 2.0 of this machine's 2 cores busy" in c.value for c in at.caption)


def test_ceilings_measured_busy_are_marked_beside_their_numbers_and_measured_again_when_quiet(app, monkeypatch):
    from dataclasses import replace

    from app_pages.roofline import ceilings as section

    kept = app.session_state["rf_ceilings"]
    app.session_state["rf_ceilings"] = replace(kept, other_cores=1.5, cores=2)
    monkeypatch.setattr(section, "quiet_now", lambda seconds=0.5: False)  # still busy: kept, and marked
    at = app.run()
    shown = {m.label: m for m in at.metric}
    assert shown["read bandwidth"].proto.delta == "measured beside other work on 1.5 of 2 cores"
    assert any("These roofs were measured beside other work on 1.5 of 2 cores" in c.value for c in at.caption)
    monkeypatch.setattr(section, "quiet_now", lambda seconds=0.5: True)
    at.session_state["rf_ceil_checked"] = -1e9  # a minute has passed since the last look
    at = at.run()
    fresh = at.session_state["rf_ceilings"]
    assert fresh.measured_at > kept.measured_at and fresh.other_cores is not None  # measured again, quiet


def test_roofline_bad_settings_say_why(app):
    app.multiselect(key="rf_batches").set_value([])
    at = app.button(key="rf_run").click().run()
    assert not at.exception and any("Pick at least one batch size" in e for e in errors(at))
    at.multiselect(key="rf_batches").set_value([1])
    at.number_input(key="rf_L").set_value(505)
    at.number_input(key="rf_steps").set_value(32)
    at = at.button(key="rf_run").click().run()
    assert not at.exception and any("exceed this model's context of 512" in e for e in errors(at)), errors(at)


def test_projection_tables_and_figures(app):
    specs = charts(app)
    ttft = specs["Projected TTFT vs prompt length, A100 80GB SXM"]
    assert [d["name"] for d in ttft["data"]] == ["LLaMA-7B", "Llama-3-8B", "Qwen2.5-7B", "Llama-3-70B"]
    assert ttft["data"][3]["line"]["dash"] == "dot"  # 70B fp16 does not fit in 80 GB
    assert "Projected TPOT vs batch, A100 80GB SXM, context 2048" in specs
    assert "Projected TPOT vs context, A100 80GB SXM, batch 1" in specs
    kv = table_with(app, "seqs fp16")
    row = {r["model"]: r for r in kv.to_dict("records")}
    assert row["LLaMA-7B"]["attention"] == "MHA" and row["Llama-3-8B"]["attention"] == "GQA 32/8"
    assert (
        row["LLaMA-7B"]["seqs fp8"] == 2 * row["LLaMA-7B"]["seqs fp16"]
        or abs(row["LLaMA-7B"]["seqs fp8"] - 2 * row["LLaMA-7B"]["seqs fp16"]) <= 1
    )
    assert row["Llama-3-70B"]["seqs fp16"] == 0
    published = table_with(app, "published ms")
    errs = [float(e.rstrip(" %")) for e in published["projection error"]]
    assert all(abs(e) <= 30 for e in errs), errs
    at = app.selectbox(key="rf_pj_gpu").set_value("H100 SXM").run()
    assert "Projected TTFT vs prompt length, H100 SXM" in charts(at)
    at = at.number_input(key="rf_pj_eff_b").set_value(0.35).run()  # half the bandwidth: decode ~2x slower
    published = table_with(at, "published ms")
    assert float(published["projection error"][0].rstrip(" %")) > 80


def test_calibration_ratio_shown(app):
    app.multiselect(key="rf_cal_lengths").set_value([8, 32])
    app.number_input(key="rf_cal_N").set_value(4)
    app.number_input(key="rf_cal_repeats").set_value(1)
    at = app.button(key="rf_cal_run").click().run()
    assert not at.exception and not errors(at), errors(at)
    table = table_with(at, "ratio", partial=True)  # the load, when busy, stands in the ratio columns' names
    ratio, with_overhead = (next(c for c in table.columns if c.startswith(n)) for n in ("ratio", "ratio with"))
    assert list(table["metric"]) == ["TTFT", "TPOT", "TTFT", "TPOT"] and list(table["L"]) == [8, 8, 32, 32]
    rows = at.session_state["rf_cal_result"].rows
    for row, shown, with_oh in zip(rows, table[ratio], table[with_overhead]):
        r = row.interval()  # measured ÷ predicted over the rounds: median [interval], n
        assert r.median == pytest.approx(row.measured_ms / row.predicted_ms) and shown.startswith(f"{r.median:.3g}× [")
        assert ", n = 1" in shown and "too few pairs to judge" in shown  # one round asked for
        assert with_oh.startswith(f"{row.interval(with_overhead=True).median:.3g}× [")
    assert all(r.overhead_ms > 0 for r in rows)  # ops counted x a measured per-op cost
    assert all(r.predicted_ms > 0 and r.measured_ms > 0 for r in rows)
    shown = {m.label: m.value for m in at.metric}
    assert re.fullmatch(r"[\d.]+–[\d.]+×", shown["TTFT measured / predicted"])
    assert "Predicted vs measured on this machine" in charts(at)


def test_page_in_chinese(app):
    app.session_state["lang"] = "zh"
    at = app.run()
    assert not at.exception
    assert at.title[0].value.startswith("屋顶线实验室")
    charts(at)
    formulas = " ".join(x.value for x in at.markdown if "$\\displaystyle" in x.value)  # their words in Chinese too
    assert "脊点" in formulas and "峰值 FLOP/s" in formulas, formulas
    assert not re.search(
        r"\\text\{[^}]*\b(ridge|peak|bandwidth|share|bytes|overhead|ratio|rows?|seqs|layers|head)\b", formulas
    )
    # how each roof was measured, worded in Chinese (the kernels' own names, gemv and oneDNN, kept)
    caption = next(c.value for c in at.caption if "读取：" in c.value)
    assert "内核：" in caption and not re.search(r"our C|one row|packed linear| over [\d.]+ GiB|threads", caption)


def test_how_a_roof_was_measured_is_worded_in_each_language():
    """The phrases the hardware cache keeps, read back and worded; one it does not know, as it is."""
    from app_pages.roofline.how_words import gemm_words, read_words, stage_words

    kernels = "float32: oneDNN packed linear, 2048x2048; bfloat16: torch.mm, 768x768; float16: unsupported: no"
    assert read_words("our C gemv, one row over 1 GiB", "en") == "our C gemv, one row over 1 GiB"
    assert (
        read_words("our C gemv, one row over 1 GiB, 2 threads", "zh")
        == "我们的 C gemv（单行输入），缓冲区 1 GiB，2 个线程"
    )
    assert (
        gemm_words(kernels, "zh")
        == "float32：oneDNN 预打包权重的 linear，2048×2048；bfloat16：torch.mm，768×768；float16：不支持（no）"
    )
    assert gemm_words("float32: oneDNN packed linear, 2048x2048", "en") == "float32: oneDNN packed linear, 2048×2048"
    assert (
        read_words("something new", "zh") == "something new"
        and stage_words("float16 matrix multiply", "zh") == "float16 矩阵乘法"
    )


def test_the_kernel_each_layer_runs_is_shown(app):
    """engine/loader/kernel_timing.py's choice on the loaded model: five layers, each with its decode and prefill kernel
    and, where they were timed, the measured times of every candidate and the chosen one's rate."""
    from engine.layers.linear import KERNELS
    from engine.loader.kernel_timing import runnable

    df = table_with(app, "decode kernel")
    assert [v.split(" ")[0] for v in df["layer (out × in)"]] == ["qkv", "o", "gate_up", "down", "lm_head"]
    assert set(df["decode kernel"]) | set(df["prefill kernel"]) <= set(KERNELS)
    caption = " ".join(c.value for c in app.caption)
    assert any(w in caption for w in ("Measured just now", "read from the cache", "Forced to", "Nothing to choose"))
    if "decode GB/s" in df.columns:  # measured (not forced, not a GPU): every candidate's time, the rates
        assert (df["decode GB/s"] > 0).all() and (df["prefill GFLOP/s"] > 0).all()
        candidates = [k for k in KERNELS if k in runnable(torch.float32)]  # gemv where a C compiler built it
        column = f"1 row, µs ({' · '.join(candidates)})"
        assert all(len(v.split(" · ")) == len(candidates) for v in df[column])
    # which path an all-decode step takes, and why: both whole-step times where they were measured
    assert "An all-decode step runs" in caption
    if "whole steps timed both ways" in caption:
        assert "ms in one C call" in caption and "ms on the torch forward" in caption
