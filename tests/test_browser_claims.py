"""The sweeps and claims pages in Chromium on the bundled model: a tiny sweep with its progress shown,
then its verdicts and charts; the claims page's quick check with every verdict and its page link; no
exception box. Screenshots land in test-artifacts/."""

from __future__ import annotations

import pytest

from scripts.app_browser import ARTIFACTS, click_and_wait, exception_boxes, wait_idle
from tests.browser_utils import PROGRESS_OBSERVER_JS, page_at


@pytest.fixture(scope="module")
def page(chromium, app_server):
    with page_at(chromium, app_server, "sweeps", lambda p: p.get_by_role("button", name="Run sweeps")) as pg:
        yield pg


def fill(page, label: str, value: str) -> None:
    page.get_by_label(label, exact=True).fill(value)
    page.keyboard.press("Tab")
    wait_idle(page)


def test_tiny_sweep_shows_progress_verdicts_and_charts(page):
    fill(page, "Prompt lengths L (tokens, comma-separated)", "16, 64")
    fill(page, "Output lengths N (tokens, comma-separated)", "4, 16")
    fill(page, "Rounds", "2")
    page.evaluate(PROGRESS_OBSERVER_JS)
    click_and_wait(page, page.get_by_role("button", name="Run sweeps"), 180_000)
    progress = page.evaluate("() => window.__progress")
    assert progress["seen"], "no progress bar while the sweep ran"
    # the charts and verdicts of the rounds measured so far, while it runs, and the time it has left
    assert any(c.startswith("So far (1 of 2 rounds)") for c in progress["captions"]), progress["captions"]
    assert progress["status_charts"] >= 2, progress
    assert any("left" in t for t in progress["texts"]), progress["texts"]
    page.get_by_text("Done: 8 requests").first.wait_for(state="visible", timeout=30_000)  # drawn once the run ends
    page.locator(".js-plotly-plot .main-svg").first.wait_for(timeout=20_000)
    assert page.locator('[data-testid="stPlotlyChart"]').count() == 4
    assert page.get_by_text("TTFT and prefill step time against prompt length").first.is_visible()
    page.locator('[data-testid="stTable"]').first.wait_for(timeout=30_000)  # drawn after the charts: late when loaded
    assert page.locator('[data-testid="stTable"]').count() == 1 and page.get_by_text("C18").first.is_visible()
    assert exception_boxes(page) == 0
    page.wait_for_timeout(800)  # let Plotly settle before the picture
    page.screenshot(path=str(ARTIFACTS / "sweeps_run.png"), full_page=True)


def test_claims_quick_check(page, app_server):
    page.goto(f"http://127.0.0.1:{app_server}/claims", wait_until="domcontentloaded")
    page.get_by_role("button", name="Check all claims").wait_for(state="visible", timeout=120_000)
    wait_idle(page)
    click_and_wait(page, page.get_by_text("Quick check (smaller runs, wider intervals)"))
    page.evaluate(PROGRESS_OBSERVER_JS)
    click_and_wait(page, page.get_by_role("button", name="Check all claims"), 300_000)
    assert page.evaluate("() => window.__progress")["seen"]
    assert page.get_by_text("Checked 24 claims").first.is_visible()
    page.locator('[data-testid="stPageLink"]').nth(22).wait_for(timeout=30_000)  # the last claim's link is drawn
    assert page.locator('[data-testid="stPageLink"]').count() == 24
    assert page.get_by_text("Open Roofline lab").first.is_visible()
    for word in ("holds", "roughly"):
        assert page.get_by_text(word).count() > 0
    assert exception_boxes(page) == 0
    page.screenshot(path=str(ARTIFACTS / "claims_run.png"), full_page=True)
    page.get_by_text("Open Sweeps").first.click()
    page.get_by_role("button", name="Run sweeps").wait_for(state="visible", timeout=60_000)
    assert exception_boxes(page) == 0
