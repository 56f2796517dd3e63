"""The compare page under AppTest on tiny random models: two columns (KV cache on and off) run on the
engine; the shared charts carry one trace per column whose values are the runs' own metrics; the
summary table and caption; a column that cannot run (empty prompt, too long, a model that cannot
load) says so while the others run; settings and results survive a page visit and a language switch."""

from __future__ import annotations

import re
import statistics

import pytest
from streamlit.testing.v1 import AppTest

from app_pages import page_file
from app_pages.compare.column_summary import summarise
from tests.app_helpers import errors, html_bodies, table_problems
from tests.figure_checks import charts
from ui.run_state import RunStatus
from ui.theme import KIB, MIB

PAGE = page_file("compare")
TITLES = [
    "TTFT and TPOT per column (median of 5 runs)",
    "Inter-token latency over decode steps",
    "KV cache growth per step",
    "Peak transient memory per step",
]


@pytest.fixture
def app_env(monkeypatch, tmp_path) -> None:
    broken = tmp_path / "broken-model"  # offered like any local model folder; its config cannot be read
    broken.mkdir()
    (broken / "config.json").write_text("{not json")
    monkeypatch.setenv("PDLAB_MODELS_DIR", str(tmp_path))


def set_column(at: AppTest, i: int, **values) -> None:
    for field, value in values.items():
        at.session_state[f"cmp_{field}_{i}"] = value


def run_all(at: AppTest) -> AppTest:
    at.button(key="cmp_run").click()
    return at.run()


def test_defaults_compare_kv_on_with_kv_off(app):
    assert app.radio(key="cmp_n").value == 2
    assert app.toggle(key="cmp_kv_0").value is True and app.toggle(key="cmp_kv_1").value is False
    assert app.text_area(key="cmp_prompt_0").value == app.text_area(key="cmp_prompt_1").value
    assert "No comparison yet" in app.info[0].value


def test_one_click_sets_two_prompts_with_the_same_settings_and_back(app):
    at = app.button(key="cmp_preset_prompts").click().run()
    assert at.toggle(key="cmp_kv_0").value is True and at.toggle(key="cmp_kv_1").value is True
    prompts = [at.text_area(key=f"cmp_prompt_{i}").value for i in range(2)]
    assert prompts[0] != prompts[1] and all(prompts)
    at = at.button(key="cmp_preset_cache").click().run()
    assert at.toggle(key="cmp_kv_0").value is True and at.toggle(key="cmp_kv_1").value is False
    assert at.text_area(key="cmp_prompt_0").value == at.text_area(key="cmp_prompt_1").value


def test_a_chinese_session_gets_a_chinese_default_prompt(new_app, tiny_dirs, monkeypatch):
    """A Chinese page asks its default question in Chinese."""
    monkeypatch.setenv("PDLAB_MODEL", str(tiny_dirs["llama"]))
    at = new_app(120).run()
    at = at.sidebar.radio(key="lang").set_value("zh").run()
    at.switch_page(PAGE).run()
    assert [at.text_area(key=f"cmp_prompt_{i}").value for i in range(2)] == ["用两句话解释天空为什么是蓝色的。"] * 2


