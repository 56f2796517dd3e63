"""The compare page's pure parts: how columns are named by what they change, the caption's biggest
differences, the summary of a real tiny run, the clocked replay's step at a given time, a comparison cut short."""

from __future__ import annotations

import dataclasses
from types import SimpleNamespace

import pytest

from app_pages.compare.column_summary import (
    ColumnSummary,
    biggest_differences,
    column_name,
    differences,
    fmt_ratio,
    summarise,
)
from app_pages.compare.figures import Series, latency_bars_figure
from app_pages.compare.replay import step_at
from app_pages.compare.run import median_run
from app_pages.compare.state import (
    ColumnOutcome,
    ColumnSettings,
    CompareResult,
    CompareStatus,
    TimedRun,
    mark_interrupted,
)
from app_pages.compare.view import summary_table
from engine.observe.request_metrics import RequestMetrics
from lab.busy import MachineLoad
from lab.pairing import ratio_interval
from tests.ui_support import run_to_end
from ui.run_state import RunSettings, RunStatus


def column(i: int, **changes) -> ColumnSettings:
    model = changes.pop("model", "bundled")
    dtype = changes.pop("dtype", "float32")
    return ColumnSettings(index=i, run=RunSettings(prompt="Hi", **changes), model=model, dtype=dtype)


def summary(i: int, **values) -> ColumnSummary:
    base = dict(
        index=i,
        prompt_tokens=5,
        output_tokens=8,
        ttft_ms=100.0,
        tpot_ms=20.0,
        itl_mean_ms=20.0,
        itl_p50_ms=20.0,
        itl_p99_ms=30.0,
        e2e_ms=240.0,
        peak_bytes=1000,
        kv_end_bytes=4000,
    )
    return ColumnSummary(**{**base, **values})


def test_columns_are_named_by_what_they_change():
    base = column(0)
    assert column_name(base, base, "en") == "Column 1 (KV on, sdpa, float32)"
    assert column_name(column(1, kv_cache=False), base, "en") == "Column 2 (KV off)"
    changed = column(2, attention="eager", temperature=0.7, seed=3, model="/models/Qwen2.5-0.5B", dtype="bfloat16")
    assert differences(changed, base, "en") == [
        "eager",
        "bfloat16",
        "Qwen2.5-0.5B",
        "temperature 0.7, top-k 0, top-p 1, seed 3",
    ]
    other = dataclasses.replace(column(3), run=RunSettings(prompt="Another"))
    assert column_name(other, base, "en") == "Column 4 («Another» (7 chars))"  # its prompt
    long = dataclasses.replace(column(2), run=RunSettings(prompt="Explain  the KV cache in one long paragraph"))
    assert column_name(long, base, "en") == "Column 3 («Explain the KV cache in…» (43 chars))"
    named = column_name(base, base, "en", prompts_differ=True)
    assert named == f"Column 1 (KV on, sdpa, float32, «{base.run.prompt}» ({len(base.run.prompt)} chars))"
    assert column_name(column(1), base, "en") == "Column 2 (same settings)"
    assert column_name(column(1, kv_cache=False), base, "zh") == "第 2 列（KV 关）"


def paired(ratio: float, spread: float = 0.05, n: int = 8, load=None):
    """A paired ratio whose n pairs lie within ±spread of `ratio`."""
    values = [ratio * (1 + spread * (2 * i / (n - 1) - 1)) for i in range(n)]
    return ratio_interval(values, [1.0] * n, 0, load)


def test_the_caption_names_the_biggest_separable_time_and_memory_difference():
    cols = [column(0), column(1, kv_cache=False)]
    vs = {"ttft": paired(1.0, 0.3), "tpot": paired(3.1), "e2e": paired(2.2)}
    lines = biggest_differences(
        [summary(0), summary(1, tpot_ms=62.0, e2e_ms=534.0, peak_bytes=1500, kv_end_bytes=0, vs_base=vs)], cols, "en"
    )
    # TPOT ×3.1 beats E2E ×2.2 (TTFT's interval holds 1: not a difference); peak ×1.5 is the only memory
    # ratio (no KV bytes: no ratio, its own line)
    assert lines == [
        "Column 2 (KV off): TPOT 3.10× column 1, peak memory 1.50× column 1",
        "Column 2 (KV off) keeps no KV cache: every step recomputes K and V of the whole context.",
    ]
    assert fmt_ratio(12.4) == "12" and fmt_ratio(0.5) == "0.50"
    busy = {k: paired(3.1, load=MachineLoad(1.2, 2, 5.0)) for k in ("ttft", "tpot", "e2e")}
    lines = biggest_differences([summary(0), summary(1, peak_bytes=1500, vs_base=busy)], cols, "en")
    assert lines[0].startswith("Column 2 (KV off): TTFT 3.10× column 1")  # a busy machine is no switch


