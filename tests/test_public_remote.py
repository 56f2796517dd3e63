"""Public mode on the pages that reach past the engine's own runs (AppTest): every prompt box keeps to
the character cap (the Speculative page's and the Remote page's too); the Remote page's one prompt,
load and capacity search keep to the caps, take a turn in the queue and count against the per-minute
limit, and a capacity search ends within its budget; the limit counts a client, so a new tab starts
no more, and a client behind a trusted proxy is the address the proxy names."""

from __future__ import annotations

import threading
import time

import pytest

from app_pages import page_file
from tests.app_helpers import unescaped
from tests.fault_server import fault_server
from ui.public import PUBLIC_ENV, SETTINGS_ENV, PublicSettings, _loaded
from ui.public_client import client_address
from ui.run_queue import ClientLimits


@pytest.fixture(scope="module")
def faulty():
    with fault_server() as base:
        yield base


@pytest.fixture
def public_lab(tiny_dirs, tmp_path, monkeypatch):
    """Public mode on, the tiny model, small caps; `allow(url)` lists a remote server."""
    settings = tmp_path / "lab.toml"
    base = (
        f'[public]\nmodels = ["{tiny_dirs["llama"]}"]\nmax_new_tokens = 12\nmax_prompt_chars = 40\n'
        "max_requests = 10\nmax_batch = 2\nmax_step_tokens = 200\nruns_per_minute = 3\n"
    )
    settings.write_text(base)
    monkeypatch.setenv(PUBLIC_ENV, "1")
    monkeypatch.setenv(SETTINGS_ENV, str(settings))
    monkeypatch.setenv("PDLAB_MODEL", str(tiny_dirs["llama"]))
    _loaded.cache_clear()

    def allow(url: str) -> None:
        settings.write_text(base + f'remote_urls = ["{url}"]\n')
        _loaded.cache_clear()  # the owner restarted the server with the new file

    yield allow
    _loaded.cache_clear()


def remote(new_app, url: str):
    """The Remote page, connected to `url` (the one server the owner lists)."""
    at = new_app(180).run()
    at.switch_page(page_file("remote")).run()
    assert at.selectbox(key="rm_url_choice").options == [url]
    at = next(b for b in at.button if b.label == "Connect").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    return at


def send(at):
    return next(b for b in at.button if b.label == "Send").click().run()


def run_load(at):
    return next(b for b in at.button if b.label == "Run the load").click().run()


def test_the_speculative_pages_prompt_keeps_to_the_cap(new_app, public_lab):
    """An 8 MB prompt was tokenised whole there: the box now stops at the cap, and Streamlit cuts a
    longer value held in the session before the page reads it."""
    at = new_app(180).run()
    at.switch_page(page_file("speculative")).run()
    assert at.text_area(key="sp_prompt").max_chars == 40
    at.session_state["sp_prompt"] = "x" * 8000
    at = at.run()
    assert not at.exception and len(at.session_state["sp_prompt"]) <= 40


def test_the_remote_page_keeps_to_the_caps(new_app, public_lab, faulty):
    url = f"{faulty}/quirks"
    public_lab(url)
    at = remote(new_app, url)
    assert at.text_area(key="rm_prompt").max_chars == 40
    at = at.radio(key="rm_mode").set_value("concurrent").run()  # the mode that reads Concurrency
    for key, cap in (("rm_max_tokens", 12), ("rm_load_tokens", 12), ("rm_concurrency", 2), ("rm_cap_tokens", 12)):
        box = at.number_input(key=key)
        assert box.max == cap and "public server" in box.help, (key, box.max, box.help)
    assert at.number_input(key="rm_prompt_tokens").max == 200 and at.number_input(key="rm_duration").max == 120
    at.session_state["rm_prompt"] = "y" * 500
    at = send(at)
    assert not at.exception
    sent = at.session_state.get("rm_one_result")
    assert sent is None or len(sent.request.prompt) <= 40  # cut by the box, or refused: never sent whole
    at = at.radio(key="rm_mode").set_value("workload").run()
    at.selectbox(key="rm_preset").set_value("random-mix")
    at = run_load(at)  # the random-mix preset: 32 requests of up to 128 tokens, over the caps
    assert not at.exception and any("this public server takes at most 10" in m for m in unescaped(at.error))
    assert not at.session_state.get("rm_load_result")


def test_the_remote_pages_runs_count_against_the_per_minute_limit(new_app, public_lab, faulty):
    url = f"{faulty}/quirks"
    public_lab(url)
    at = remote(new_app, url)
    at = send(at)  # 1
    assert at.session_state["rm_one_result"].error is None
    at = at.radio(key="rm_mode").set_value("concurrent").run()
    at.number_input(key="rm_requests").set_value(2)
    at = run_load(at)  # 2
    assert not at.error and at.session_state["rm_load_result"][0][0].summary()["finished"] == 2
    at.number_input(key="rm_cap_max_load").set_value(1)
    at = at.button(key="rm_cap_run").click().run()  # 3
    assert not at.error and at.session_state["rm_cap_result"].points
    at = send(at)  # 4: over the limit
    assert any("at most 3 runs a minute" in m for m in unescaped(at.error)), unescaped(at.error)


