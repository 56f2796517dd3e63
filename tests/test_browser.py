"""The real app in Chromium (Playwright, the system browser) on the bundled model: the main flows
a user clicks through. Screenshots land in test-artifacts/."""

from __future__ import annotations

import re
import time

from playwright.sync_api import TimeoutError as PlaywrightTimeout

from scripts.app_browser import (
    ARTIFACTS,
    RUN_BUTTON,
    click_and_wait,
    exception_boxes,
    open_app,
    open_tab,
    press_and_wait,
    set_number,
    set_prompt,
    wait_idle,
)
from tests.browser_utils import final_chip_labels, live_record, watch_live

XSS = "<script>alert(1)</script> <img src=x onerror=alert(1)>"  # both kinds in one prompt: one run


def run_prompt(page, prompt: str, max_new: int, chat: bool | None = None) -> None:
    set_prompt(page, prompt)
    set_number(page, "max_new_tokens", max_new)
    if chat is not None:
        toggle = page.get_by_role("switch", name="Chat template")
        if toggle.is_checked() != chat:
            toggle.click(force=True)  # the styled label sits over the input
    click_and_wait(page, page.locator(RUN_BUTTON).first, 120_000)


def output_text(page) -> str:
    return page.locator(".pd-output").inner_text()


def test_run_streams_tokens_then_draws_charts(page):
    code = page.locator(".st-key-pg_table_code")  # an empty table, hidden: the table code loads before a run
    code.locator('[data-testid="stDataFrame"]').wait_for(state="attached", timeout=30_000)
    assert not code.is_visible()
    watch_live(page)
    run_prompt(page, "What is the capital of France?", 12)
    live = live_record(page)
    assert live["first_token"] is not None, "the first token must appear while the run is live"
    # the tabs come when the timed run ends, while the untimed memory pass is still running
    assert live["pass_seen"] is not None and live["tabs_at_pass"] == 6, live
    assert exception_boxes(page) == 0
    assert "Paris" in output_text(page)
    assert page.get_by_text(re.compile(r"Done: \d+ tokens generated")).is_visible()
    outputs = final_chip_labels(page)
    assert 1 <= len(outputs) <= 12 and len(final_chip_labels(page, "pd-in")) > 10
    for tab in ("KV cache", "Timings", "Memory"):
        open_tab(page, tab)
        panel = page.locator('[data-testid="stTabPanel"]:visible')
        panel.locator(".js-plotly-plot .main-svg").first.wait_for(timeout=20_000)
        assert panel.locator('[data-testid="stPlotlyChart"]').count() >= 1
        page.screenshot(path=str(ARTIFACTS / f"run_tab_{tab.replace(' ', '_')}.png"), full_page=True)
    open_tab(page, "Timings")
    assert page.get_by_text("TTFT", exact=True).is_visible()
    assert exception_boxes(page) == 0
    assert code.count() == 0  # the step table is the page's table now


def _slider(page, label: str):
    """The focusable input of a Streamlit slider (arrow keys, Home and End move it)."""
    return page.locator(f'[data-testid="stSlider"] input[aria-label="{label}"]')


FINAL_OUT_CHIPS = '[data-testid="stTabPanel"] .pd-chips .pd-out .pd-tok'  # as final_chip_labels reads them


def test_replay_shows_prefill_at_once_then_one_token_per_step(page):
    run_prompt(page, "Count from one to ten:", 6, chat=False)
    total = len(final_chip_labels(page))
    prompt_len = len(final_chip_labels(page, "pd-in"))
    step = _slider(page, "Step")
    step.focus()
    press_and_wait(page, "Home")
    assert page.locator('[data-testid="stTabPanel"] .pd-pending.pd-in').count() == prompt_len
    assert len(final_chip_labels(page)) == 0
    press_and_wait(page, "ArrowRight")
    assert page.locator('[data-testid="stTabPanel"] .pd-prefill.pd-in').count() == prompt_len  # all at once
    assert len(final_chip_labels(page)) == 1
    speed = _slider(page, "Speed")
    speed.focus()
    press_and_wait(page, "End")
    click_and_wait(page, page.get_by_role("button", name="Replay", exact=True), 60_000)
    # Replay reruns its panel once per frame, and on a busy machine the page reads as idle between
    # two frames, its button redrawn before its chips (CI read the first frame): wait for the last
    page.wait_for_function(f"() => document.querySelectorAll('{FINAL_OUT_CHIPS}').length === {total}", timeout=60_000)
    page.get_by_role("button", name="Replay", exact=True).wait_for(timeout=60_000)
    wait_idle(page)
    assert len(final_chip_labels(page)) == total and exception_boxes(page) == 0


