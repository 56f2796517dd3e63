"""The roofline lab in Chromium on the bundled model: the ceilings measured with progress on the first
visit (a fresh cache file), a roofline run with its chart and utilisation table, the projection's four
charts and the published-figures table, a calibration run; no exception box. Screenshots land in
test-artifacts/."""

from __future__ import annotations

import pytest

from lab.hardware import CACHE_ENV
from tests.browser_utils import (
    ARTIFACTS,
    PROGRESS_OBSERVER_JS,
    click_and_wait,
    exception_boxes,
    launch_chromium,
    open_tab,
    require_chromium,
    serve,
    wait_idle,
)

PANEL = '[data-testid="stTabPanel"]:visible'

require_chromium()

sync_api = pytest.importorskip("playwright.sync_api")


@pytest.fixture(scope="module")
def server(bundled_dir, tmp_path_factory):
    cache = tmp_path_factory.mktemp("hw") / "hardware.json"  # fresh: the first visit measures
    for port in serve({"PDLAB_MODEL": "bundled", CACHE_ENV: str(cache)}, "browser-roofline-server.log"):
        yield port, cache


@pytest.fixture(scope="module")
def page(server):
    port, _ = server
    with sync_api.sync_playwright() as p:
        browser = launch_chromium(p)
        pg = browser.new_page(viewport={"width": 1400, "height": 1600})
        pg.goto(f"http://127.0.0.1:{port}/roofline", wait_until="domcontentloaded")
        pg.get_by_role("button", name="Re-measure").wait_for(state="visible", timeout=240_000)
        wait_idle(pg, 120_000)
        yield pg
        browser.close()


def test_ceilings_measured_and_cached(page, server):
    _, cache = server
    assert cache.exists()  # the first visit measured and wrote the cache
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