def test_the_remote_pages_runs_wait_for_the_place_another_holds(new_app, public_lab, faulty):
    """Two visitors' capacity searches ran at once: each of the page's runs now takes its turn."""
    from ui.models import get_registry

    url = f"{faulty}/quirks"
    public_lab(url)
    at = remote(new_app, url)
    at.number_input(key="rm_cap_max_load").set_value(1)
    at = at.radio(key="rm_mode").set_value("concurrent").run()
    at.number_input(key="rm_requests").set_value(2)
    queue = get_registry().run_queue(1)
    for start in (send, run_load, lambda at: at.button(key="rm_cap_run").click().run()):
        other = queue.join()
        assert queue.wait(other, 0) == 0
        threading.Timer(1.5, queue.leave, args=(other,)).start()
        t0 = time.perf_counter()
        at = start(at)
        assert not at.exception and not at.error, [e.value for e in at.error]
        assert time.perf_counter() - t0 >= 1.5  # it waited for the other run
        assert queue.counts() == (0, 0)  # and gave its place back


def test_a_visitors_capacity_search_ends_within_its_budget(new_app, public_lab, faulty):
    """Each reply of this server takes 6 s: the first load alone would run a minute; a 10 s budget
    took 60-64 s before each load was cut where the budget ends."""
    url = f"{faulty}/slow"
    public_lab(url)
    at = remote(new_app, url)
    at.number_input(key="rm_cap_budget").set_value(10)
    at.number_input(key="rm_cap_max_load").set_value(2)
    t0 = time.perf_counter()
    at = at.button(key="rm_cap_run").click().run()
    took = time.perf_counter() - t0
    assert not at.exception and took < 16, took
    assert any("the time budget ran out" in w.value for w in at.warning), [w.value for w in at.warning]


def test_a_new_tab_starts_no_more_runs(new_app, public_lab, monkeypatch):
    """The limit counts the client: a second session from the same address (a new tab) has no fresh
    allowance; another address has its own."""
    for _ in range(3):
        at = new_app(180).run()  # a new tab each time
        at.session_state["pg_prompt"] = "Hello"
        at.session_state["pg_max_new"] = 2
        at = at.button(key="pg_run").click().run()
        assert not at.error, unescaped(at.error)
    tab = new_app(180).run()
    tab.session_state["pg_prompt"] = "Hello"
    tab = tab.button(key="pg_run").click().run()
    assert any("at most 3 runs a minute" in m for m in unescaped(tab.error)), unescaped(tab.error)
    monkeypatch.setattr("ui.queue_wait.this_client", lambda: "203.0.113.9")  # another visitor
    tab = tab.button(key="pg_run").click().run()
    assert not tab.error, unescaped(tab.error)


def test_the_client_is_the_address_a_trusted_proxy_names():
    open_ = PublicSettings(enabled=True)
    proxied = PublicSettings(enabled=True, trusted_proxies=("10.0.0.5", "127.0.0.1"))
    forged = ["6.6.6.6, 198.51.100.7"]  # the visitor wrote the left one; the proxy appended the right one
    assert client_address("198.51.100.7", forged, open_) == "198.51.100.7"  # no proxy trusted: the header is ignored
    assert client_address(None, forged, open_) == "localhost"
    assert client_address("10.0.0.5", forged, proxied) == "198.51.100.7"
    assert client_address("10.0.0.5", ["198.51.100.7", "10.0.0.5"], proxied) == "198.51.100.7"  # two headers
    assert client_address("10.0.0.5", [], proxied) == "10.0.0.5"  # the proxy named nobody
    assert client_address(None, ["[2001:db8::1]:4711"], proxied) == "2001:db8::1"  # localhost is trusted here
    assert client_address("203.0.113.1", forged, proxied) == "203.0.113.1"  # not a proxy: header ignored


def test_clients_have_their_own_minute_and_idle_ones_are_forgotten():
    now = [0.0]
    limits = ClientLimits(2, max_clients=3, clock=lambda: now[0])
    assert [limits.try_start("a"), limits.try_start("a")] == [0.0, 0.0]
    assert limits.try_start("a") == pytest.approx(60.0) and limits.try_start("b") == 0.0
    now[0] = 61.0
    assert limits.try_start("c") == 0.0 and len(limits) == 1  # a and b are a minute idle: forgotten
    for client in "defg":
        limits.try_start(client)
    assert len(limits) == 3  # at most max_clients, the longest idle go first