def test_summary_of_a_real_run(tiny):
    result = run_to_end(tiny, prompt="The quick brown fox", max_new_tokens=5, kv_cache=True)
    s = summarise(ColumnOutcome(settings=column(0), result=result))
    m = result.metrics
    assert (s.prompt_tokens, s.output_tokens) == (result.num_prompt_tokens, 5)
    assert s.ttft_ms == m.ttft_ms and s.tpot_ms == pytest.approx(s.itl_mean_ms)  # one request: TPOT = mean ITL
    assert s.itl_p50_ms <= s.itl_p99_ms <= max(m.itl_ms)
    assert s.kv_end_bytes == (result.num_prompt_tokens + 4) * result.model.kv_bytes_per_token
    assert s.peak_bytes == max(step.peak_bytes for step in result.steps)


def test_repeats_give_medians_pooled_percentiles_and_spread(tiny):
    """A column timed three times reports each time's median, ITL percentiles over every
    gap of every run, and the spread; the run it shows is the one with the median E2E."""
    result = run_to_end(tiny, prompt="The quick brown fox", max_new_tokens=5)
    times = [(30.0, 10.0, 70.0), (10.0, 20.0, 90.0), (20.0, 40.0, 180.0)]  # (TTFT, ITL, E2E) of each run
    runs = [
        TimedRun(RequestMetrics(ttft_ms=ttft, tpot_ms=itl, itl_ms=[itl] * 4, e2e_ms=e2e, num_output_tokens=5), None)
        for ttft, itl, e2e in times
    ]
    s = summarise(ColumnOutcome(settings=column(0), result=result, runs=runs))
    assert (s.runs, s.ttft_ms, s.tpot_ms, s.e2e_ms) == (3, 20.0, 20.0, 90.0)
    assert (s.itl_p50_ms, s.itl_mean_ms) == (20.0, pytest.approx(70 / 3))  # 12 gaps: 4 of each
    assert s.spread == {"ttft_ms": 1.0, "tpot_ms": 1.5, "e2e_ms": pytest.approx(110 / 90)}
    assert (s.output_tokens, s.peak_bytes) == (5, max(step.peak_bytes for step in result.steps))
    single = summarise(ColumnOutcome(settings=column(0), result=result, runs=runs[:1]))
    assert single.spread is None and single.ttft_ms == 30.0
    pairs = [
        (name, SimpleNamespace(metrics=SimpleNamespace(e2e_ms=e2e))) for name, e2e in (("a", 9), ("b", 30), ("c", 12))
    ]
    assert median_run(pairs)[0] == "c" and median_run(pairs[:2])[0] == "a"  # the middle E2E; of two, the lower


def test_the_latency_bars_show_the_tables_medians_not_the_shown_run(tiny):
    """The shown run has its own TTFT; the bars labelled TTFT and TPOT are the table's (the medians)."""
    result = run_to_end(tiny, prompt="The quick brown fox", max_new_tokens=5)
    runs = [
        TimedRun(RequestMetrics(ttft_ms=ttft, tpot_ms=10.0, itl_ms=[10.0] * 4, e2e_ms=90.0, num_output_tokens=5), None)
        for ttft in (5000.0, 30.0, 20.0)
    ]
    s = summarise(ColumnOutcome(settings=column(0), result=result, runs=runs))
    fig = latency_bars_figure([Series("Column 1", "#000", result)], [s])
    assert list(fig.data[0].y) == [30.0, 10.0] != [result.metrics.ttft_ms, result.metrics.tpot_ms]
    assert fig.layout.title.text.replace("<br>", "") == "TTFT and TPOT per column (median of 3 runs)"
    other = dataclasses.replace(s, runs=2)
    assert (
        "median of each column's runs"
        in latency_bars_figure([Series("a", "#000", result)] * 2, [s, other]).layout.title.text
    )


