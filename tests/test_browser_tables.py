"""A table on a phone-wide screen (390 px) in Chromium: the disaggregation calculator's table is wider
than the page, so it scrolls sideways inside its own box, and its first column (the link) is pinned:
the pixels of that column stay put while the others move under it (ui/tables.py). The table is drawn
on a canvas, so the check compares pictures. Screenshots land in test-artifacts/."""

from __future__ import annotations

import pytest

from scripts.app_browser import ARTIFACTS, exception_boxes, open_tab
from tests.browser_utils import page_at

NARROW = 390
TABLE = '[data-testid="stTabPanel"]:visible [data-testid="stDataFrame"]'
SCROLLER = f"{TABLE} .dvn-scroller"


@pytest.fixture(scope="module")
def narrow(chromium, tiny_app_server):
    ready = lambda p: p.get_by_role("tab", name="The transfer on real hardware")  # noqa: E731
    with page_at(chromium, tiny_app_server, "disaggregation", ready, width=NARROW, height=900) as pg:
        yield pg


def _column_shots(page, first_px: int) -> tuple[bytes, bytes]:
    """Pictures of the table's first `first_px` pixels of width and of the rest of its width."""
    box = page.locator(TABLE).first.bounding_box()
    left = {"x": box["x"], "y": box["y"], "width": first_px, "height": box["height"]}
    right = {
        "x": box["x"] + first_px + 20,
        "y": box["y"],
        "width": box["width"] - first_px - 20,
        "height": box["height"],
    }
    return page.screenshot(clip=left), page.screenshot(clip=right)


def test_a_wide_table_scrolls_sideways_under_its_pinned_first_column(narrow):
    open_tab(narrow, "The transfer on real hardware")
    table = narrow.locator(TABLE).first
    table.scroll_into_view_if_needed()
    narrow.wait_for_timeout(800)  # the canvas draws once in view
    assert exception_boxes(narrow) == 0
    page_width = narrow.evaluate("document.documentElement.scrollWidth")
    assert page_width <= NARROW, f"the page itself scrolls sideways ({page_width} px): the table pushed it"
    scroller = narrow.locator(SCROLLER).first
    scroll_width, client_width = scroller.evaluate("e => [e.scrollWidth, e.clientWidth]")
    assert scroll_width > client_width, "at 390 px the calculator's table should be wider than its box"
    narrow.screenshot(path=str(ARTIFACTS / "table_390_before_scroll.png"))
    first_before, rest_before = _column_shots(narrow, 60)
    scroller.evaluate("e => { e.scrollLeft = 400; }")
    narrow.wait_for_timeout(500)
    assert scroller.evaluate("e => e.scrollLeft") > 0
    first_after, rest_after = _column_shots(narrow, 60)
    narrow.screenshot(path=str(ARTIFACTS / "table_390_after_scroll.png"))
    assert rest_after != rest_before, "the columns after the first did not move"
    assert first_after == first_before, "the first column moved with the others: it is not pinned"
