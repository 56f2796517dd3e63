"""The precision lab in Chromium on a tiny model: measure float32 beside int8 weights and an int8 KV
cache (the defaults), see the speed table, both charts and the note beside a bfloat16 row, the quality
table and the generations, then the capacity table on a preset; no exception box. A screenshot lands in test-artifacts/."""

from __future__ import annotations

from scripts.app_browser import ARTIFACTS, click_and_wait, exception_boxes, wait_idle
from tests.browser_utils import page_at


def test_measure_and_read_the_tables(chromium, tiny_app_server):
    ready = lambda p: p.get_by_role("button", name="Measure")  # noqa: E731
    with page_at(chromium, tiny_app_server, "precision", ready, height=2600) as page:
        button = ready(page)
        page.get_by_label("Text tokens to score", exact=True).fill("128")
        page.get_by_label("More repeats (×)", exact=True).fill("1")
        click_and_wait(page, button, 600_000)
        page.get_by_text("Measured 5 configurations").first.wait_for(timeout=600_000)
        wait_idle(page)
        page.locator(".js-plotly-plot .main-svg").first.wait_for(timeout=20_000)
        main = page.locator('[data-testid="stMainBlockContainer"]')
        assert main.get_by_text("Each configuration ÷ float32").count() == 1
        assert main.get_by_text("Bytes a decode step reads at batch 1").count() == 1
        assert main.locator('[data-testid="stDataFrame"]').count() == 4  # work, time, quality, capacity
        assert main.get_by_text("Quality against float32").count() == 1
        assert main.get_by_text("On a GPU").count() >= 1  # beside each bfloat16 row: what it would do there
        assert main.locator('[data-testid="stTable"]').count() == 1  # the generations
        assert exception_boxes(page) == 0
        page.mouse.move(1, 1)
        page.screenshot(path=str(ARTIFACTS / "precision.png"), full_page=True)
