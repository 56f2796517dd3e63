"""Public mode's turns and caps: the step lock hands out in arrival order, runs queue for a place and
say how many are ahead, a visitor's starts are rate-limited, the no-cache work formula is the engine's
own count of token rows, and every count widget stops at its cap (AppTest). The queue seen from two
real browsers is in tests/test_browser_public.py."""

from __future__ import annotations

import threading
import time

import pytest

from app_pages import page_file
from engine import Engine, EngineConfig, SamplingParams
from tests.app_helpers import click_run, unescaped
from ui.live import RUN_KEY
from ui.public import PUBLIC_ENV, SETTINGS_ENV, CappedError, PublicSettings, _loaded, check_run_work, uncached_work
from ui.run_queue import FairLock, RateLimit, RunQueue


def test_the_fair_lock_serves_waiters_in_arrival_order():
    lock, order = FairLock(), []
    lock.acquire()
    threads = []
    for i in range(5):
        th = threading.Thread(target=lambda i=i: (lock.acquire(), order.append(i), lock.release()))
        th.start()
        threads.append(th)
        while len(lock._waiting) < i + 1:  # each one queued before the next starts
            time.sleep(0.001)
    lock.release()
    for th in threads:
        th.join(5)
    assert order == [0, 1, 2, 3, 4] and not lock.locked()
    with pytest.raises(RuntimeError):
        lock.release()


def test_a_looping_holder_cannot_starve_a_waiter():
    """The reason for FairLock: a thread that releases and re-takes at once lets the waiter in between."""
    lock, stop, got = FairLock(), threading.Event(), []

    def hog():
        while not stop.is_set():
            with lock:
                time.sleep(0.002)

    th = threading.Thread(target=hog)
    th.start()
    time.sleep(0.02)
    t0 = time.perf_counter()
    with lock:
        got.append(time.perf_counter() - t0)
    stop.set()
    th.join(5)
    assert got[0] < 0.5


def test_runs_queue_in_order_and_see_how_many_are_ahead():
    q = RunQueue(slots=1)
    a, b, c = q.join(), q.join(), q.join()
    assert q.wait(a, 0) == 0  # the first takes the place
    assert q.wait(b, 0) == 1 and q.wait(c, 0) == 2  # one running ahead of b; that one and b ahead of c
    q.leave(c)  # c cancelled: it leaves the line
    assert q.counts() == (1, 1)
    released = threading.Timer(0.1, q.leave, args=(a,))
    released.start()
    t0 = time.perf_counter()
    assert q.wait(b, 5) == 0 and time.perf_counter() - t0 < 2  # woken when a leaves, not at the timeout
    q.leave(b)
    assert q.counts() == (0, 0)
    two = RunQueue(slots=2)
    x, y, z = two.join(), two.join(), two.join()
    assert two.wait(x, 0) == 0 and two.wait(y, 0) == 0 and two.wait(z, 0) == 2


def test_the_rate_limit_counts_a_minute_of_starts():
    now = [0.0]
    rate = RateLimit(2, clock=lambda: now[0])
    rate.start()
    now[0] = 10.0
    rate.start()
    assert rate.wait_s() == pytest.approx(50.0)  # the first start leaves the window at 60 s
    now[0] = 60.0
    assert rate.wait_s() == 0.0


def test_the_no_cache_work_formula_is_the_engines_count_of_rows(tiny):
    """n·P + n(n−1)/2: the token rows a run without the cache computes, step by step."""
    prompt, n = list(range(5, 5 + 9)), 7
    engine = Engine(tiny.model, tiny.tokenizer, EngineConfig(kv_cache=False, kv_cache_bytes=0, probe_memory=False))
    engine.add_request(prompt, SamplingParams(max_new_tokens=n, ignore_eos=True))
    rows = sum(event.step.num_tokens for event in engine.stream() if event.step is not None)
    assert rows == uncached_work(len(prompt), n) == 9 * 7 + 7 * 6 // 2


def test_the_work_caps_hold_at_their_edges():
    public = PublicSettings(enabled=True, max_step_tokens=100, max_uncached_work=1000)
    check_run_work(100, 50, kv_cache=True, public=public)  # a prompt of exactly the cap
    with pytest.raises(CappedError) as e:
        check_run_work(101, 1, kv_cache=True, public=public)
    assert e.value.key == "public_step_capped" and e.value.values["cap"] == 100
    edge = max(n for n in range(1, 100) if uncached_work(10, n) <= 1000)
    check_run_work(10, edge, kv_cache=False, public=public)
    with pytest.raises(CappedError, match="public_work_capped"):
        check_run_work(10, edge + 1, kv_cache=False, public=public)
    check_run_work(10**6, 10**6, kv_cache=False, public=PublicSettings())  # public mode off: nothing


