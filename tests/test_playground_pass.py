"""The playground's second pass (memory, captured attention) runs after the timed run in a thread of
its own: every tab but Memory is there the moment the timed run ends, the Memory tab (and an eager
run's heatmap) show the pass's progress and time left, and the page takes its readings when it ends.
A gate holds the pass after its first step (a slowed pass), so what the page shows meanwhile is seen."""

from __future__ import annotations

import re
import threading
import time
from types import SimpleNamespace

import pytest

import app_pages.playground.second_pass as second_pass
from app_pages.playground.second_pass import PassJob
from tests.app_helpers import after_second_pass, errors, run_playground
from tests.figure_checks import charts
from ui.run_queue import RunQueue
from ui.run_state import RunStatus

PROGRESS = re.compile(
    r"^Timed run done\. Measuring memory on a second, untimed pass over the same tokens: step \d+ of \d+"
)


@pytest.fixture
def gate(monkeypatch):
    """Holds the second pass after its first step until set (and lets it go at the test's end)."""
    opened = threading.Event()
    measure = second_pass.measure_pass

    def slowed(*args, **kwargs):
        for progress in measure(*args, **kwargs):
            yield progress
            opened.wait(120)

    monkeypatch.setattr(second_pass, "measure_pass", slowed)
    yield opened
    opened.set()


def start_run(at, prompt: str = "The quick brown fox", **settings):
    """Click Run and return the page as the timed run's end leaves it (the pass not awaited)."""
    at.session_state["pg_prompt"] = prompt
    at.session_state["pg_chat"] = False
    for key, value in settings.items():
        at.session_state[f"pg_{key}"] = value
    return at.button(key="pg_run").click().run()


def test_every_tab_but_memory_is_there_while_the_memory_pass_runs(app, gate):
    at = start_run(app, max_new=5, attention="sdpa")
    assert not at.exception and not errors(at)
    result, job = at.session_state["pg_result"], at.session_state["pg_pass_job"]
    assert result.status == RunStatus.DONE and job.running and result.pass_pending
    assert len(at.tabs) == 6
    table = at.dataframe[0].value  # the step table, from the timed run
    assert list(table["step"]) == [s.step for s in result.steps] and set(table["peak memory"]) == {"—"}
    assert len(at.get("download_button")) == 2
    shown = {c.value for c in at.caption}
    assert "The peak memory column fills in when the memory pass ends (Memory tab)." in shown
    assert any(c.startswith("Files downloaded now hold the timed run only") for c in shown)
    titles = set(charts(at))
    assert {"Latency of each output token", "KV cache per step: tokens and blocks"} <= titles
    assert "Peak transient memory per step" not in titles  # the Memory tab waits for the pass
    bars = [p for p in at.get("progress") if PROGRESS.match(p.text)]
    assert len(bars) == 1 and " left" in bars[0].text, [p.text for p in at.get("progress")]  # with its estimate
    gate.set()
    at = after_second_pass(at)
    assert not at.exception and not errors(at) and not result.pass_pending and result.memory_pass == "replay"
    assert not any(PROGRESS.match(p.text) for p in at.get("progress"))
    memory = charts(at)["Peak transient memory per step"]
    peak = next(d for d in memory["data"] if d["name"] == "peak, prefill")
    assert peak["y"][0] > 0
    assert "—" not in set(at.dataframe[0].value["peak memory"])
    assert "pg_pass_job" not in at.session_state


def test_an_eager_runs_heatmap_says_it_waits_for_the_capture(app, gate):
    at = start_run(app, max_new=4, attention="eager")
    assert not at.exception and not errors(at)
    assert "Attention shapes per head, to scale: prefill vs a later step" in charts(at)  # from the timed run
    texts = [p.text for p in at.get("progress")]
    assert any(t.startswith("Timed run done. The heatmap needs the attention probabilities") for t in texts), texts
    assert not any("eager" in i.value for i in at.info)  # not "choose eager": it is on its way
    gate.set()
    at = after_second_pass(at)
    assert "Attention probabilities, layer 1, head 0" in charts(at)
    assert not any(p.text.startswith("Timed run done.") for p in at.get("progress"))


