"""The complexity lab in Chromium on the bundled model: a small cache on/off comparison, raced, with
its progress and time left shown, the charts drawn, the worked example, no exception box. Screenshots land in
test-artifacts/."""

from __future__ import annotations

import re

import pytest

from scripts.app_browser import ARTIFACTS, click_and_wait, exception_boxes, open_tab, wait_idle
from tests.browser_utils import PROGRESS_OBSERVER_JS, page_at


@pytest.fixture(scope="module")
def page(chromium, app_server):
    with page_at(
        chromium, app_server, "complexity", lambda p: p.get_by_role("spinbutton", name="generated tokens N")
    ) as pg:
        yield pg


def test_small_comparison_shows_progress_then_charts(page):
    page.get_by_role("spinbutton", name="prompt length L (tokens)").fill("8")
    page.get_by_role("spinbutton", name="generated tokens N").fill("16")
    page.keyboard.press("Tab")
    wait_idle(page)
    page.evaluate(PROGRESS_OBSERVER_JS)
    click_and_wait(page, page.get_by_role("button", name="Run cache on vs off"), 180_000)
    progress = page.evaluate("() => window.__progress")
    assert progress["seen"], "no progress bar while the comparison ran"
    assert any("with and without the KV cache in turn" in t for t in progress["texts"]), progress["texts"]
    # how long it has left, once a few raced steps have set the pace
    assert any(re.search(r"in turn · about \d+ s left", t) for t in progress["texts"]), progress
    assert progress["status_charts"] <= 1, progress  # the steps so far, redrawn in one slot
    assert progress["spinners"] and not progress["spinning"], progress  # it stands still: CPU for the steps
    assert page.get_by_text("Done: 16 tokens after 8 prompt tokens").first.is_visible()
    panel = page.locator('[data-testid="stTabPanel"]:visible')
    panel.locator(".js-plotly-plot .main-svg").first.wait_for(timeout=20_000)
    assert panel.locator('[data-testid="stPlotlyChart"]').count() == 5  # counted and timed, and their ratio
    assert page.get_by_text("Cumulative counted FLOPs (log-log)").first.is_visible()
    assert exception_boxes(page) == 0
    page.wait_for_timeout(800)  # let Plotly settle before the picture
    page.screenshot(path=str(ARTIFACTS / "complexity_run.png"), full_page=True)


def test_dominance_and_worked_example_tabs(page):
    open_tab(page, "Which term dominates (C15)")
    panel = page.locator('[data-testid="stTabPanel"]:visible')
    panel.locator(".js-plotly-plot .main-svg").first.wait_for(timeout=20_000)
    assert panel.get_by_text("It contradicts itself (C15).").is_visible()
    open_tab(page, "Worked example (C12)")
    panel = page.locator('[data-testid="stTabPanel"]:visible')
    assert panel.get_by_text("This reproduces the document's numbers").is_visible()
    assert panel.get_by_text("9 tokens").first.is_visible()  # the real tokenizer's count
    assert exception_boxes(page) == 0
    page.screenshot(path=str(ARTIFACTS / "complexity_worked.png"), full_page=True)
