"""The serving lab in Chromium on the bundled model: a small head-of-line workload under two
policies with its progress shown, then stepping through the recorded run one iteration at a
time (the batch composition changes), the block pool and the metrics, and no exception box.
Screenshots land in test-artifacts/."""

from __future__ import annotations

import re

import pytest

from scripts.app_browser import (
    ARTIFACTS,
    click_and_wait,
    exception_boxes,
    open_tab,
    press_and_wait,
    wait_idle,
)
from tests.browser_utils import PROGRESS_OBSERVER_JS, page_at

PANEL = '[data-testid="stTabPanel"]:visible'
SMALL = {"chat streams": 3, "long prompt (tokens)": 256, "chat output (tokens)": 16, "long prompt arrives (s)": 0.1}


@pytest.fixture(scope="module")
def page(chromium, app_server):
    with page_at(chromium, app_server, "serving", lambda p: p.get_by_role("button", name="Run both policies")) as pg:
        yield pg


def step_caption(page) -> str:
    return page.locator(PANEL).get_by_text(re.compile(r"^Step \d+ of 0–\d+")).first.inner_text()


def test_run_a_preset_then_step_through_it(page):
    for label, value in SMALL.items():
        page.get_by_role("spinbutton", name=label, exact=True).fill(str(value))
        press_and_wait(page, "Tab")
    page.evaluate(PROGRESS_OBSERVER_JS)
    click_and_wait(page, page.get_by_role("button", name="Run both policies"), 180_000)
    progress = page.evaluate("() => window.__progress")
    assert progress["seen"], "no progress bar while the policies ran"
    assert any(re.match(r"Round \d+ of \d+ · \d+ steps taken", t) for t in progress["texts"]), progress["texts"]
    assert page.get_by_text(re.compile(r"^Done: 4 requests of")).is_visible()
    assert exception_boxes(page) == 0

    click_and_wait(page, page.get_by_text("B: continuous + chunked prefill", exact=True).first)
    panel = page.locator(PANEL)
    panel.locator(".js-plotly-plot .main-svg").first.wait_for(timeout=20_000)
    first = step_caption(page)
    assert first.startswith("Step 0 of") and "0 decode" in first  # the chats' prompts, prefilled together
    click_and_wait(page, panel.get_by_role("button", name="Next"))
    second = step_caption(page)
    assert second.startswith("Step 1 of") and second != first
    page.wait_for_timeout(600)
    page.screenshot(path=str(ARTIFACTS / "serving_step1.png"), full_page=True)
    slider = panel.locator('[data-testid="stSlider"] input[aria-label="Step"]').first
    slider.focus()
    for _ in range(5):  # five more iterations with the keyboard
        press_and_wait(page, "ArrowRight")
    assert step_caption(page).startswith("Step 6 of"), step_caption(page)
    assert exception_boxes(page) == 0
    page.screenshot(path=str(ARTIFACTS / "serving_timeline.png"), full_page=True)

    for tab, chart in (("KV blocks", "KV block pool over time"), ("Metrics A vs B", "Latency percentiles")):
        open_tab(page, tab)
        panel = page.locator(PANEL)
        panel.locator(".js-plotly-plot .main-svg").first.wait_for(timeout=20_000)
        assert panel.get_by_text(chart).first.is_visible()
        page.wait_for_timeout(800)  # let Plotly settle before the picture
        page.screenshot(path=str(ARTIFACTS / f"serving_{tab.split()[0].lower()}.png"), full_page=True)
    assert page.get_by_text("identical outputs A = B").is_visible()
    assert exception_boxes(page) == 0


def test_bad_input_is_a_message(page):
    field = page.get_by_role("spinbutton", name="token budget per step (chunked)", exact=True)
    field.fill("0")
    press_and_wait(page, "Tab")
    alert = page.locator('[data-testid="stAlert"]').filter(has_text="token budget must be at least 1")
    assert alert.is_visible() and page.get_by_role("button", name="Run both policies").is_disabled()
    assert exception_boxes(page) == 0
    field.fill("64")
    press_and_wait(page, "Tab")
    assert page.get_by_role("button", name="Run both policies").is_enabled()


def test_stop_keeps_what_finished(page):
    click_and_wait(page, page.get_by_role("button", name="Full size", exact=True))
    page.get_by_role("button", name="Run both policies").click()
    page.locator('[data-testid="stProgress"]').first.wait_for(timeout=60_000)
    page.get_by_role("button", name="Stop").click()
    wait_idle(page, 120_000)
    assert page.get_by_text(re.compile(r"^Stopped\. Kept: ")).is_visible()
    assert exception_boxes(page) == 0
    click_and_wait(page, page.get_by_role("button", name="Interactive size"))
    assert page.get_by_role("spinbutton", name="long prompt (tokens)", exact=True).input_value() == "512"
