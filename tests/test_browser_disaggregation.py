"""The disaggregation lab in Chromium on the bundled model: a small workload on the three set-ups
(four real server processes the page starts), the two-lane Gantt of the pair with its hand-offs, and
the transfer calculator. Screenshots land in test-artifacts/."""

from __future__ import annotations

import pytest

from scripts.app_browser import ARTIFACTS, click_and_wait, exception_boxes, open_tab, set_number
from tests.browser_utils import assert_shows, page_at

RUN = "Run the three set-ups"


@pytest.fixture(scope="module")
def lab(chromium, app_server):
    with page_at(chromium, app_server, "disaggregation", lambda p: p.get_by_role("button", name=RUN)) as pg:
        yield pg
        open_tab(pg, "Three set-ups, one workload")
        click_and_wait(pg, pg.get_by_role("button", name="Stop the servers"))  # the page's own, by their handles


def test_three_set_ups_run_and_the_pair_shows_two_lanes(lab):
    set_number(lab, "Chats", 2)
    set_number(lab, "Tokens per chat", 16)
    set_number(lab, "Long prompt tokens", 256)
    set_number(lab, "Long prompts", 1)
    click_and_wait(lab, lab.get_by_role("button", name=RUN), 400_000)
    # the run's own end (done or failed), in case its start came after the idle page was read
    lab.get_by_text("Three set-ups measured").or_(lab.get_by_text("The run failed")).first.wait_for(timeout=400_000)
    assert exception_boxes(lab) == 0
    panel = lab.locator('[data-testid="stTabPanel"]:visible')
    assert_shows(panel, "Goodput at the SLO")
    gantt = panel.locator('[data-testid="stPlotlyChart"]').nth(2)
    gantt.locator(".js-plotly-plot .main-svg").first.wait_for(timeout=20_000)
    svg = gantt.inner_text()
    assert "prefill worker · long prompt 1" in svg and "decode worker · long prompt 1" in svg
    assert gantt.locator(".annotation-arrow-g, g.annotation").count() >= 3  # the hand-offs, drawn as arrows
    lab.wait_for_timeout(800)  # let Plotly settle before the picture
    lab.screenshot(path=str(ARTIFACTS / "disaggregation_run.png"), full_page=True)


def test_the_calculator_says_where_a_transfer_hides(lab):
    open_tab(lab, "The transfer on real hardware")
    panel = lab.locator('[data-testid="stTabPanel"]:visible')
    assert panel.get_by_text("512.0 MiB").first.is_visible()
    panel.locator(".js-plotly-plot .main-svg").first.wait_for(timeout=20_000)
    lab.wait_for_timeout(800)
    lab.screenshot(path=str(ARTIFACTS / "disaggregation_transfer.png"), full_page=True)
