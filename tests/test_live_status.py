"""While the one prefill step runs, nothing is drawn: the live line says what is running and, once a
prefill of the same model ran here, how long this one should take at that rate."""

from __future__ import annotations

import pytest

import ui.prefill_pace
from ui.live_html import status_text
from ui.prefill_pace import expected_s, remember
from ui.run_driver import run_steps, start_run
from ui.run_state import RunSettings

PROMPT = "The quick brown fox jumps over the lazy dog. " * 6


def test_the_waiting_line_gives_the_time_at_the_last_measured_rate(tiny, monkeypatch):
    monkeypatch.setattr(ui.prefill_pace, "_RATES", {})
    settings = RunSettings(prompt=PROMPT, max_new_tokens=2)
    _, waiting = start_run(tiny, settings)
    assert expected_s(waiting) is None  # nothing measured yet: no estimate
    assert status_text(waiting, "en").startswith(f"Prefill: all {waiting.num_prompt_tokens} prompt tokens")
    assert "tokens/s" not in status_text(waiting, "en")
    engine, done = start_run(tiny, settings)
    for _ in run_steps(engine, done):
        pass
    remember(done)
    first = done.steps[0]
    rate, seconds = expected_s(waiting)
    assert rate == pytest.approx(first.num_tokens / (first.ms / 1e3))
    assert seconds == pytest.approx(waiting.num_prompt_tokens / rate)
    assert f"{rate:,.0f} tokens/s" in status_text(waiting, "en") and "秒" in status_text(waiting, "zh")
    other = RunSettings(prompt=PROMPT, max_new_tokens=2, attention="eager")
    assert expected_s(start_run(tiny, other)[1]) is None  # another backend: another rate