@pytest.fixture
def capped_public(tiny_dirs, tmp_path, monkeypatch):
    settings = tmp_path / "lab.toml"
    settings.write_text(
        f'[public]\nmodels = ["{tiny_dirs["llama"]}"]\nmax_new_tokens = 40\nmax_repeats = 2\n'
        "max_requests = 5\nmax_batch = 4\nmax_columns = 3\nmax_step_tokens = 200\n"
        "max_uncached_work = 300\nruns_per_minute = 2\n"
    )
    monkeypatch.setenv(PUBLIC_ENV, "1")
    monkeypatch.setenv(SETTINGS_ENV, str(settings))
    monkeypatch.setenv("PDLAB_MODEL", str(tiny_dirs["llama"]))
    _loaded.cache_clear()
    yield settings
    _loaded.cache_clear()


def test_every_count_widget_stops_at_its_cap_and_says_why(new_app, capped_public):
    at = new_app(180).run()
    pages = {
        "sweeps": [("sw_repeats", 5), ("sw_new", 40)],  # rounds: never below the five a verdict needs
        "complexity": [("cx_N", 40)],
        "memory": [("mem_leak_n", 5)],
        "serving": [("sv_batch", 4)],
    }
    for page, widgets in pages.items():
        at.switch_page(page_file(page)).run()
        assert not at.exception, (page, [e.value for e in at.exception])
        for key, cap in widgets:
            box = at.number_input(key=key)
            assert box.max == cap and "public server" in box.help, (page, key, box.max, box.help)
    at.switch_page(page_file("roofline")).run()
    assert max(at.multiselect(key="rf_batches").options, key=int) == "4"
    at.switch_page(page_file("compare")).run()
    assert at.radio(key="cmp_n").options == ["2", "3"]
    repeats = at.number_input(key="cmp_repeats")  # its default, 3, comes down to the cap
    assert repeats.max == repeats.value == 2 and "public server" in repeats.help


def test_a_no_cache_run_over_the_work_cap_is_refused_with_the_arithmetic(new_app, capped_public):
    at = new_app(180).run()
    at.session_state["pg_prompt"] = "one two three four five six"
    at.session_state["pg_kv"] = False
    at.session_state["pg_max_new"] = 40
    at = at.button(key="pg_run").click().run()
    assert not at.exception
    message = " ".join(unescaped(at.error))
    assert "n·P + n(n−1)/2" in message and "allows 300 per run" in message, message
    assert RUN_KEY not in at.session_state  # refused before anything ran
    at.session_state["pg_max_new"] = 3  # small enough: runs
    at = at.button(key="pg_run").click().run()
    assert not at.exception and not at.error
    assert len(at.session_state[RUN_KEY].tokens) >= 1


def test_a_visitor_over_the_rate_limit_waits(new_app, capped_public):
    at = new_app(180).run()
    at.session_state["pg_prompt"] = "Hello"
    at.session_state["pg_max_new"] = 2
    for _ in range(2):
        at = at.button(key="pg_run").click().run()
        assert not at.error, unescaped(at.error)
    at = at.button(key="pg_run").click().run()
    assert any("at most 2 runs a minute" in m for m in unescaped(at.error)), unescaped(at.error)


def test_a_run_waits_for_the_place_another_holds(new_app, capped_public):
    """The page's run joins the registry's queue: while another run holds the one place it waits, and it
    goes as soon as that place is given back."""
    from ui.models import get_registry

    queue = get_registry().run_queue(1)
    other = queue.join()
    assert queue.wait(other, 0) == 0
    threading.Timer(3.0, queue.leave, args=(other,)).start()
    t0 = time.perf_counter()
    at = new_app(180).run()
    at.session_state["pg_prompt"] = "Hello"
    at.session_state["pg_max_new"] = 2
    at = click_run(at)  # and its second pass, which takes a turn of its own
    assert not at.exception and len(at.session_state[RUN_KEY].tokens) >= 1
    assert time.perf_counter() - t0 >= 3.0  # it waited for the other run
    assert queue.counts() == (0, 0)  # and gave its place back


def test_a_sweep_over_the_caps_is_refused_and_says_which(new_app, capped_public):
    capped_public.write_text(capped_public.read_text() + "max_sweep_points = 4\n")
    _loaded.cache_clear()
    at = new_app(180).run()
    at.switch_page(page_file("sweeps")).run()
    for lengths, outputs, expected in [
        ("8, 16, 32", "2, 4", "5 lengths to measure"),
        ("8, 300", "2, 4", "300 is over this public server's cap of 200"),
        ("8, 16", "2, 41", "41 is over this public server's cap of 40"),
    ]:
        at.session_state["sw_Ls"] = lengths
        at.session_state["sw_Ns"] = outputs
        at = at.button(key="sw_run").click().run()
        assert not at.exception and any(expected in m for m in unescaped(at.error)), (expected, unescaped(at.error))
