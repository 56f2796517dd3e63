"""The compare page in Chromium on the bundled model: the default comparison (one prompt, KV cache on
in column 1 and off in column 2) with a small max_new_tokens, its progress shown, both columns'
tokens, the shared charts and the summary table, no exception box. Screenshot in test-artifacts/."""

from __future__ import annotations

import pytest

from scripts.app_browser import ARTIFACTS, click_and_wait, exception_boxes
from tests.browser_utils import PROGRESS_OBSERVER_JS, page_at

MAX_NEW = 8


@pytest.fixture(scope="module")
def page(chromium, app_server):
    with page_at(chromium, app_server, "compare", lambda p: p.get_by_role("button", name="Run all")) as pg:
        yield pg


def test_default_comparison_shows_both_columns_charts_and_table(page):
    for i in range(2):
        page.locator(f".st-key-cmp_max_new_{i} input").fill(str(MAX_NEW))
    page.evaluate(PROGRESS_OBSERVER_JS)
    click_and_wait(page, page.get_by_role("button", name="Run all"), 300_000)
    progress = page.evaluate("() => window.__progress")
    assert progress["seen"], "no progress bar while the columns ran"
    assert any("All 2 columns at once" in t for t in progress["texts"]), progress["texts"]
    assert exception_boxes(page) == 0
    assert page.get_by_text("Done: 2 of 2 columns finished").first.is_visible()
    # the replay: both columns show the prompt lit (prefill) and their generated tokens
    columns = page.locator('[data-testid="stColumn"]:has(.pd-chips)')
    assert columns.count() == 2
    for k in range(2):
        assert columns.nth(k).locator(".pd-chip.pd-in.pd-prefill").count() > 5
        assert columns.nth(k).locator(".pd-chip.pd-out").count() == MAX_NEW
    charts = page.locator('[data-testid="stPlotlyChart"]')
    charts.first.locator(".main-svg").first.wait_for(timeout=20_000)
    assert charts.count() == 5
    for title in (
        "Work each column did, counted by the engine",
        "TTFT and TPOT per column (median of 5 runs)",
        "Inter-token latency over decode steps",
        "KV cache growth per step",
        "Peak transient memory per step",
    ):
        assert page.locator(".gtitle", has_text=title).count() == 1, title
    assert page.locator(".legendtext", has_text="Column 2 (KV off)").count() == 5  # one legend entry in each chart
    assert page.locator('[data-testid="stDataFrame"]').count() == 1
    assert page.get_by_text("Column 2 (KV off): ").first.is_visible()
    page.set_viewport_size({"width": 1400, "height": 3400})  # the app scrolls inside: a tall window shows it all
    page.mouse.move(1, 1)
    page.wait_for_timeout(1200)  # let Plotly redraw and settle before the picture
    page.locator('[data-testid="stMainBlockContainer"]').screenshot(path=str(ARTIFACTS / "compare_run.png"))
