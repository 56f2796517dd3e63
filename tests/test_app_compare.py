"""The compare page under AppTest on tiny random models: two columns (KV cache on and off) run on the
engine; the shared charts carry one trace per column whose values are the runs' own metrics; the
summary table and caption; a column that cannot run (empty prompt, too long, a model that cannot
load) says so while the others run; settings and results survive a page visit and a language switch."""

from __future__ import annotations

import re
import statistics

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from app_pages import page_file
from app_pages.compare.column_summary import summarise
from tests.app_helpers import errors, html_bodies
from tests.figure_checks import charts
from ui.run_state import RunStatus
from ui.theme import KIB, MIB

PAGE = page_file("compare")
TITLES = [
    "TTFT and TPOT per column (median of 3 runs)",
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

    table = at.dataframe[0].value  # one column per run, one row per metric
    assert list(table.columns) == names
    on_col, off_col = table[names[0]], table[names[1]]
    assert on_col["output tokens"] == off_col["output tokens"] == 6
    assert on_col["prompt tokens"] == on.num_prompt_tokens
    # each column timed three times (the default); the times are medians with their spread,
    # and the run shown (tokens, charts) is the one with the median E2E
    assert result.repeats == 3 and [len(c.runs) for c in result.columns] == [3, 3]
    on_runs, off_runs = ([r.metrics for r in c.runs] for c in result.columns)
    for shown, runs in ((on, on_runs), (off, off_runs)):
        assert shown.metrics.e2e_ms == statistics.median(m.e2e_ms for m in runs)
    assert on_col["timed runs"] == off_col["timed runs"] == 3
    assert on_col["TTFT (ms)"] == round(statistics.median(m.ttft_ms for m in on_runs), 1)
    assert off_col["E2E (ms)"] == round(statistics.median(m.e2e_ms for m in off_runs))
    ttfts = [m.ttft_ms for m in on_runs]
    assert on_col["TTFT spread (%)"] == round(100 * (max(ttfts) - min(ttfts)) / statistics.median(ttfts), 1)
    busy = any(r.load is not None and r.load.busy for c in result.columns for r in c.runs)
    tpot_ratio = next(row for row in table.index if row.startswith("TPOT ÷ base (×)"))
    if busy:  # timed while other processes took the cores: the ratio is not given, and the row says why
        assert tpot_ratio.endswith("⚠ unreliable: busy machine") and pd.isna(off_col[tpot_ratio])
    else:
        assert off_col[tpot_ratio] == round(
            statistics.median(m.tpot_ms for m in off_runs) / statistics.median(m.tpot_ms for m in on_runs), 2
        )
        assert on_col[tpot_ratio] == 1.0
    assert off_col["KV at the end (KiB)"] == 0 and off_col["KV − base (KiB)"] == -on_col["KV at the end (KiB)"]
    assert on_col["KV at the end (KiB)"] == round((on.num_prompt_tokens + 5) * per_token / KIB, 1)
    assert on_col["peak memory (MiB)"] == round(max(s.peak_bytes for s in on.steps) / MIB, 2)
    caption = " ".join(m.value for m in at.markdown).replace("\\", "")
    assert "Column 2 (KV off):" in caption and ("× column 1" in caption or busy)

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
        assert [d["name"] for d in spec["data"]] == ["Column 1 (KV on, sdpa, float32)"], title


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
    names = [d["name"] for d in specs["各列的 TTFT 与 TPOT（3 次的中位数）"]["data"]]
    assert (
        names[0].startswith("第 1 列")
        and names[1] == "第 2 列（KV 关、eager、bfloat16、≤ 4 个 token、«Good morning»（12 个字符））"
    )
