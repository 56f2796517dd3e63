"""The roofline lab in Chromium on the bundled model: the ceilings measured with progress on the first
visit (a fresh cache file), a roofline run with its chart and utilisation table, the projection's four
charts and the published-figures table, a calibration run; no exception box. Screenshots land in
test-artifacts/."""

from __future__ import annotations

import pytest

from lab.hardware import cache_path
from scripts.app_browser import ARTIFACTS, click_and_wait, exception_boxes, open_tab, wait_idle
from tests.browser_utils import PROGRESS_OBSERVER_JS, page_at

PANEL = '[data-testid="stTabPanel"]:visible'


@pytest.fixture(scope="module")
def page(chromium, app_server):
    ready = lambda p: p.get_by_role("button", name="Re-measure")  # noqa: E731
    with page_at(chromium, app_server, "roofline", ready, height=1600) as pg:
        yield pg


def test_ceilings_measured_and_cached(page):
    assert cache_path().is_file()  # the first visit measured them (this one or an earlier test's)
    panel = page.locator(PANEL)
    assert panel.get_by_text("read bandwidth").first.is_visible()
    assert panel.get_by_text("GB/s").first.is_visible()
    page.evaluate(PROGRESS_OBSERVER_JS)
    click_and_wait(page, page.get_by_role("button", name="Re-measure"), 120_000)
    page.get_by_text("Ceilings measured and cached").first.wait_for(timeout=120_000)
    progress = page.evaluate("() => window.__progress")
    assert progress["seen"] and any("Measuring" in t for t in progress["texts"]), progress
    assert exception_boxes(page) == 0
    page.screenshot(path=str(ARTIFACTS / "roofline_ceilings.png"), full_page=True)


def test_roofline_run_draws_both_phases(page):
    open_tab(page, "Roofline of the loaded model")
    page.get_by_role("spinbutton", name="decode steps").fill("4")
    page.keyboard.press("Tab")
    wait_idle(page)
    page.evaluate(PROGRESS_OBSERVER_JS)
    click_and_wait(page, page.get_by_role("button", name="Run the roofline"), 240_000)
    page.get_by_text("Done: ").first.wait_for(timeout=240_000)  # a busy machine may start the rerun late
    wait_idle(page, 120_000)
    assert page.evaluate("() => window.__progress")["seen"]
    panel = page.locator(PANEL)
    panel.locator(".js-plotly-plot .main-svg").first.wait_for(timeout=20_000)
    assert panel.get_by_text("Roofline: measured steps against this machine's ceilings (log-log)").is_visible()
    legend = panel.locator(".legendtext").evaluate_all("els => els.map(e => e.textContent)")
    assert "prefill steps" in legend and "decode steps" in legend, legend
    assert panel.get_by_text("Not available on CPU").is_visible()
    assert page.get_by_text("Done: ").first.is_visible()
    assert exception_boxes(page) == 0
    page.wait_for_timeout(800)
    page.screenshot(path=str(ARTIFACTS / "roofline_run.png"), full_page=True)


def test_projection_and_calibration(page):
    open_tab(page, "Projection to GPUs")
    panel = page.locator(PANEL)
    panel.locator(".js-plotly-plot .main-svg").first.wait_for(timeout=20_000)
    assert panel.locator('[data-testid="stPlotlyChart"]').count() == 4
    assert panel.get_by_text("Projected TTFT vs prompt length, A100 80GB SXM").is_visible()
    page.screenshot(path=str(ARTIFACTS / "roofline_projection.png"), full_page=True)
    open_tab(page, "Calibration here")
    click_and_wait(page, page.get_by_role("button", name="Run the calibration"), 240_000)
    page.get_by_text("Calibration done").first.wait_for(timeout=240_000)
    wait_idle(page, 120_000)
    panel = page.locator(PANEL)
    panel.locator(".js-plotly-plot .main-svg").first.wait_for(timeout=20_000)
    assert panel.get_by_text("TTFT measured / predicted").is_visible()
    assert exception_boxes(page) == 0
    page.screenshot(path=str(ARTIFACTS / "roofline_calibration.png"), full_page=True)
