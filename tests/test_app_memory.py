"""The memory lab page under streamlit.testing's AppTest, on a tiny random model with a 4096-token
context: the sweep, the predictor, the heatmaps and the leak, checked on the figure JSON."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from app_pages import page_file
from app_pages.memory.sweep import SweepStatus
from tests.app_helpers import errors, table_with
from tests.figure_checks import charts
from ui.theme import MIB

PAGE = page_file("memory")
MODEL = "llama-4k"  # a context long enough for the sweeps


def chart(at: AppTest, prefix: str) -> dict:
    return next(spec for title, spec in charts(at).items() if title.startswith(prefix))


def trace(spec: dict, name: str) -> dict:
    return next(d for d in spec["data"] if d.get("name") == name)


def test_page_opens_with_four_tabs_and_the_c20_numbers(app):
    assert app.title[0].value.startswith("Memory lab")
    assert [t.label for t in app.tabs] == [
        "Measured sweep",
        "Will it fit? (C20)",
        "Attention heatmaps",
        "KV leak (C16)",
    ]
    shown = {m.label: m.value for m in app.metric}
    assert shown["Scores, one head"] == "200.0 MB" and shown["Scores, one layer (all heads)"] == "6.4 GB"
    assert shown["KV cache"] == "5.2 GB" and shown["Weights"] == "13.5 GB"
    assert any("one head of one layer" in i.value for i in app.info)
    trap = next(w.value for w in app.warning if "24 GB GPU" in w.value)
    assert "6.4 GB" in trap and trap.endswith(
        "What rescues it: a fused kernel (FlashAttention-style) or prefill in chunks of 1024 tokens (eager within "
        "each chunk)."
    )  # eager is the trap itself, never named as a rescue
    fit = table_with(app, "eager (materialised scores)")
    assert fit.iloc[0]["eager (materialised scores)"].startswith("OOM at attention scores")
    spec = chart(app, "Predicted prefill peak, LLaMA-7B")
    assert trace(spec, "attention scores")["x"][0] == pytest.approx(6.4)
    assert not errors(app) and not app.exception


def test_predictor_follows_its_controls(app):
    at = app.selectbox(key="mem_fit_model").set_value("__loaded__").run()
    at = at.number_input(key="mem_fit_L").set_value(100).run()
    assert not at.exception
    spec = chart(at, "Predicted prefill peak, ")
    assert "L = 100," in spec["layout"]["title"]["text"].replace("<br>", "")
    assert at.metric[0].value == "20.0 kB"  # 100 × 100 × 2 bytes, one head
    assert any("No GPU size here shows [C20](/claims?claim=C20)'s trap" in c.value for c in at.caption)
    at = at.selectbox(key="mem_fit_dtype").set_value("float32").run()
    assert at.metric[0].value == "40.0 kB"


def test_sweep_shows_progress_and_matches_the_formula(app):
    app.session_state["mem_lengths"] = "64, 1024, 2048"
    app.session_state["mem_chunks"] = "512"
    at = app.button(key="mem_run_sweep").click().run()
    assert not at.exception and not errors(at)
    result = at.session_state["mem_sweep"]
    assert result.status == SweepStatus.DONE and len(result.points) == 3 * 2 + 2 * 2
    assert any(s.value.startswith("Measured 10 prefills") for s in at.success)  # the closing line, kept
    assert not at.progress and not at.status  # the run's box and bar gone: the closing line says it ended
    peak = chart(at, "Prefill peak above baseline")
    eager = trace(peak, "measured peak: eager")
    measured = {p.prompt_len: p for p in result.points if p.backend == "eager" and p.chunk is None}
    assert eager["y"] == pytest.approx([measured[L].peak_bytes / MIB for L in (64, 1024, 2048)])
    diff = chart(at, "Eager minus sdpa peak")
    bars = trace(diff, "measured eager − sdpa (label: ÷ formula)")
    formula = trace(diff, "formula: heads × L × L × bytes (one layer's scores)")
    assert bars["y"][-1] == pytest.approx(formula["y"][-1], rel=0.10)  # within 10 % at L = 2048
    table = table_with(at, "eager − sdpa (MiB)")
    assert list(table["L"]) == [64, 1024, 2048]
    why = next(m.value for m in at.markdown if "L = 2048" in m.value and "within 10 %" in m.value)
    assert why.startswith("In words: each percentage below is how much more memory eager needed")  # then the arithmetic
    assert chart(at, "Memory at the prefill peak")["layout"]["barmode"] == "stack"
    slopes = [c.value for c in at.caption if c.value.startswith("**Measured here**")]
    assert len(slopes) == 1 and "eager grew as L^" in slopes[0] and "(L = 1,024 → 2,048)" in slopes[0]
    # then the time the scores cost, at the longest default length: the bytes eager writes (counted)
    # first, then eager ÷ sdpa paired over five rounds, a verdict only where the interval allows
    timed = table_with(at, "eager ÷ sdpa [95 % interval], n")
    (timing,) = result.timings
    assert list(timed["L"]) == [1024] and timing.ratio.n == 5
    c = at.session_state["mem_sweep"]
    written = c.num_layers * c.num_heads * 1024 * 1024 * c.elem_bytes / MIB
    assert timed["scores eager writes, all layers (MiB)"].item() == pytest.approx(written)
    assert timed["eager ÷ sdpa [95 % interval], n"].item().startswith(f"{timing.ratio.median:.3g}× [")
    assert timed["eager against sdpa"].item() in ("eager slower", "eager faster", "not separable here")
    assert any(s.value.startswith("Measured 10 prefills and timed eager against sdpa at L = 1024") for s in at.success)


@pytest.mark.parametrize(
    "field, value, expected",
    [
        ("mem_lengths", "64, lots", "whole numbers"),
        ("mem_lengths", "0", "positive"),
        ("mem_lengths", "99999", "longer than this model's context"),
        ("mem_chunks", "-5", "positive"),
        ("mem_backends", [], "at least one attention backend"),
    ],
)
def test_bad_sweep_input_gets_a_message(app, field, value, expected):
    app.session_state[field] = value
    at = app.button(key="mem_run_sweep").click().run()
    assert not at.exception and any(expected in e for e in errors(at)), errors(at)
    at.session_state["mem_lengths"], at.session_state["mem_chunks"] = "64", ""
    at.session_state["mem_backends"] = ["sdpa"]
    at = at.button(key="mem_run_sweep").click().run()  # and the page keeps working
    assert not at.exception and not errors(at) and at.session_state["mem_sweep"].status == SweepStatus.DONE


def test_interrupted_sweep_is_marked_stopped(app):
    app.session_state["mem_lengths"] = "64"
    at = app.button(key="mem_run_sweep").click().run()
    at.session_state["mem_sweep"].status = SweepStatus.RUNNING  # as if a click cut the script short
    at = at.run()
    assert at.session_state["mem_sweep"].status == SweepStatus.STOPPED
    assert any("stopped after 2 of 2" in w.value for w in at.warning)


def test_heatmaps_one_head_mean_and_every_layer(app):
    at = app.button(key="mem_heat_run").click().run()
    assert not at.exception and not errors(at)
    result = at.session_state["mem_heat_result"]
    rows = result.num_prompt_tokens + len(result.tokens) - 1
    spec = chart(at, "Attention probabilities, layer 1, head 0")
    assert len(spec["data"][0]["y"]) == rows
    assert [b.label for b in at.get("download_button")][-2:] == ["Download PNG", "Download CSV"]
    at = at.segmented_control(key="mem_heat_mode").set_value("mean").run()
    assert "Attention probabilities, layer 1, mean over 4 heads" in charts(at)
    at = at.segmented_control(key="mem_heat_mode").set_value("layers").run()
    grid = chart(at, "Attention probabilities, mean over heads, 2 layers")
    assert len([d for d in grid["data"] if d["type"] == "heatmap"]) == 2
    assert not at.exception


def test_heatmap_bad_prompt_gets_a_message(app):
    app.session_state["mem_heat_prompt"] = "   "
    at = app.button(key="mem_heat_run").click().run()
    assert not at.exception and any("The prompt is empty" in e for e in errors(at)), errors(at)


def test_leak_grows_for_the_naive_loop_only(app):
    app.session_state["mem_leak_n"] = 4
    app.session_state["mem_leak_new"] = 3
    at = app.button(key="mem_leak_run").click().run()
    assert not at.exception and not errors(at)
    spec = chart(at, "Memory left behind after each request")
    naive = trace(spec, "naive HF loop (cache never released)")["y"]
    assert len(naive) == 4 and all(b > a for a, b in zip(naive, naive[1:]))
    assert trace(spec, "engine (blocks freed)")["y"] == [0, 0, 0, 0]
    assert "Time per generated token, request by request" in charts(at)
    assert {m.label: m.value for m in at.metric}["Engine after 4 requests"] == "0 B"
    kv = at.session_state["mem_leak"].kv_bytes_per_token
    assert kv == 2 * 2 * 2 * 16 * 4  # layers, K and V, kv_heads, head_dim, float32
    conclusion = [m.value for m in at.markdown if "Where the leak shows" in m.value]
    assert len(conclusion) == 1 and "512 B here" in conclusion[0]
    per = (at.session_state["mem_leak"].naive[-1].cache_bytes - at.session_state["mem_leak"].naive[0].cache_bytes) / 3
    assert f"kept {per / 1024:.0f} KiB more per request" in conclusion[0]  # this run's own numbers
    load = at.session_state["mem_leak"].load  # the ms per token are timings: the load stands beside them
    notes = [c.value for c in at.caption] + [w.value for w in at.warning]
    beside = f"other processes kept {load.other_cores:.1f} of this machine's {load.cores} cores busy"
    assert any(beside in n for n in notes) and not any("Unreliable" in n for n in notes)
    assert not any("unreliable" in m.value for m in at.markdown)  # C16's verdict is never switched off


def test_chinese(app):
    app.sidebar.radio(key="lang").set_value("zh")
    at = app.run()
    assert at.title[0].value.startswith("显存实验室")
    assert [t.label for t in at.tabs][:2] == ["实测扫描", "放得下吗？（C20）"]
    assert "预测的预填充峰值，LLaMA-7B，L = 10,000，每个值 2 字节" in charts(at)
    at.session_state["mem_lengths"] = "abc"
    at = at.button(key="mem_run_sweep").click().run()
    assert any("必须是用逗号分隔的整数" in e for e in errors(at)) and not at.exception


def test_predictor_works_when_no_model_loads(new_app, monkeypatch, tmp_path):
    monkeypatch.setenv("PDLAB_MODEL", str(tmp_path / "no-such-model"))
    at = new_app(60)
    at.run()
    at.switch_page(page_file("memory")).run()
    assert not at.exception and any("not found" in e for e in errors(at)), errors(at)
    assert "Predicted prefill peak, LLaMA-7B, L = 10,000, 2 bytes per value" in charts(at)
    assert sum("pick one that loads in the sidebar" in i.value for i in at.info) == 3


def test_settings_and_results_survive_a_visit_to_another_page(app):
    app.selectbox(key="mem_fit_model").set_value("Llama-3-70B")
    app.selectbox(key="mem_fit_dtype").set_value("bfloat16")
    app.number_input(key="mem_fit_L").set_value(4000)
    app.text_input(key="mem_lengths").input("64, 128")
    app.multiselect(key="mem_backends").set_value(["eager"])
    app.text_input(key="mem_chunks").input("32")
    at = app.button(key="mem_run_sweep").click().run()
    at.text_area(key="mem_heat_prompt").input("One two three four")
    at.number_input(key="mem_heat_new").set_value(2)
    at = at.button(key="mem_heat_run").click().run()
    at = at.segmented_control(key="mem_heat_mode").set_value("mean").run()
    at = at.toggle(key="mem_with_weights").set_value(True).run()
    assert not at.exception and not errors(at)
    sweep, heat = at.session_state["mem_sweep"], at.session_state["mem_heat_result"]
    at.switch_page(page_file("playground")).run()
    at.switch_page(page_file("memory")).run()
    assert not at.exception and not errors(at)
    assert at.selectbox(key="mem_fit_model").value == "Llama-3-70B"
    assert at.selectbox(key="mem_fit_dtype").value == "bfloat16" and at.number_input(key="mem_fit_L").value == 4000
    assert at.text_input(key="mem_lengths").value == "64, 128" and at.multiselect(key="mem_backends").value == ["eager"]
    assert at.text_input(key="mem_chunks").value == "32" and at.toggle(key="mem_with_weights").value is True
    assert at.text_area(key="mem_heat_prompt").value == "One two three four"
    assert at.number_input(key="mem_heat_new").value == 2
    assert at.segmented_control(key="mem_heat_mode").value == "mean"
    assert at.session_state["mem_sweep"] is sweep and at.session_state["mem_heat_result"] is heat
    assert "Predicted prefill peak, Llama-3-70B, L = 4,000, 2 bytes per value" in charts(at)
    assert any(title.startswith("Prefill peak above baseline") for title in charts(at))
    assert any("mean over" in title for title in charts(at)), list(charts(at))