def test_time_ratios_are_paired_intervals_with_the_busy_reading_beside_and_never_none():
    busy = MachineLoad(1.2, 2, 5.0)
    summaries = [
        summary(0, load=busy),
        summary(1, ttft_ms=300.0, peak_bytes=1500, vs_base={"ttft": paired(3.0, load=busy), "e2e": paired(1.0, 0.4)}),
    ]
    table = summary_table(summaries, ["a", "b"], "en")
    ttft = "TTFT ÷ base [95 %]"
    assert table.loc[ttft, "b"].startswith("3× [2.85–3.15], n = 8") and "1.2/2 cores busy" in table.loc[ttft, "b"]
    assert table.loc[ttft, "a"] == "base"
    assert table.loc["TPOT ÷ base [95 %]", "b"] == "not measured"
    assert table.loc["peak memory ÷ base (×)", "b"] == "1.50"
    assert table.loc["other work while timed", "a"] == "1.2 of 2 cores"
    assert not table.isin(["None", None]).any().any() and "None" not in table.to_string()


def test_a_time_ratio_whose_interval_holds_one_is_not_called_a_difference():
    cols = [column(0), column(1, attention="eager")]
    base = summary(0, runs=5)
    noisy = {"ttft": paired(1.4), "tpot": paired(1.2, 0.3), "e2e": paired(1.08, 0.3)}
    other = summary(1, ttft_ms=140.0, tpot_ms=24.0, e2e_ms=260.0, runs=5, vs_base=noisy)
    lines = biggest_differences([base, other], cols, "en")  # TPOT ×1.2 and E2E ×1.08: intervals hold 1
    assert lines == ["Column 2 (eager): TTFT 1.40× column 1, peak memory 1.00× column 1"]
    quiet = summary(1, tpot_ms=24.0, e2e_ms=260.0, runs=5, vs_base={k: paired(1.1, 0.3) for k in noisy})
    assert biggest_differences([base, quiet], cols, "en") == [
        "Column 2 (eager): times not separable here (every paired ratio's interval includes 1), "
        "peak memory 1.00× column 1"
    ]
    few = summary(1, tpot_ms=62.0, runs=3, vs_base={"ttft": paired(3.1, n=3)})  # too few pairs to judge
    assert biggest_differences([base, few], cols, "en")[0].startswith("Column 2 (eager): times not separable here")


def test_clocked_replay_shows_the_steps_done_by_then(tiny):
    result = run_to_end(tiny, prompt="Hello", max_new_tokens=4)
    elapsed = [tok.time - result.arrival for tok in result.tokens]
    assert step_at(result, elapsed[0] / 2) == -1  # before the prefill finished: nothing lit yet
    assert step_at(result, elapsed[0]) == result.tokens[0].step
    assert step_at(result, elapsed[2]) == result.tokens[2].step
    assert step_at(result, elapsed[-1] + 1) == result.tokens[-1].step


def test_a_comparison_cut_short_is_marked_stopped(tiny):
    done = run_to_end(tiny, prompt="Hello", max_new_tokens=2)
    cut = run_to_end(tiny, prompt="Hello", max_new_tokens=2)
    cut.status = RunStatus.RUNNING  # as Stop leaves the column it interrupted
    result = CompareResult(
        columns=[ColumnOutcome(column(0), done), ColumnOutcome(column(1), cut), ColumnOutcome(column(2))]
    )
    mark_interrupted(result)
    assert result.status == CompareStatus.STOPPED and cut.status == RunStatus.STOPPED
    assert [c.ok for c in result.columns] == [True, False, False]


def test_the_comparison_says_what_it_compares():
    from app_pages.compare.column_summary import what_it_compares

    assert what_it_compares([column(0), column(1, kv_cache=False)], "en") == (
        "This comparison: Column 2 (KV off) against Column 1 (KV on, sdpa, float32), on the same prompt"
    )
    other = dataclasses.replace(column(1), run=RunSettings(prompt="Another"))
    assert what_it_compares([column(0), other], "en").endswith("on different prompts")
    assert what_it_compares([column(0), column(1, kv_cache=False)], "zh").startswith("本次对比：第 2 列（KV 关）")