def test_two_columns_run_into_shared_charts_and_table(app):
    for i in range(2):
        set_column(app, i, prompt="The quick brown fox", chat=False, max_new=6)
    at = run_all(app)
    assert not at.exception and not errors(at)
    result = at.session_state["cmp_result"]
    on, off = (c.result for c in result.columns)
    assert on.status == off.status == RunStatus.DONE and len(on.tokens) == len(off.tokens) == 6
    assert on.settings.kv_cache and not off.settings.kv_cache
    # greedy with and without the cache: the same tokens (the cache changes the cost, not the answer)
    assert [t.token_id for t in on.tokens] == [t.token_id for t in off.tokens]

    specs = charts(at)
    assert set(TITLES) <= set(specs)
    names = ["Column 1 (KV on, sdpa, float32)", "Column 2 (KV off)"]
    assert any(h.value == f"This comparison: {names[1]} against {names[0]}, on the same prompt" for h in at.subheader)
    work = specs["Work each column did, counted by the engine"]["data"]
    assert [d["name"] for d in work if d.get("showlegend") is not False] == names  # the work first: counted
    for (flops, moved), run in zip(zip(work[0::2], work[1::2]), (on, off)):
        assert flops["y"] == pytest.approx([sum(s.flops for s in run.steps) / 1e9])
        assert moved["y"] == pytest.approx([sum(s.bytes_moved for s in run.steps) / 1e6])
    assert work[2]["y"][0] > work[0]["y"][0]  # without the cache, the same tokens cost more FLOPs
    for title in TITLES:
        assert [d["name"] for d in specs[title]["data"]] == names, title
    bars = specs[TITLES[0]]["data"]  # the table's numbers: the medians over the three timed runs
    for trace, column in zip(bars, result.columns):
        medians = summarise(column)
        assert trace["y"] == pytest.approx([medians.ttft_ms, medians.tpot_ms])
    itl = specs["Inter-token latency over decode steps"]["data"]
    for trace, run in zip(itl, (on, off)):
        assert trace["y"] == pytest.approx(run.metrics.itl_ms)
        assert trace["x"] == [t.step for t in run.tokens[1:]]
    kv = specs["KV cache growth per step"]["data"]
    per_token = on.model.kv_bytes_per_token
    # with the cache, the last step holds the prompt and every output token but the last (its K, V are never needed)
    assert kv[0]["y"][-1] == pytest.approx((on.num_prompt_tokens + 5) * per_token / MIB)
    assert kv[0]["y"][0] == pytest.approx(on.num_prompt_tokens * per_token / MIB)
    assert set(kv[1]["y"]) == {0}
    peak = specs["Peak transient memory per step"]["data"]
    for trace, run in zip(peak, (on, off)):
        assert trace["y"] == pytest.approx([s.peak_bytes / MIB for s in run.steps])
    ranges = {tuple(specs[t]["layout"]["xaxis"]["range"]) for t in TITLES[1:]}
    assert len(ranges) == 1  # the per-step charts share one x axis

    table = at.dataframe[0].value  # one column per run, one row per metric, every cell text
    assert list(table.columns) == names and "None" not in table.to_string()
    assert not table_problems(at)  # the header says "Column 1", "Column 2": each name whole in its help
    on_col, off_col = table[names[0]], table[names[1]]
    assert on_col["output tokens"] == off_col["output tokens"] == "6"
    assert on_col["prompt tokens"] == str(on.num_prompt_tokens)
    # the comparison timed five times (the default), the columns interleaved a step at a time; the times
    # are medians with their spread, and the run shown (tokens, charts) is the one with the median E2E
    assert result.repeats == 5 and [len(c.runs) for c in result.columns] == [5, 5]
    on_runs, off_runs = ([r.metrics for r in c.runs] for c in result.columns)
    for shown, runs in ((on, on_runs), (off, off_runs)):
        assert shown.metrics.e2e_ms == statistics.median(m.e2e_ms for m in runs)
    assert on_col["timed runs"] == off_col["timed runs"] == "5"
    assert on_col["TTFT (ms)"] == f"{statistics.median(m.ttft_ms for m in on_runs):,.1f}"
    assert off_col["E2E (ms)"] == f"{statistics.median(m.e2e_ms for m in off_runs):,.0f}"
    ttfts = [m.ttft_ms for m in on_runs]
    assert on_col["TTFT spread (%)"] == f"{100 * (max(ttfts) - min(ttfts)) / statistics.median(ttfts):.1f}"
    # column 2's times over column 1's: paired ratios with their interval and n, busy or not
    tpot = result.columns[1].vs_base["tpot"]
    assert tpot.n == 5 * 5  # five decode steps a run, paired step for step, in each of five repeats
    tpot_row = "TPOT ÷ base [95 %]"
    assert off_col[tpot_row].startswith(f"{tpot.median:.3g}× [") and f"n = {tpot.n}" in off_col[tpot_row]
    assert on_col[tpot_row] == "base"
    busy = any(r.load is not None and r.load.busy for c in result.columns for r in c.runs)
    assert ("cores busy" in off_col[tpot_row]) == (tpot.load is not None and tpot.load.busy)
    assert off_col["KV at the end (KiB)"] == "0.0" and off_col["KV − base (KiB)"] == f"-{on_col['KV at the end (KiB)']}"
    assert on_col["KV at the end (KiB)"] == f"{(on.num_prompt_tokens + 5) * per_token / KIB:,.1f}"
    assert on_col["peak memory (MiB)"] == f"{max(s.peak_bytes for s in on.steps) / MIB:,.2f}"
    caption = " ".join(m.value for m in at.markdown).replace("\\", "")
    assert "Column 2 (KV off):" in caption and ("× column 1" in caption or "not separable here" in caption or busy)

    body = html_bodies(at)  # the replay ends with every token shown, in both columns
    assert len(re.findall(r'class="pd-chip pd-decode pd-out', body)) == 2 * 5
    assert len(re.findall(r'class="pd-chip pd-prefill pd-out', body)) == 2

    at.slider(key="cmp_replay_1").set_value(-1).run()  # scrub column 2 back to before its prefill
    body = html_bodies(at)
    assert len(re.findall(r'class="pd-chip pd-pending pd-in', body)) == off.num_prompt_tokens
    assert len(re.findall(r'pd-chip [^"]*pd-out', body)) == 6  # column 1 still shows all of its tokens
    at.button(key="cmp_play").click().run()  # the clocked replay of both ends with everything shown again
    assert not at.exception and at.slider(key="cmp_replay_1").value == off.steps[-1].step
    assert len(re.findall(r'pd-chip [^"]*pd-out', html_bodies(at))) == 2 * 6


