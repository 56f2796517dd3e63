"""The compare page's pure parts: how columns are named by what they change, the caption's biggest
differences, the summary of a real tiny run, the clocked replay's step at a given time, a comparison cut short."""
from __future__ import annotations

import dataclasses

import pytest

from app_pages.compare.metrics import ColumnSummary, biggest_differences, column_name, differences, fmt_ratio, summarise
from app_pages.compare.replay import step_at
from app_pages.compare.state import ColumnOutcome, ColumnSettings, CompareResult, CompareStatus, mark_interrupted
from tests.ui_support import run_to_end
from ui.run_state import RunSettings, RunStatus


def column(i: int, **changes) -> ColumnSettings:
    model = changes.pop("model", "bundled")
    dtype = changes.pop("dtype", "float32")
    return ColumnSettings(index=i, run=RunSettings(prompt="Hi", **changes), model=model, dtype=dtype)


def summary(i: int, **values) -> ColumnSummary:
    base = dict(index=i, prompt_tokens=5, output_tokens=8, ttft_ms=100.0, tpot_ms=20.0, itl_mean_ms=20.0,
                itl_p50_ms=20.0, itl_p99_ms=30.0, e2e_ms=240.0, peak_bytes=1000, kv_end_bytes=4000)
    return ColumnSummary(**{**base, **values})


def test_columns_are_named_by_what_they_change():
    base = column(0)
    assert column_name(base, base, "en") == "Column 1 (KV on, sdpa, float32)"
    assert column_name(column(1, kv_cache=False), base, "en") == "Column 2 (KV off)"
    changed = column(2, attention="eager", temperature=0.7, seed=3, model="/models/Qwen2.5-0.5B", dtype="bfloat16")
    assert differences(changed, base, "en") == ["eager", "bfloat16", "Qwen2.5-0.5B",
                                                "temperature 0.7, top-k 0, top-p 1, seed 3"]
    other = dataclasses.replace(column(3), run=RunSettings(prompt="Another"))
    assert column_name(other, base, "en") == "Column 4 («Another» (7 chars))"  # issue 16.10: its prompt
    long = dataclasses.replace(column(2), run=RunSettings(prompt="Explain  the KV cache in one long paragraph"))
    assert column_name(long, base, "en") == "Column 3 («Explain the KV cache in…» (43 chars))"
    named = column_name(base, base, "en", prompts_differ=True)
    assert named == f"Column 1 (KV on, sdpa, float32, «{base.run.prompt}» ({len(base.run.prompt)} chars))"
    assert column_name(column(1), base, "en") == "Column 2 (same settings)"
    assert column_name(column(1, kv_cache=False), base, "zh") == "第 2 列（KV 关）"


def test_the_caption_names_the_biggest_time_and_memory_difference():
    cols = [column(0), column(1, kv_cache=False)]
    lines = biggest_differences([summary(0), summary(1, tpot_ms=62.0, e2e_ms=534.0, peak_bytes=1500, kv_end_bytes=0)],
                                cols, "en")
    # TPOT ×3.1 beats E2E ×2.2; peak ×1.5 is the only memory ratio (no KV bytes: no ratio, its own line)
    assert lines == ["Column 2 (KV off): TPOT 3.10× column 1, peak memory 1.50× column 1",
                     "Column 2 (KV off) keeps no KV cache: every step recomputes K and V of the whole context."]
    assert fmt_ratio(12.4) == "12" and fmt_ratio(0.5) == "0.50"
    busy = biggest_differences([summary(0), summary(1, tpot_ms=62.0, e2e_ms=534.0, peak_bytes=1500)], cols, "en",
                               busy=True)  # issue 16.11: a time ratio measured on a busy machine is not given
    assert busy == ["Column 2 (KV off): time ratios unreliable (the machine was busy), peak memory 1.50× column 1"]


def test_summary_of_a_real_run(tiny):
    result = run_to_end(tiny, prompt="The quick brown fox", max_new_tokens=5, kv_cache=True)
    s = summarise(ColumnOutcome(settings=column(0), result=result))
    m = result.metrics
    assert (s.prompt_tokens, s.output_tokens) == (result.num_prompt_tokens, 5)
    assert s.ttft_ms == m.ttft_ms and s.tpot_ms == pytest.approx(s.itl_mean_ms)  # one request: TPOT = mean ITL
    assert s.itl_p50_ms <= s.itl_p99_ms <= max(m.itl_ms)
    assert s.kv_end_bytes == (result.num_prompt_tokens + 4) * result.model.kv_bytes_per_token
    assert s.peak_bytes == max(step.peak_bytes for step in result.steps)


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
    result = CompareResult(columns=[ColumnOutcome(column(0), done), ColumnOutcome(column(1), cut),
                                    ColumnOutcome(column(2))])
    mark_interrupted(result)
    assert result.status == CompareStatus.STOPPED and cut.status == RunStatus.STOPPED
    assert [c.ok for c in result.columns] == [True, False, False]