def test_a_new_run_calls_off_the_last_runs_pass(app, gate):
    at = start_run(app, max_new=5)
    first, job = at.session_state["pg_result"], at.session_state["pg_pass_job"]
    assert job.running
    threading.Thread(target=lambda: job.cancelled.wait(60) and gate.set(), daemon=True).start()  # held till then
    at = run_playground(at, "Hello there", max_new=3)  # calls the old pass off, then runs
    assert job.cancelled.is_set() and not job.running and first.memory_pass is None
    result = at.session_state["pg_result"]
    assert result is not first and not errors(at) and result.memory_pass == "replay"


def test_a_failed_pass_keeps_the_timed_run_and_says_why(app, monkeypatch):
    def broken(*args, **kwargs):
        raise ValueError("planted: the replay broke")
        yield  # a generator, as measure_pass is

    monkeypatch.setattr(second_pass, "measure_pass", broken)
    at = run_playground(app, "Hello", max_new=3)
    result = at.session_state["pg_result"]
    assert result.status == RunStatus.FAILED and len(result.tokens) >= 1
    assert any(re.search(r"Internal error \(ValueError\), logged as [0-9a-f]{8}", e) for e in errors(at)), errors(at)


def _job(work_ms: list[float]) -> PassJob:
    return PassJob(result=None, work_ms=work_ms)  # type: ignore[arg-type]  # the estimate reads no run


def test_the_estimate_starts_from_the_timed_run_then_follows_the_pass():
    job = _job([500.0] + [20.0] * 10)
    assert job.seconds_left(now=0.0) == pytest.approx(second_pass.PROBE_STEP_COST * 0.7)
    job.done, job.first_done = 1, 100.0
    assert job.seconds_left(now=101.0) == pytest.approx(second_pass.PROBE_STEP_COST * 0.2)  # no pace yet
    job.done = 3  # two decode steps in 0.1 s: 50 ms each, where the timed run took 20
    assert job.seconds_left(now=100.1) == pytest.approx(8 * 0.05)
    assert job.fraction() == pytest.approx(540 / 700)
    job.finished.set()
    assert job.seconds_left() is None


def test_a_queued_pass_has_no_estimate_until_its_turn():
    job = _job([10.0, 10.0])
    job.waiting = True
    assert job.seconds_left() is None


def _counted_pass(monkeypatch, steps: int) -> tuple[PassJob, threading.Event]:
    """A pass of `steps` steps (no model: the replay is a stand-in that only counts them); the event
    is set once a step has run."""
    stepped = threading.Event()

    def replay(_bundle, _result, _lock):
        for done in range(1, steps + 1):
            stepped.set()
            yield done, steps

    monkeypatch.setattr(second_pass, "measure_pass", replay)
    job = PassJob(result=SimpleNamespace(pass_pending=True), work_ms=[1.0] * steps)  # type: ignore[arg-type]
    return job, stepped


def test_a_pass_whose_visitor_has_gone_gives_up_its_place_in_the_line(monkeypatch):
    queue = RunQueue(1)
    running = queue.join()
    assert queue.wait(running, 0) == 0  # someone else's run holds the one place
    here = threading.Event()
    here.set()
    job, stepped = _counted_pass(monkeypatch, 3)
    second_pass.start_pass(job, None, None, queue, here.is_set)
    deadline = time.monotonic() + 10
    while not job.waiting and time.monotonic() < deadline:
        time.sleep(0.01)
    assert job.waiting and queue.counts() == (1, 1)
    here.clear()  # the browser closed while the pass waited
    assert job.finished.wait(10) and not stepped.is_set()
    assert queue.counts() == (1, 0) and not job.result.pass_pending


def test_a_running_pass_stops_between_steps_once_its_visitor_has_gone(monkeypatch):
    answers = iter([True, False])  # still there after the first step; gone after the second
    job, _ = _counted_pass(monkeypatch, 5)
    queue = RunQueue(1)
    second_pass.start_pass(job, None, None, queue, lambda: next(answers, False))
    assert job.finished.wait(10)
    assert job.done == 2 and queue.counts() == (0, 0)


def test_a_loaded_trace_calls_off_the_pass_of_the_run_it_replaces(app, gate, saved_run):
    from tests.app_helpers import upload_trace

    at = start_run(app, max_new=5)
    job = at.session_state["pg_pass_job"]
    threading.Thread(target=lambda: job.cancelled.wait(60) and gate.set(), daemon=True).start()
    at = upload_trace(at, saved_run[2])
    assert job.cancelled.is_set() and not job.running and not errors(at)
    assert at.session_state["pg_result"].loaded_from == "trace.json"
    assert not any(p.text.startswith("Timed run done.") for p in at.get("progress"))
