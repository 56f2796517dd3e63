"""The complexity lab page under streamlit.testing's AppTest, on a tiny random model."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest
from streamlit.testing.v1 import AppTest

from app_pages import page_file
from lab.busy import MachineLoad
from tests.app_helpers import errors, table_with
from tests.figure_checks import charts

PAGE = page_file("complexity")
RATIO = re.compile(r"\d[\d.,]*× \[[\d.,]+–[\d.,]+\], n = \d+")  # ui/paired.ratio_text
EMB = "embedding [B, T, hidden]"
KV = "KV cache [layers, 2, C, kv_heads, head_dim]"


def shapes(at: AppTest, lang: str = "en") -> dict[str, list[str]]:
    """The worked example's table as {tensor: [value at step 0, step 1, ...]}."""
    table = table_with(at, "tensor" if lang == "en" else "张量")
    return {row[0]: list(row[1:]) for row in table.itertuples(index=False)}


def compare(at: AppTest, prompt_len: int, max_new: int) -> AppTest:
    at.number_input(key="cx_L").set_value(prompt_len)
    at.number_input(key="cx_N").set_value(max_new)
    return at.button(key="cx_run").click().run()


def test_default_worked_example_is_the_documents_llama7b(app):
    assert app.selectbox(key="cx_we_model").value == "LLaMA-7B"
    assert app.text_input(key="cx_we_prompt").value == "今天天气"
    assert list(table_with(app, "tensor").columns) == [
        "tensor",
        "step 0 · prefill",
        "step 1 · decode",
        "step 2 · decode",
    ]
    shown = shapes(app)
    assert shown[EMB][:2] == ["[1, 4, 4096]", "[1, 1, 4096]"]
    assert shown["scores per head (T×C)"] == ["4×4", "1×5", "1×6"]
    assert shown[KV][:2] == ["[32, 2, 4, 32, 128]", "[32, 2, 5, 32, 128]"]
    assert shown["last position [B, hidden]"][0] == "[1, 4096]" and shown["C (KV length)"][1] == "5"
    assert any("reproduces the document's numbers" in s.value for s in app.success)
    # the real tokenizer's count is shown beside the document's 4
    assert any("**9 tokens**" in c.value and "counts 4" in c.value for c in app.caption)


def test_worked_example_on_the_loaded_model_and_tokenizer_counts(app):
    at = app.selectbox(key="cx_we_model").set_value("__loaded__").run()
    shown = shapes(at)
    assert shown[EMB][0] == "[1, 9, 64]" and shown[KV][1] == "[2, 2, 10, 2, 16]"  # tiny: GQA 4 heads / 2 kv
    assert any("kv\\_heads = 2" in m.value or "kv_heads = 2" in m.value for m in at.markdown)
    at = at.selectbox(key="cx_we_model").set_value("Llama-3-8B").run()
    at = at.radio(key="cx_we_count").set_value("tokenizer").run()
    assert shapes(at)[EMB][0] == "[1, 9, 4096]"
    at = at.toggle(key="cx_we_cache").set_value(False).run()
    assert shapes(at)["scores per head (T×C)"] == ["9×9", "10×10", "11×11"]
    assert not at.exception


@pytest.mark.parametrize(
    "prompt, max_new, expected", [("", 3, "The prompt is empty"), ("今天天气" * 520, 3, "exceed LLaMA-7B's context")]
)
def test_worked_example_bad_input(app, prompt, max_new, expected):
    at = app.text_input(key="cx_we_prompt").set_value(prompt).run()
    assert not at.exception and any(expected in e for e in errors(at)), errors(at)
    at = at.text_input(key="cx_we_prompt").set_value("今天天气").run()
    assert not errors(at) and shapes(at)[EMB][0] == "[1, 4, 4096]"


