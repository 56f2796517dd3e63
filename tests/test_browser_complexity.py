"""The complexity lab in Chromium on the bundled model: a small cache on/off comparison with its
progress shown, the charts drawn, the worked example, no exception box. Screenshots land in
test-artifacts/."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.browser_utils import (CHROMIUM, click_and_wait, exception_boxes, free_port, launch_chromium, open_tab,
                                 start_app, stop_app, wait_healthy, wait_idle)

ARTIFACTS = Path(__file__).resolve().parent.parent / "test-artifacts"

if not Path(CHROMIUM).exists():
    if os.environ.get("CI") == "true":
        pytest.fail(f"{CHROMIUM} is missing; CI must install Debian's chromium", pytrace=False)
    pytest.skip(f"{CHROMIUM} not installed (the browser tests run in CI)", allow_module_level=True)

sync_api = pytest.importorskip("playwright.sync_api")

# Records whether a progress bar ever showed while the script ran, and the texts it carried.
PROGRESS_OBSERVER_JS = """() => {
  const w = {seen: false, texts: []};
  new MutationObserver(() => {
    const bar = document.querySelector('[data-testid="stProgress"]');
    if (!bar) return;
    w.seen = true;
    const text = bar.innerText.trim();
    if (text && !w.texts.includes(text)) w.texts.push(text);
  }).observe(document.body, {childList: true, subtree: true, characterData: true});
  window.__progress = w;
}"""


@pytest.fixture(scope="module")
def server(bundled_dir):
    ARTIFACTS.mkdir(exist_ok=True)
    port = free_port()
    proc = start_app(port, env={"PDLAB_MODEL": "bundled"}, log_path=ARTIFACTS / "browser-complexity-server.log")
    try:
        wait_healthy(port, proc)
        yield port
    finally:
        stop_app(proc)


@pytest.fixture(scope="module")
def page(server):
    with sync_api.sync_playwright() as p:
        browser = launch_chromium(p)
        pg = browser.new_page(viewport={"width": 1400, "height": 1100})
        pg.goto(f"http://127.0.0.1:{server}/complexity", wait_until="domcontentloaded")
        pg.get_by_role("spinbutton", name="generated tokens N").wait_for(state="visible", timeout=180_000)
        wait_idle(pg, 120_000)
        yield pg
        browser.close()


def test_small_comparison_shows_progress_then_charts(page):
    page.get_by_role("spinbutton", name="prompt length L (tokens)").fill("8")
    page.get_by_role("spinbutton", name="generated tokens N").fill("16")
    page.keyboard.press("Tab")
    wait_idle(page)
    page.evaluate(PROGRESS_OBSERVER_JS)
    click_and_wait(page, page.get_by_role("button", name="Run cache on vs off"), 180_000)
    progress = page.evaluate("() => window.__progress")
    assert progress["seen"], "no progress bar while the comparison ran"
    assert any("with the KV cache" in t for t in progress["texts"]), progress["texts"]
    assert page.get_by_text("Done: 16 tokens after 8 prompt tokens").first.is_visible()
    panel = page.locator('[data-testid="stTabPanel"]:visible')
    panel.locator(".js-plotly-plot .main-svg").first.wait_for(timeout=20_000)
    assert panel.locator('[data-testid="stPlotlyChart"]').count() == 4
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
