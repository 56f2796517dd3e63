"""Speculative decoding in Chromium on the bundled model: a playground run with prompt lookup shows
accepted and rejected drafts on its chips, and the speculative lab runs a prompt both ways side by
side and measures a small verify-cost curve. Screenshots land in test-artifacts/."""

from __future__ import annotations

import pytest

from lab.speculation import REPEAT_PROMPT
from scripts.app_browser import (
    ARTIFACTS,
    RUN_BUTTON,
    click_and_wait,
    exception_boxes,
    open_app,
    open_tab,
    set_number,
    set_prompt,
)
from tests.browser_utils import page_at


def chips(page, kind: str, scope: str = '[data-testid="stTabPanel"]') -> list[str]:
    return page.locator(f"{scope} .pd-chips .{kind} .pd-tok").all_inner_texts()


def test_a_speculative_playground_run_shows_its_drafts(chromium, app_server):
    context = chromium.new_context(viewport={"width": 1400, "height": 1100})
    page = context.new_page()
    try:
        open_app(page, app_server)
        set_prompt(page, REPEAT_PROMPT)
        set_number(page, "max_new_tokens", 24)
        set_number(page, "Speculative: draft tokens k", 4)
        toggle = page.get_by_role("switch", name="Chat template")
        if toggle.is_checked():
            toggle.click(force=True)  # the styled label sits over the input
        click_and_wait(page, page.locator(RUN_BUTTON).first, 180_000)
        assert exception_boxes(page) == 0
        accepted = chips(page, "pd-spec-ok")
        own = chips(page, "pd-spec-fix") + chips(page, "pd-spec-bonus")
        assert len(accepted) >= 4 and own, (accepted, own)  # the answer repeats the prompt: drafts are accepted
        assert len(chips(page, "pd-out")) == 24  # every output token has its chip; rejected drafts are not output
        assert page.get_by_text("drafted, rejected (not output)").first.is_visible()
        page.screenshot(path=str(ARTIFACTS / "playground_speculative.png"), full_page=True)
    finally:
        context.close()


@pytest.fixture(scope="module")
def lab(chromium, app_server):
    with page_at(chromium, app_server, "speculative", lambda p: p.get_by_role("button", name="Run both")) as pg:
        yield pg


def test_the_lab_runs_a_prompt_both_ways(lab):
    set_number(lab, "New tokens", 32)
    click_and_wait(lab, lab.get_by_role("button", name="Run both"), 180_000)
    assert exception_boxes(lab) == 0
    assert lab.get_by_text("Same tokens: yes").first.is_visible()
    panel = '[data-testid="stTabPanel"]:visible'
    assert len(chips(lab, "pd-spec-ok", panel)) >= 4
    assert lab.get_by_text("Tokens of each speculative decode step").first.is_visible()
    assert lab.locator(panel).locator('[data-testid="stPlotlyChart"]').count() == 2
    lab.wait_for_timeout(800)  # let Plotly settle before the picture
    lab.screenshot(path=str(ARTIFACTS / "speculative_run.png"), full_page=True)


def test_the_lab_measures_a_small_verify_cost_curve(lab):
    open_tab(lab, "What a verify step costs")
    field = lab.get_by_label("Contexts (tokens, comma-separated)")
    field.fill("64")
    field.press("Enter")
    click_and_wait(lab, lab.get_by_role("button", name="Measure"), 300_000)
    assert exception_boxes(lab) == 0
    assert lab.get_by_text("Claim: decode leaves compute idle").first.is_visible()
    panel = lab.locator('[data-testid="stTabPanel"]:visible')
    panel.locator(".js-plotly-plot .main-svg").first.wait_for(timeout=20_000)
    assert panel.locator('[data-testid="stPlotlyChart"]').count() == 2
    lab.wait_for_timeout(800)
    lab.screenshot(path=str(ARTIFACTS / "speculative_cost.png"), full_page=True)