def test_cache_on_off_comparison(app):
    assert any("Run cache on vs off" in i.value for i in app.info)  # nothing run yet
    at = compare(app, 8, 16)
    assert not at.exception and not errors(at)
    result = at.session_state["cx_result"]
    assert result.tokens_match and result.num_steps == 15 and result.prompt_len == 8
    race = result.race
    assert race.contexts == list(range(9, 24)) and race.tokens_fed[True] == [1] * 15
    assert race.tokens_fed[False] == race.contexts  # every step without the cache feeds its whole context
    shown = {m.label: m.value for m in at.metric}
    assert shown["same tokens both ways"] == "yes"
    assert shown["FLOPs per step, without ÷ with"] == f"{race.flops_ratio():.1f}×"
    assert shown["tokens recomputed without the cache"] == f"{sum(c - 1 for c in race.contexts):,}"
    line = next(m.value for m in at.markdown if m.value.startswith("**Per-step time, without ÷ with**"))
    assert RATIO.search(line) and race.ratio.n == 15  # the i-th steps of both runs, paired
    headline = next(i.value for i in at.info if i.value.startswith("**What these sizes show.**"))
    assert re.search(r"n\^\d\.\d\d \[\d\.\d\d–\d\.\d\d\]", headline), headline  # the time's exponent, its interval
    assert "no run of a minute can show them" in headline
    specs = charts(at)
    cum = specs["Cumulative counted FLOPs (log-log)"]
    assert cum["layout"]["xaxis"]["type"] == "log" and cum["layout"]["yaxis"]["type"] == "log"
    assert cum["layout"]["xaxis"]["title"]["text"] == "decode steps n (log scale)"
    names = [d["name"] for d in cum["data"]]
    assert re.fullmatch(r"without KV cache: measured, slope \d\.\d\d", names[2])
    assert cum["data"][2]["y"] == pytest.approx([v / 1e9 for v in result.runs[False].cumulative_flops])
    assert cum["data"][3]["y"][-1] == pytest.approx(cum["data"][2]["y"][-1])  # Σ(L+t)² meets it
    step = specs["Time per decode step (measured)"]
    assert step["data"][0]["x"][0] == 9 and step["data"][1]["y"] == pytest.approx(result.runs[False].step_ms)
    assert "FLOPs per decode step, by term (counted)" in specs
    ratio = specs["Each decode step without the cache ÷ the same step with it"]
    assert ratio["data"][0]["name"] == "FLOPs (counted)" and len(ratio["data"][0]["y"]) == 15
    assert ratio["data"][1]["error_y"]["array"]  # each bin of paired steps with its interval
    table = table_with(at, "slope: FLOPs")
    assert list(table["document's exponent"]) == ["2 (C14)", "3 (C13)"]
    assert float(table["slope: FLOPs"][1]) > float(table["slope: FLOPs"][0])  # recompute grows faster
    assert all(re.fullmatch(r"\d\.\d\d \[\d\.\d\d–\d\.\d\d\]", x) for x in table["slope: time (95 % interval)"])
    assert f"n^{table['slope: FLOPs'][0]} with the cache and n^{table['slope: FLOPs'][1]} without" in headline
    status = at.get("status")[0]
    assert status.label.startswith("Done: 16 tokens after 8 prompt tokens") and status.proto.state == 2  # COMPLETE
    assert at.get("progress")[0].proto.value == 100
    race.ratio = replace(race.ratio, load=MachineLoad(2.0, 2, 1.0))  # as if other processes had kept both cores busy
    at = at.run()
    line = next(m.value for m in at.markdown if m.value.startswith("**Per-step time, without ÷ with**"))
    assert RATIO.search(line) and line.endswith("⚠ 2.0/2 cores busy with other work")  # beside the number, not instead
    assert "⚠ unreliable" not in {m.value for m in at.metric} and not any("not judged" in m.value for m in at.markdown)


