"""Issue 16.12: long work says how long it has left, from the pace of what it has already measured."""
from __future__ import annotations

import pytest

from lab.sweeps import SweepSettings, seconds_left, sweep_plan
from ui.text import fmt_duration


def test_the_estimate_follows_the_measured_pace_and_the_work_left():
    settings = SweepSettings(prompt_lens=(20, 40), prompt_new_tokens=4, output_prompt_len=20, output_lens=(4, 8),
                             repeats=2)
    plan = sweep_plan(settings)
    assert [(kind, L, n) for _, kind, L, n in plan[:4]] == [("prompt", 20, 4), ("prompt", 40, 4), ("output", 20, 4),
                                                          ("output", 20, 8)]
    work = [n + L / 20 for _, _, L, n in plan]  # a request's decode steps plus its prompt at 20 tokens a step
    assert seconds_left(plan, 1, 0.0) is None  # one request: no pace yet (the first pays one-off costs)
    left = seconds_left(plan, 4, 3.0)  # requests 2-4 took 3 s
    assert left == pytest.approx(3.0 * sum(work[4:]) / sum(work[1:4]))
    assert seconds_left(plan, len(plan), 10.0) == 0.0


@pytest.mark.parametrize("seconds, en, zh", [(3, "5 s", "5 秒"), (42, "40 s", "40 秒"), (200, "3 min", "3 分钟")])
def test_durations_are_rounded_like_estimates(seconds, en, zh):
    assert fmt_duration(seconds, "en") == en and fmt_duration(seconds, "zh") == zh