def test_a_column_that_cannot_run_says_so_and_the_others_run(app, tmp_path):
    app.radio(key="cmp_n").set_value(4).run()
    set_column(app, 0, prompt="Hello there", chat=False, max_new=3)
    set_column(app, 1, prompt="   ", chat=False, max_new=3)
    set_column(app, 2, prompt="Hello there", chat=False, max_new=600)  # the tiny model holds 512 tokens
    set_column(app, 3, prompt="Hello there", chat=False, max_new=3, model=str((tmp_path / "broken-model").resolve()))
    at = run_all(app)
    assert not at.exception
    shown = errors(at)
    assert any("The prompt is empty" in e for e in shown), shown
    assert any("exceed the context of 512 tokens" in e for e in shown), shown
    assert any(
        "broken-model could not be loaded for this column" in e and "no *.safetensors weights" in e for e in shown
    ), shown
    outcomes = at.session_state["cmp_result"].columns
    assert [c.ok for c in outcomes] == [True, False, False, False]
    for title, spec in charts(at).items():
        assert list(dict.fromkeys(d["name"] for d in spec["data"])) == ["Column 1 (KV on, sdpa, float32)"], title


def test_settings_and_results_survive_a_page_visit_and_a_language_switch(app):
    set_column(app, 0, prompt="Hello there", chat=False, max_new=3)
    set_column(app, 1, prompt="Good morning", chat=False, max_new=4, attention="eager", dtype="bfloat16")
    at = run_all(app)
    result = at.session_state["cmp_result"]
    f32, bf16 = (c.result for c in result.columns)
    assert bf16.model.dtype == "bfloat16" and bf16.model.kv_bytes_per_token * 2 == f32.model.kv_bytes_per_token
    at.switch_page(page_file("playground")).run()
    at.switch_page(PAGE).run()
    at = at.sidebar.radio(key="lang").set_value("zh").run()
    assert not at.exception and not errors(at)
    assert at.session_state["cmp_result"] is result
    assert at.text_area(key="cmp_prompt_1").value == "Good morning"
    assert at.radio(key="cmp_attention_1").value == "eager" and at.number_input(key="cmp_max_new_1").value == 4
    specs = charts(at)
    names = [d["name"] for d in specs["各列的 TTFT 与 TPOT（5 次的中位数）"]["data"]]
    assert (
        names[0].startswith("第 1 列")
        and names[1] == "第 2 列（KV 关、eager、bfloat16、≤ 4 个 token、«Good morning»（12 个字符））"
    )


def test_the_default_comparison_keeps_its_lesson_with_a_busy_core(new_app, bundled_dir, monkeypatch, busy_core):
    """Compare's default on the bundled model (one prompt with and without the KV cache) while another
    process spins a core: without the cache every decode step and the whole run are slower, or the
    answer is "not separable here" — never the opposite (a sequential run once showed the cache 3–9×
    slower, the load having fallen on its column)."""
    from lab.pairing import LESS, compare

    monkeypatch.setenv("PDLAB_MODEL", str(bundled_dir))
    at = new_app(600).run()
    at.switch_page(PAGE).run()
    at = run_all(at)
    assert not at.exception and not errors(at), errors(at)
    off = at.session_state["cmp_result"].columns[1]
    assert not off.settings.run.kv_cache and off.vs_base["tpot"].n >= 5 * 20
    assert compare(off.vs_base["tpot"]) != LESS and compare(off.vs_base["e2e"]) != LESS, off.vs_base
