"""Long work says how long it has left, from the pace of what it has already measured."""

from __future__ import annotations

import pytest

from app_pages.memory.sweep import SweepPlan, SweepResult, point_work
from app_pages.memory.sweep import seconds_left as memory_seconds_left
from lab import complexity
from lab.sweeps import SweepSettings, seconds_left, sweep_plan
from ui.text import fmt_duration


def test_the_estimate_follows_the_measured_pace_and_the_work_left():
    settings = SweepSettings(
        prompt_lens=(20, 40), prompt_new_tokens=4, output_prompt_len=20, output_lens=(4, 8), repeats=2
    )
    plan = sweep_plan(settings)
    assert [(kind, L, n) for _, kind, L, n in plan[:4]] == [
        ("prompt", 20, 4),
        ("prompt", 40, 4),
        ("output", 20, 4),
        ("output", 20, 8),
    ]
    work = [n + L / 20 for _, _, L, n in plan]  # a request's decode steps plus its prompt at 20 tokens a step
    assert seconds_left(plan, 1, 0.0) is None  # one request: no pace yet (the first pays one-off costs)
    left = seconds_left(plan, 4, 3.0)  # requests 2-4 took 3 s
    assert left == pytest.approx(3.0 * sum(work[4:]) / sum(work[1:4]))
    assert seconds_left(plan, len(plan), 10.0) == 0.0


def test_the_complexity_estimate_counts_the_rows_each_uncached_step_recomputes():
    # a cached step takes 10 ms; the prefill of L = 5 rows 30 ms: 5 ms a row beyond the first
    assert complexity.seconds_left(None, [], [], 5, 4) is None  # nothing measured yet
    left = complexity.seconds_left(30.0, [10.0, 10.0], [], 5, 4)
    uncached = sum(10 + r * 5 for r in (5, 6, 7, 8))  # decode step i recomputes L + i + 1 rows
    assert left == pytest.approx((2 * 10 + uncached) / 1e3)
    # three uncached steps measured: the pace comes from them (they took 2 ms a row here, not 5)
    measured = [10 + r * 2 for r in (5, 6, 7)]
    assert complexity.seconds_left(30.0, [10.0] * 4, measured, 5, 4) == pytest.approx((10 + 8 * 2) / 1e3)
    assert complexity.seconds_left(None, [10.0], [], 1, 4) is None  # L = 1: the prefill tells no row's cost


def test_the_memory_sweep_estimate_weighs_each_point_by_its_length():
    plan = SweepPlan([64, 1024], ["eager", "sdpa"], [])
    result = SweepResult(plan=plan, model_name="m", dtype="float32", elem_bytes=4, num_heads=9, weight_bytes=0)
    points = plan.points()
    result.seconds = [5.0, 1.0]  # the first (warm-up costs) is left out of the pace
    result.points = [None, None]
    work = [point_work(L) for L, _ in points]
    assert memory_seconds_left(result) == pytest.approx(1.0 * sum(work[2:]) / work[1])
    assert work[2] > 10 * work[1]  # L = 1024 against 64: the pace is not per point
    result.seconds, result.points = [5.0], [None]
    assert memory_seconds_left(result) is None


@pytest.mark.parametrize("seconds, en, zh", [(3, "5 s", "5 秒"), (42, "40 s", "40 秒"), (200, "3 min", "3 分钟")])
def test_durations_are_rounded_like_estimates(seconds, en, zh):
    assert fmt_duration(seconds, "en") == en and fmt_duration(seconds, "zh") == zh