def test_the_live_view_comes_into_sight_when_run_is_pressed(chromium, app_server):
    """At 1400×900 the live view began below the fold and the animation played unseen."""
    pg = chromium.new_context(viewport={"width": 1400, "height": 900}).new_page()
    open_app(pg, app_server)
    set_prompt(pg, "Tell me about the sea.")
    set_number(pg, "max_new_tokens", 200)  # a few seconds of decode: the view lives long enough to be seen
    pg.locator(RUN_BUTTON).first.click()
    chip = pg.locator(".pd-live .pd-out").first
    chip.wait_for(timeout=60_000)

    def in_sight(box) -> bool:
        return box is not None and 0 <= box["y"] and box["y"] + box["height"] <= 900

    # The live view is redrawn 20 times a second, and the page's scroll script can run a frame after
    # the first chip is drawn (CI once read a chip at y = 877 px): look for 2 s; this test never scrolls.
    # A 40-token run once ended (its view removed) before then, and the next look waited 30 s for it.
    box, start = None, time.monotonic()
    while time.monotonic() - start < 2 and not in_sight(box):
        try:
            box = chip.bounding_box(timeout=500)
        except PlaywrightTimeout:  # the run ended and its view went
            break
        pg.wait_for_timeout(25)
    assert in_sight(box), f"the live view was not in sight within 2 s of its first chip: {box}"
    wait_idle(pg, 120_000)
    pg.context.close()


def test_markup_in_the_prompt_is_shown_as_text(page):
    run_prompt(page, XSS, 4, chat=False)
    assert page.dialogs == [], "a dialog opened: the prompt was executed"
    assert "".join(final_chip_labels(page, "pd-in")) == XSS.replace(" ", " ")
    assert page.evaluate("() => document.querySelectorAll('img[src=\"x\"]').length") == 0
    assert page.evaluate("() => Array.from(document.scripts).some(s => s.text.includes('alert(1)'))") is False
    assert exception_boxes(page) == 0


def test_two_sessions_at_once_get_their_solo_output(chromium, app_server):
    prompt, n = "List three colours of the rainbow.", 12
    pages = []
    for _ in range(2):
        ctx = chromium.new_context(viewport={"width": 1200, "height": 900})
        pg = ctx.new_page()
        open_app(pg, app_server)
        set_prompt(pg, prompt)
        set_number(pg, "max_new_tokens", n)
        pages.append(pg)
    click_and_wait(pages[0], pages[0].locator(RUN_BUTTON).first, 120_000)
    solo = output_text(pages[0])
    for pg in pages:
        watch_live(pg)
    for pg in pages:  # start both, then wait for both
        pg.locator(RUN_BUTTON).first.click()
    for pg in pages:
        pg.locator(".pd-live").first.wait_for(state="attached", timeout=30_000)
    for pg in pages:
        wait_idle(pg, 120_000)
    a, b = (live_record(pg) for pg in pages)
    assert a["start"] < b["end"] and b["start"] < a["end"], "the two runs did not overlap"
    for i, pg in enumerate(pages):
        assert output_text(pg) == solo and exception_boxes(pg) == 0
        pg.screenshot(path=str(ARTIFACTS / f"concurrent_session_{i}.png"))
        pg.context.close()


def test_bad_input_gets_a_message_and_the_app_keeps_serving(page):
    run_prompt(page, "", 4)
    alert = page.locator('[data-testid="stAlert"]').filter(has_text="The prompt is empty")
    assert alert.is_visible() and "\\" not in alert.inner_text()
    page.get_by_text("Sampling: greedy (temperature 0)").click()
    set_number(page, "top-p", 0)
    run_prompt(page, "Hello", 3)  # the box refuses 0 (marked invalid; the form does not send it)
    assert page.get_by_label("top-p", exact=True).get_attribute("aria-invalid") == "true"
    assert page.locator('[data-testid="stAlert"]').filter(has_text="top_p").count() == 0
    assert exception_boxes(page) == 0
    set_number(page, "top-p", 1)
    run_prompt(page, "Hello", 3)
    assert page.get_by_text(re.compile(r"Done: \d+ tokens generated")).is_visible()


def test_stop_keeps_the_partial_run(page):
    watch_live(page)
    set_prompt(page, "Write a long story about a dragon and a knight.")
    set_number(page, "max_new_tokens", 400)
    page.locator(RUN_BUTTON).first.click()
    page.locator(".pd-live .pd-out").first.wait_for(timeout=30_000)
    page.locator('button:has-text("Stop")').first.click()
    wait_idle(page, 60_000)
    assert page.get_by_text(re.compile(r"Stopped after \d+ generated token")).is_visible()
    assert 1 <= len(final_chip_labels(page)) < 400 and exception_boxes(page) == 0
