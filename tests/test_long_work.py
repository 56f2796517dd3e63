"""Long work says how long it has left, from the pace of what it has already measured."""

from __future__ import annotations

import pytest

from app_pages.memory.sweep import SweepPlan, SweepResult, point_work
from app_pages.memory.sweep import seconds_left as memory_seconds_left
from lab import complexity
from lab.claims_measure import ClaimSettings
from lab.claims_pace import PRIOR_WORK, ClaimsPace, part_work
from lab.eta import Pace
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


def test_the_claims_estimate_weighs_each_part_by_its_work_and_leaves_out_the_ceilings():
    s = ClaimSettings()
    now = [0.0]
    pace = ClaimsPace(["run A", "worked", "ceilings", "sweep"], s, lambda: now[0])
    work = [part_work(what, s) for what in pace.parts]
    assert work[2] == 0 and pace.at(0).seconds_left is None
    now[0] = 2.0  # run A took 2 s: the first part pays one-off costs, it is not the pace
    assert pace.at(1).seconds_left is None
    now[0] = 3.0  # the worked example took 1 s
    assert pace.at(2).seconds_left == pytest.approx(1.0 * work[3] / work[1])
    now[0] = 13.0  # the ceilings took 10 s, measured once for this machine: not the pace either
    assert pace.at(3).seconds_left == pytest.approx(1.0 * work[3] / work[1])
    now[0] = 23.0  # half the sweep took 10 s more
    half = pace.at(3, 0.5)
    assert half.seconds_left == pytest.approx(11.0 * (0.5 * work[3]) / (work[1] + 0.5 * work[3]))
    assert half.fraction == pytest.approx((work[0] + work[1] + 0.5 * work[3]) / sum(work))  # the bar tracks work
    done = pace.at(4)
    assert (done.what, done.fraction, done.seconds_left) == ("done", 1.0, None)
    assert work[3] > 5 * work[0]  # the sweep is most of the check: a pace per part would be far off


def test_the_claims_estimate_starts_from_the_expected_step_time_and_moves_to_the_measured_one():
    s = ClaimSettings()
    now = [0.0]
    pace = ClaimsPace(["run A", "sweep"], s, lambda: now[0], step_s=0.02)
    work = [part_work(what, s) for what in pace.parts]
    assert pace.at(0).seconds_left == pytest.approx(0.02 * sum(work))  # an estimate from the first moment
    now[0] = 2.0
    assert pace.at(1).seconds_left == pytest.approx(0.02 * work[1])  # nothing after run A measured yet
    now[0] = 12.0  # half the sweep took 10 s: 0.02 s a step expected, 10 / (work / 2) measured
    half = pace.at(1, 0.5).seconds_left
    assert half == pytest.approx((10.0 + 0.02 * PRIOR_WORK) / (0.5 * work[1] + PRIOR_WORK) * 0.5 * work[1])


def test_a_run_paced_by_its_fraction_waits_for_a_pace_and_excludes_what_came_before():
    now = [0.0]
    pace = Pace(lambda: now[0])
    assert pace.seconds_left(0.0) is None  # set-up, however long, is not the pace
    now[0] = 10.0
    assert pace.seconds_left(0.1) is None  # the first report: the start of the pace (loading came before)
    now[0] = 10.5
    assert pace.seconds_left(0.3) is None  # under a second: no estimate yet
    now[0] = 14.0
    assert pace.seconds_left(0.5) == pytest.approx(4.0 * 0.5 / 0.4)
    assert pace.seconds_left(1.0) is None  # done


@pytest.mark.parametrize("seconds, en, zh", [(3, "5 s", "5 秒"), (42, "40 s", "40 秒"), (200, "3 min", "3 分钟")])
def test_durations_are_rounded_like_estimates(seconds, en, zh):
    assert fmt_duration(seconds, "en") == en and fmt_duration(seconds, "zh") == zh
