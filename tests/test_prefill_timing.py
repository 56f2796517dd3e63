"""Eager against sdpa in time (lab/prefill_timing.py): the same prefill each way, a prefill each in
turn, on a tiny model; planted times give the verdict the interval allows, and no other."""

from __future__ import annotations

import pytest

from engine.errors import LabError
from lab import prefill_timing
from lab.pairing import GREATER, NOT_SEPARABLE, compare
from lab.prefill_timing import prefill_ms, prompt_ids, time_prefills


def test_a_prefill_is_one_step_of_the_whole_prompt(tiny):
    ms = prefill_ms(tiny.model, tiny.tokenizer, prompt_ids(tiny.model, 40), "eager")
    assert ms > 0


def test_both_backends_are_timed_in_every_round(tiny):
    rounds = time_prefills(tiny.model, tiny.tokenizer, 64, 5)
    assert [len(rounds.values[b]) for b in ("eager", "sdpa")] == [5, 5]
    r = rounds.ratio("eager", "sdpa")
    assert r.n == 5 and r.low <= r.median <= r.high and r.judgeable


def test_planted_times_give_the_verdict_the_interval_allows(tiny, monkeypatch):
    """Eager planted 2x sdpa every round: greater. The same time each way: not separable."""
    calls = []

    def planted(model, tokenizer, ids, backend):
        calls.append(backend)
        return 20.0 + len(calls) % 3 if backend == "eager" else 10.0

    monkeypatch.setattr(prefill_timing, "prefill_ms", planted)
    rounds = time_prefills(tiny.model, tiny.tokenizer, 64, 5, warm=False)
    assert compare(rounds.ratio("eager", "sdpa")) == GREATER
    assert calls.count("eager") == calls.count("sdpa") >= 5  # a prefill each, every round
    monkeypatch.setattr(prefill_timing, "prefill_ms", lambda *a: 10.0)
    assert compare(time_prefills(tiny.model, tiny.tokenizer, 64, 5).ratio("eager", "sdpa")) == NOT_SEPARABLE


def test_bad_timings_are_refused(tiny):
    with pytest.raises(LabError, match="Prompt length"):
        time_prefills(tiny.model, tiny.tokenizer, 0, 5)
    with pytest.raises(LabError, match="at least once"):
        time_prefills(tiny.model, tiny.tokenizer, 16, 0)