@pytest.mark.parametrize("prompt_len, max_new, expected", [(500, 64, "exceed this model's context")])
def test_comparison_bad_input(app, prompt_len, max_new, expected):
    at = compare(app, prompt_len, max_new)
    assert not at.exception and any(expected in e for e in errors(at)), errors(at)
    assert "cx_result" not in at.session_state
    at = compare(at, 4, 8)
    assert not errors(at) and at.session_state["cx_result"].tokens_match


def test_dominance_section(app):
    table = table_with(app, "C* cached")
    rows = {r["model"]: r for r in table.to_dict("records")}
    assert rows["LLaMA-7B"]["C* cached"] > 20_000 and rows["LLaMA-7B"]["C* uncached ≤ context"] == "no"
    assert any(name.endswith("(loaded)") for name in rows) and len(rows) == 1 + 7
    specs = charts(app)
    exp = specs["Apparent exponent of the total decode cost (N new tokens after L = N)"]
    assert exp["layout"]["xaxis"]["type"] == "log"
    assert {d["name"] for d in exp["data"]} >= {"LLaMA-7B, without KV cache", "document: O(N³) without cache"}
    assert any(title.endswith("(loaded): FLOPs of one decode step, by term") for title in specs)
    at = app.selectbox(key="cx_cross_model").set_value("Llama-3-70B").run()
    assert "Llama-3-70B: FLOPs of one decode step, by term" in charts(at)
    at = at.multiselect(key="cx_exp_models").set_value([]).run()
    assert not at.exception and any("at least one model" in i.value for i in at.info)
    assert any("contradicts itself" in m.value for m in at.markdown)


def test_language_switch(app):
    app = app.selectbox(key="cx_we_model").set_value("__loaded__").run()
    at = app.sidebar.radio(key="lang").set_value("zh").run()
    assert at.selectbox(key="cx_we_model").value == "__loaded__"  # the pick survives the new labels
    at = at.selectbox(key="cx_we_model").set_value("LLaMA-7B").run()
    assert not at.exception and at.title[0].value == "复杂度实验室：KV 缓存省下了什么"
    assert shapes(at, "zh")["嵌入 [B, T, hidden]"][0] == "[1, 4, 4096]"
    assert at.selectbox(key="cx_we_model").value == "LLaMA-7B"
    at = compare(at, 4, 8)
    assert not at.exception and "累计统计 FLOPs（双对数）" in charts(at)


def test_settings_and_result_survive_a_visit_to_another_page(app):
    at = compare(app, 4, 8)
    result = at.session_state["cx_result"]
    at.selectbox(key="cx_cross_model").set_value("Llama-3-70B")
    at.multiselect(key="cx_exp_models").set_value(["LLaMA-7B"])
    at.selectbox(key="cx_we_model").set_value("Qwen2.5-7B")
    at.text_input(key="cx_we_prompt").input("你好世界")
    at.number_input(key="cx_we_max_new").set_value(5)
    at = at.toggle(key="cx_we_cache").set_value(False).run()
    at = at.radio(key="cx_we_count").set_value("tokenizer").run()
    assert not at.exception and not errors(at)
    at.switch_page(page_file("serving")).run()
    at.switch_page(PAGE).run()
    assert not at.exception and not errors(at)
    assert at.number_input(key="cx_L").value == 4 and at.number_input(key="cx_N").value == 8
    assert at.session_state["cx_result"] is result and "Cumulative counted FLOPs (log-log)" in charts(at)
    assert at.selectbox(key="cx_cross_model").value == "Llama-3-70B"
    assert at.multiselect(key="cx_exp_models").value == ["LLaMA-7B"]
    assert at.selectbox(key="cx_we_model").value == "Qwen2.5-7B"
    assert at.text_input(key="cx_we_prompt").value == "你好世界"
    assert at.number_input(key="cx_we_max_new").value == 5 and at.toggle(key="cx_we_cache").value is False
    assert at.radio(key="cx_we_count").value == "tokenizer"
