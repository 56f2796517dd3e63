"""The memory lab in Chromium (Playwright, the system browser) on the bundled model: a small sweep
with its progress seen while it runs, the predictor, and a heatmap downloaded as PNG and CSV.
Screenshots land in test-artifacts/."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from scripts.app_browser import ARTIFACTS, click_and_wait, exception_boxes, open_tab
from tests.browser_utils import PROGRESS_OBSERVER_JS, page_at


@pytest.fixture
def page(chromium, app_server, request):
    ready = lambda p: p.get_by_role("tab", name="Measured sweep")  # noqa: E731
    with page_at(chromium, app_server, "memory", ready, height=2400, accept_downloads=True) as pg:
        yield pg
        pg.screenshot(path=str(ARTIFACTS / f"memory_{request.node.name}.png"))


def test_small_sweep_shows_progress_then_the_charts(page):
    page.evaluate(PROGRESS_OBSERVER_JS)
    page.get_by_role("textbox", name="Prompt lengths L").fill("64, 256")
    page.get_by_role("textbox", name="Chunk sizes").fill("")
    click_and_wait(page, page.get_by_role("button", name="Run sweep"), 180_000)
    progress = page.evaluate("() => window.__progress")
    seen = progress["texts"]
    # the progress moves while it runs (the browser may draw two quick updates as one, so no single
    # step is required), and says the time left once a pace is known
    steps = {m.group(1) for s in seen for m in re.finditer(r"\((\d)/\d\)…", s)}
    assert len(steps) >= 2 and any("Measuring L = 256" in s for s in seen), seen
    assert any(re.search(r"\(\d/\d\)… · about \d+ s left", s) for s in seen), seen
    assert progress["status_charts"] == 1, progress
    assert page.get_by_text(
        re.compile(r"Measured 4 prefills (in|and timed eager against sdpa at L = \d+ in) \d+ s")
    ).first.is_visible()
    panel = page.locator('[data-testid="stTabPanel"]:visible')
    panel.locator(".js-plotly-plot .main-svg").first.wait_for(timeout=20_000)
    assert panel.locator('[data-testid="stPlotlyChart"]').count() == 3
    assert page.get_by_text("Prefill peak above baseline vs prompt length").first.is_visible()
    assert exception_boxes(page) == 0


def test_predictor_and_heatmap_downloads(page):
    open_tab(page, "Will it fit? (C20)")
    assert page.get_by_text("C20's trap, on a 24 GB GPU:").first.is_visible()
    open_tab(page, "Attention heatmaps")
    click_and_wait(page, page.get_by_role("button", name="Run and capture"), 120_000)
    panel = page.locator('[data-testid="stTabPanel"]:visible')
    panel.locator(".js-plotly-plot .main-svg").first.wait_for(timeout=20_000)
    for label, magic in (("Download PNG", b"\x89PNG"), ("Download CSV", b"query \\ key,0: ")):
        with page.expect_download() as info:
            panel.get_by_role("button", name=label).click()
        data = Path(info.value.path()).read_bytes()
        assert data.startswith(magic), data[:20]
    click_and_wait(page, panel.get_by_text("every layer", exact=True))
    assert page.get_by_text(re.compile(r"mean over heads, 30 layers")).first.is_visible()
    assert exception_boxes(page) == 0
