"""Sharing in Chromium, on the bundled model: the HTML report downloaded from a real run opens from
disk with its charts and a working token replay and fetches nothing; a share link fills in the
controls; a downloaded trace uploaded into a fresh session replays with no run. Screenshots land
in test-artifacts/ (report.png, uploaded_trace.png, share_link.png)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from urllib.parse import quote

import pytest

from scripts.app_browser import (
    ARTIFACTS,
    RUN_BUTTON,
    act_and_wait,
    click_and_wait,
    exception_boxes,
    open_app,
    open_tab,
    press_and_wait,
    set_number,
    set_prompt,
)
from tests.browser_utils import chosen, final_chip_labels, formula_edges, live_record, watch_live

PROMPT = "<script>alert(1)</script> Why is the sky blue?"
MAX_NEW = 8


def new_page(browser, width: int = 1400, height: int = 1100):
    context = browser.new_context(viewport={"width": width, "height": height}, accept_downloads=True)
    page = context.new_page()
    page.dialogs = []
    page.on("dialog", lambda d: (page.dialogs.append(d.message), d.dismiss()))
    return page


def download(page, key: str, path: Path) -> Path:
    with page.expect_download(timeout=60_000) as info:
        page.locator(f".st-key-{key} button").first.click()  # Streamlit draws a hidden twin too
    info.value.save_as(str(path))
    return path


@pytest.fixture(scope="module")
def saved(chromium, app_server, tmp_path_factory) -> dict:
    """One eager run in the app, its report and its trace saved through the download buttons."""
    folder = tmp_path_factory.mktemp("share")
    page = new_page(chromium)
    open_app(page, app_server)
    set_prompt(page, PROMPT)
    set_number(page, "max_new_tokens", MAX_NEW)
    page.locator('label:has-text("eager")').click()
    click_and_wait(page, page.locator(RUN_BUTTON).first, 120_000)
    assert exception_boxes(page) == 0 and page.dialogs == []
    saved = {
        "report": download(page, "pg_dl_report", folder / "report.html"),
        "trace": download(page, "pg_dl_trace", folder / "trace.json"),
        "prompt_len": len(final_chip_labels(page, "pd-in")),
        "outputs": final_chip_labels(page),
        "text": page.locator(".pd-output").inner_text(),
        "folder": folder,
    }
    page.context.close()
    return saved


def chips(page, selector: str) -> int:
    return page.locator(f"#pd-replay-chips {selector}").count()


def test_report_opens_offline_with_charts_and_replay(chromium, saved):
    page = new_page(chromium, 1300, 1000)
    requests = []
    page.on("request", lambda r: requests.append(r.url))
    page.goto(saved["report"].as_uri(), wait_until="load")
    page.locator(".rp-figure .js-plotly-plot .main-svg").first.wait_for(timeout=30_000)
    figures = page.locator(".rp-figure").count()
    assert figures == 7  # timings x2, KV x2, memory, shapes, heatmap (eager captured attention)
    page.wait_for_function(f"() => document.querySelectorAll('.rp-figure .js-plotly-plot').length === {figures}")
    n_prompt, n_out = saved["prompt_len"], len(saved["outputs"])
    assert chips(page, ".pd-out") == n_out  # the replay starts at the end
    slider = page.locator("#pd-replay-slider")
    slider.focus()
    page.keyboard.press("Home")  # before the first step: the prompt tokenised, nothing computed
    assert chips(page, ".pd-pending.pd-in") == n_prompt and chips(page, ".pd-out") == 0
    page.keyboard.press("ArrowRight")  # the prefill step: every prompt token at once, and one new token
    assert chips(page, ".pd-prefill.pd-in") == n_prompt and chips(page, ".pd-out") == 1
    assert "prefill" in page.locator("#pd-replay-caption").inner_text()
    page.keyboard.press("ArrowRight")  # then one token per decode step
    assert chips(page, ".pd-decode.pd-out") == 1 and chips(page, ".pd-out") == 2
    assert chips(page, ".pd-current") == 1
    page.locator("#pd-replay-play").click()
    page.wait_for_function(
        f"() => document.querySelectorAll('#pd-replay-chips .pd-out').length === {n_out}", timeout=20_000
    )
    labels = page.locator("#pd-replay-chips .pd-out .pd-tok").all_inner_texts()
    assert labels == saved["outputs"]
    assert "<script>alert(1)</script>" in page.locator(".rp-prompt").inner_text()  # shown as text
    assert page.dialogs == []
    assert requests and all(u.startswith(("file://", "data:")) for u in requests), [
        u for u in requests if not u.startswith(("file://", "data:"))
    ]
    page.mouse.move(1, 1)
    page.screenshot(path=str(ARTIFACTS / "report.png"), full_page=True)
    page.context.close()


def test_share_link_fills_in_the_settings(chromium, app_server):
    page = new_page(chromium)
    query = (
        f"prompt={quote('Tell me a joke about <caches>')}&max_new_tokens=7&attention=eager&kv=0&chat=0"
        "&temperature=0.5&seed=3&top_p=9"
    )
    page.goto(f"http://127.0.0.1:{app_server}/?{query}", wait_until="domcontentloaded")
    page.locator("textarea").first.wait_for(timeout=120_000)
    act_and_wait(page, lambda: None, 120_000)
    assert page.locator("textarea").first.input_value() == "Tell me a joke about <caches>"
    assert page.get_by_label("max_new_tokens", exact=True).input_value() == "7"
    assert chosen(page, "pg_attention").startswith("eager")
    assert not page.get_by_role("switch", name="KV cache").is_checked()
    assert not page.get_by_role("switch", name="Chat template").is_checked()
    assert page.get_by_text(re.compile("Filled in from the shared link")).is_visible()
    assert page.locator('[data-testid="stAlert"]').filter(has_text="top_p").is_visible()  # 9 is ignored
    assert "prompt=" not in page.url  # applied once: the address bar no longer claims these settings
    click_and_wait(page, page.locator(".st-key-pg_share button").first)
    link = page.locator(".st-key-pg_share_box code").inner_text()
    assert link.startswith(f"http://127.0.0.1:{app_server}/?") and "max_new_tokens=7" in link and "kv=0" in link
    assert "model=bundled" in link and exception_boxes(page) == 0
    page.screenshot(path=str(ARTIFACTS / "share_link.png"), full_page=True)
    page.context.close()


REPLAY_STATE = """() => {
  const panel = [...document.querySelectorAll('[data-testid="stTabPanel"]')].find(p => p.offsetParent);
  const slider = panel.querySelector('[data-testid="stSlider"] input[aria-label="Step"]');
  const caption = [...panel.querySelectorAll('[data-testid="stMarkdownContainer"] p')]
      .map(p => p.textContent).find(t => /^(Step \\d+ ·|Before the first step)/.test(t));
  return {slider: slider && slider.getAttribute('aria-valuetext'), caption: caption || null};
}"""


def test_replay_moves_the_slider_with_the_caption(chromium, app_server, saved):
    """While Replay plays, the slider, the caption and the chips show one step (the
    slider stayed at the end while the caption counted up)."""
    page = new_page(chromium)
    open_app(page, app_server)
    uploader = page.locator('.st-key-pg_trace_upload input[type="file"]')
    page.get_by_text("Load a saved trace (JSON)").click()
    act_and_wait(page, lambda: uploader.set_input_files(str(saved["trace"])), 60_000)
    speed = page.locator('[data-testid="stSlider"] input[aria-label="Speed"]')
    speed.focus()
    press_and_wait(page, "Home")  # 1 step/s: several samples per frame
    page.get_by_role("button", name="Replay").click()
    page.get_by_role("button", name="Stop replay").wait_for(timeout=20_000)

    def shown() -> tuple[str, str] | None:
        state = page.evaluate(REPLAY_STATE)
        if not (state["caption"] and state["slider"]):
            return None
        return state["slider"], "before" if state["caption"].startswith("Before") else state["caption"].split()[1]

    seen = []
    for _ in range(8):
        pair = shown()
        if pair and pair[0] != pair[1]:  # caught between the slider's redraw and the caption's: look again
            page.wait_for_timeout(250)
            pair = shown()
        if pair:
            seen.append(pair)
        page.wait_for_timeout(400)
    assert len({slider for slider, _ in seen}) >= 2, seen  # the slider itself moves
    assert all(slider == step for slider, step in seen), seen  # and shows the caption's step
    click_and_wait(page, page.get_by_role("button", name="Stop replay"))
    page.get_by_role("button", name="Replay").wait_for(timeout=20_000)
    step = page.locator('[data-testid="stSlider"] input[aria-label="Step"]')
    step.focus()
    press_and_wait(page, "End")
    last = json.loads(saved["trace"].read_text())["steps"][-1]["step"]
    assert page.evaluate(REPLAY_STATE)["caption"].startswith(f"Step {last} ·")
    assert exception_boxes(page) == 0
    page.context.close()


CHART_BOXES = """() => [...document.querySelectorAll('[data-testid="stTabPanel"] .js-plotly-plot')]
  .filter(p => p.offsetParent).map(p => {
    const box = r => r && (({left, right, top, bottom}) => ({left, right, top, bottom}))(r.getBoundingClientRect());
    return {plot: box(p), title: box(p.querySelector('.gtitle')), text: p.querySelector('.gtitle')?.textContent,
            bar: box(p.querySelector('.modebar'))};
  })"""


def overlap(a: dict, b: dict) -> bool:
    return a["left"] < b["right"] and b["left"] < a["right"] and a["top"] < b["bottom"] and b["top"] < a["bottom"]


# Plotly's annotations in the visible tab (the attention shapes' "Q 5×64" labels).
LABEL_BOXES = """() => [...document.querySelectorAll('[data-testid="stTabPanel"] .annotation-text')]
  .map(a => a.getBoundingClientRect()).filter(r => r.width > 0)
  .map(({left, right, top, bottom}) => ({left, right, top, bottom}))"""


def test_chart_titles_fit_a_phone(chromium, app_server):
    """At 390×844 every chart title of the playground is whole inside its chart, the Plotly toolbar
    does not cover it, no two labels of a chart overlap and the KV formula is not cut at the edge."""
    page = new_page(chromium, width=390, height=844)
    open_app(page, app_server)
    set_number(page, "max_new_tokens", 4)
    page.locator('label:has-text("eager")').click()
    click_and_wait(page, page.locator(RUN_BUTTON).first, 120_000)
    seen = formulas = 0
    for tab in ("KV cache", "Attention", "Timings", "Memory"):
        open_tab(page, tab)
        page.locator('[data-testid="stTabPanel"]:visible .js-plotly-plot .gtitle').first.wait_for(timeout=30_000)
        for chart in page.evaluate(CHART_BOXES):
            plot, title = chart["plot"], chart["title"]
            assert title and plot["left"] - 1 <= title["left"] and title["right"] <= plot["right"] + 1, chart
            assert chart["bar"] is None or not overlap(title, chart["bar"]), chart
            seen += 1
        labels = page.evaluate(LABEL_BOXES)
        assert not [(a, b) for i, a in enumerate(labels) for b in labels[i + 1 :] if overlap(a, b)], (tab, labels)
        edges = formula_edges(page, '[data-testid="stTabPanel"]')
        assert all(edge <= 390 for edge in edges), (tab, edges)
        formulas += len(edges)
    assert seen >= 7 and formulas >= 1
    assert exception_boxes(page) == 0
    page.context.close()


def test_max_new_tokens_typed_as_1e3_is_read_as_1000(chromium, app_server):
    """Streamlit's whole-number box read "1e3" with parseInt, as 1; the value the server
    holds is checked through the share link, which is built from the settings as typed."""
    page = new_page(chromium)
    open_app(page, app_server)
    box = page.get_by_label("max_new_tokens", exact=True)
    box.fill("1e3")
    press_and_wait(page, "Tab")
    assert box.input_value() == "1000"
    click_and_wait(page, page.locator(".st-key-pg_share button").first)
    assert "max_new_tokens=1000&" in page.locator(".st-key-pg_share_box code").inner_text() + "&"
    page.context.close()


def test_uploaded_trace_replays_without_a_run(chromium, app_server, saved):
    page = new_page(chromium)
    open_app(page, app_server)
    watch_live(page)
    page.get_by_text("Load a saved trace (JSON)").click()
    uploader = page.locator('.st-key-pg_trace_upload input[type="file"]')
    act_and_wait(page, lambda: uploader.set_input_files(str(saved["trace"])), 60_000)
    assert page.get_by_text(re.compile("No model was run")).is_visible()
    assert live_record(page)["start"] is None, "no live run may start"
    assert page.locator(".pd-output").inner_text() == saved["text"]
    assert len(final_chip_labels(page, "pd-in")) == saved["prompt_len"]
    assert final_chip_labels(page) == saved["outputs"]
    step = page.locator('[data-testid="stSlider"] input[aria-label="Step"]')
    step.focus()
    press_and_wait(page, "Home")
    assert page.locator('[data-testid="stTabPanel"] .pd-pending.pd-in').count() == saved["prompt_len"]
    press_and_wait(page, "ArrowRight")
    assert page.locator('[data-testid="stTabPanel"] .pd-prefill.pd-in').count() == saved["prompt_len"]
    assert len(final_chip_labels(page)) == 1
    page.mouse.move(1, 1)
    page.screenshot(path=str(ARTIFACTS / "uploaded_trace.png"), full_page=True)
    open_tab(page, "Attention")
    panel = page.locator('[data-testid="stTabPanel"]:visible')
    panel.locator(".js-plotly-plot .main-svg").nth(1).wait_for(timeout=20_000)  # shapes and the heatmap
    bad = saved["folder"] / "bad.json"
    bad.write_text('{"format": "pdlab-playground-trace", "version": 1, "model": 3}')
    act_and_wait(page, lambda: uploader.set_input_files(str(bad)), 60_000)
    alert = page.locator('[data-testid="stAlert"]').filter(has_text="Could not load bad.json")
    assert alert.is_visible() and "model should be an object" in alert.inner_text()
    assert exception_boxes(page) == 0 and page.dialogs == []
    page.context.close()
