"""The whole app in Chromium, across its pages, on the bundled model: every page opens without an
exception box; a choice among translated labels survives a language switch and back; settings
and finished results survive a visit to another page; without a model every page says so.
Screenshots land in test-artifacts/."""

from __future__ import annotations

import re

import pytest

from app_pages import PAGES
from scripts.app_browser import (
    ARTIFACTS,
    RUN_BUTTON,
    click_and_wait,
    exception_boxes,
    open_tab,
    press_and_wait,
    set_number,
    set_prompt,
    wait_idle,
)
from tests.browser_utils import choose, chosen, edit_grid_cell, formula_edges, grid_cell, open_page
from tests.text_support import t

PLAYGROUND, MEMORY, COMPLEXITY, SERVING = range(4)  # the order of app_pages.PAGES
TITLES = ("pg_title", "mem_title", "cx_title", "sv_title")
PAGE_TITLES = {
    "playground": "pg_title",
    "memory": "mem_title",
    "complexity": "cx_title",
    "serving": "sv_title",
    "compare": "cmp_title",
    "roofline": "rf_title",
    "sweeps": "sw_title",
    "claims": "cl_title",
    "remote": "rm_title",
    "precision": "pr_title",
    "speculative": "sp_title",
    "disaggregation": "dg_title",
    "source": "src_title",
}


def switch_language(page, lang: str) -> None:
    click_and_wait(page, page.get_by_text("简体中文" if lang == "zh" else "English", exact=True))


def title_of(page) -> str:
    return page.locator("h1").first.inner_text()


def test_every_url_opens_its_page(chromium, app_server):
    """Share links and bookmarks use the URLs: the root and each page's url_path open that page, with
    no exception box and no "went wrong" message (navigating by the sidebar is every other test's way)."""
    context = chromium.new_context(viewport={"width": 1400, "height": 1100})
    pg = context.new_page()
    # the default page lives at the root only: Streamlit ignores a default page's url_path
    for path, name in [("", "playground"), *((p.url_path, p.name) for p in PAGES if not p.is_default)]:
        pg.goto(f"http://127.0.0.1:{app_server}/{path}", wait_until="domcontentloaded")
        pg.locator("h1").first.wait_for(timeout=180_000)
        wait_idle(pg, 180_000)
        assert title_of(pg) == t(PAGE_TITLES[name], "en"), f"/{path}"
        assert exception_boxes(pg) == 0, f"/{path}"
        assert pg.locator('[data-testid="stAlert"]').filter(has_text="went wrong").count() == 0, f"/{path}"
        assert pg.get_by_text("Page not found").count() == 0, f"/{path} fell back to the main page"
    context.close()


def _shown(page, key: str, tab: str | None = None):
    """A reader of what the keyed widget shows as chosen, in either language. The tabs' own labels
    change with the language, so the first tab is selected again after a switch: reopen this one."""

    def read(lang: str) -> str | None:
        if tab:
            open_tab(page, t(tab, lang))
        return chosen(page, key)

    return read


def _check(choices, lang: str) -> None:
    """Each (reader, English label, Chinese label) shows its label in `lang`."""
    for read, english, chinese in choices:
        assert read(lang) == (english if lang == "en" else chinese), f"the choice was lost in {lang}"


def test_translated_choices_survive_a_language_switch(page):
    """Choices among translated labels on four pages, made in English: a switch to Chinese redraws the
    page it is made on with the same choices in Chinese labels, the other pages drawn afresh show
    theirs too, and a switch back to English (on another page) restores the English labels."""
    playground = [
        (
            _shown(page, "model_spec"),
            "SmolLM2-135M-Instruct (bundled, offline)",
            "SmolLM2-135M-Instruct（内置，可离线）",
        )
    ]
    _check(playground, "en")
    alerts = page.locator('[data-testid="stAlert"]').all_inner_texts()
    assert not [a for a in alerts if "load" in a], alerts  # no model named by a label failed to load
    set_prompt(page, "Hi")
    set_number(page, "max_new_tokens", 3)
    click_and_wait(page, page.locator(RUN_BUTTON).first, 120_000)
    page.locator('.st-key-pg_speed input[type="range"]').focus()
    press_and_wait(page, "Home")  # 1 step/s: the slowest, not the default 8
    playground.append((_shown(page, "pg_speed"), "1 step/s", "每秒 1 步"))
    _check(playground, "en")

    open_page(page, MEMORY)
    open_tab(page, "Will it fit? (C20)")
    choose(page, "mem_fit_model", "loaded: SmolLM2-135M-Instruct")
    open_tab(page, "Attention heatmaps")
    click_and_wait(page, page.get_by_role("button", name="Run and capture"), 120_000)
    choose(page, "mem_heat_mode", "every layer")
    memory = [
        (
            _shown(page, "mem_fit_model", "mem_tab_fit"),
            "loaded: SmolLM2-135M-Instruct",
            "已加载：SmolLM2-135M-Instruct",
        ),
        (_shown(page, "mem_heat_mode", "mem_tab_heat"), "every layer", "所有层"),
    ]
    _check(memory, "en")

    open_page(page, COMPLEXITY)
    open_tab(page, "Worked example (C12)")
    choose(page, "cx_we_model", "Llama-3-8B")
    choose(page, "cx_we_count", "as the loaded tokenizer splits it")
    open_tab(page, "Which term dominates (C15)")
    choose(page, "cx_cross_model", "Llama-3-70B")
    choose(page, "cx_cross_model", "SmolLM2-135M-Instruct (loaded)")  # back to the default: a translated label
    complexity = [
        (_shown(page, "cx_we_count", "cx_tab_worked"), "as the loaded tokenizer splits it", "按已加载模型的分词器"),
        (
            _shown(page, "cx_cross_model", "cx_tab_dominance"),
            "SmolLM2-135M-Instruct (loaded)",
            "SmolLM2-135M-Instruct（已加载）",
        ),
    ]
    _check(complexity, "en")

    open_page(page, SERVING)
    choose(page, "sv_preset", "Shared system prompt")
    choose(page, "sv_policy_a", "static batching")
    serving = [
        (_shown(page, "sv_preset"), "Shared system prompt", "共享系统提示词"),
        (_shown(page, "sv_policy_a"), "static batching", t("sv_policy_static", "zh")),
    ]
    _check(serving, "en")

    switch_language(page, "zh")  # redraws this page in Chinese
    _check(serving, "zh")
    assert exception_boxes(page) == 0
    for index, choices in ((COMPLEXITY, complexity), (MEMORY, memory), (PLAYGROUND, playground)):
        open_page(page, index)  # drawn afresh in Chinese
        _check(choices, "zh")
        assert exception_boxes(page) == 0
        if index == MEMORY:
            page.screenshot(path=str(ARTIFACTS / "app_language_zh.png"), full_page=True)
    # the playground in Chinese: its title and button, and a run that finishes in Chinese words
    assert page.get_by_role("heading", name="预填充与解码，逐个 token 看").is_visible()
    set_prompt(page, "你好")
    click_and_wait(page, page.locator('button:has-text("运行")').first, 120_000)
    assert page.get_by_text(re.compile(r"^完成：")).is_visible() and exception_boxes(page) == 0
    switch_language(page, "en")  # on the playground now
    assert page.get_by_role("heading", name="Prefill vs decode, token by token").is_visible()
    _check(playground, "en")
    open_page(page, MEMORY)  # drawn afresh in English
    _check(memory, "en")


def test_settings_and_results_survive_page_visits(page):
    set_prompt(page, "Name a colour.")
    set_number(page, "max_new_tokens", 4)
    click_and_wait(page, page.locator(RUN_BUTTON).first, 120_000)
    output = page.locator(".pd-output").inner_text()
    open_page(page, MEMORY)
    open_tab(page, "Will it fit? (C20)")
    page.get_by_role("spinbutton", name="Prompt length L", exact=True).fill("4096")
    press_and_wait(page, "Tab")
    choose(page, "mem_fit_model", "Llama-3-70B")
    open_page(page, COMPLEXITY)
    page.get_by_role("spinbutton", name="generated tokens N", exact=True).fill("16")
    press_and_wait(page, "Tab")
    open_page(page, SERVING)
    choose(page, "sv_preset", "Custom table")
    edit_grid_cell(page, "sv_custom", 0, 2, "99")  # chat A's prompt tokens, 48 at first
    assert grid_cell(page, "sv_custom", 0, 2) == "99"
    choose(page, "sv_preset", "Random mix")  # the table is not drawn under another preset either
    for index in (PLAYGROUND, MEMORY, COMPLEXITY, SERVING):  # every page again, in a new order
        open_page(page, (index + 1) % 4)
    open_page(page, PLAYGROUND)
    assert page.locator("textarea").first.input_value() == "Name a colour."
    assert page.get_by_label("max_new_tokens", exact=True).input_value() == "4"
    assert page.locator(".pd-output").inner_text() == output  # the last result, with its tabs
    assert page.get_by_text(re.compile(r"Done: \d+ tokens generated")).is_visible()
    open_page(page, MEMORY)
    open_tab(page, "Will it fit? (C20)")
    assert chosen(page, "mem_fit_model") == "Llama-3-70B"
    assert page.get_by_role("spinbutton", name="Prompt length L", exact=True).input_value() == "4096"
    open_page(page, COMPLEXITY)
    assert page.get_by_role("spinbutton", name="generated tokens N", exact=True).input_value() == "16"
    open_page(page, SERVING)
    assert chosen(page, "sv_preset") == "Random mix" and exception_boxes(page) == 0
    choose(page, "sv_preset", "Custom table")
    assert grid_cell(page, "sv_custom", 0, 2) == "99" and grid_cell(page, "sv_custom", 1, 2) == "64"


@pytest.fixture(scope="module")
def no_model_server(servers, tmp_path_factory):
    """A server of its own: its model folder does not exist."""
    missing = tmp_path_factory.mktemp("models") / "no-such-model"
    with servers.app({"PDLAB_MODEL": str(missing)}, "app-server-no-model.log") as port:
        yield port


def test_without_a_model_every_page_says_so(chromium, no_model_server):
    context = chromium.new_context(viewport={"width": 1400, "height": 1100})
    pg = context.new_page()
    pg.goto(f"http://127.0.0.1:{no_model_server}/", wait_until="domcontentloaded")
    pg.locator("h1").first.wait_for(timeout=60_000)
    wait_idle(pg)
    for index in (PLAYGROUND, MEMORY, COMPLEXITY, SERVING):
        if index != PLAYGROUND:
            open_page(pg, index)
        assert title_of(pg) == t(TITLES[index], "en")
        alert = (
            pg.locator('[data-testid="stAlert"]')
            .filter(has_text="not found")
            .filter(has_text="Pick another model in the sidebar")
        )
        assert alert.count() >= 1 and alert.first.is_visible(), f"page {index} does not say the model is missing"
        assert exception_boxes(pg) == 0
        pg.screenshot(path=str(ARTIFACTS / f"app_no_model_{index}.png"), full_page=True)
    context.close()


# Every visible chart's box, its title's, its toolbar's and its plotting area's (Plotly's drag rectangle)
PHONE_CHARTS = """() => [...document.querySelectorAll('.js-plotly-plot')].filter(p => p.offsetParent).map(p => {
    const box = r => r && (({left, right, top, bottom, width}) => ({left, right, top, bottom, width}))(
      r.getBoundingClientRect());
    return {plot: box(p), title: box(p.querySelector('.gtitle')), text: p.querySelector('.gtitle')?.textContent,
            area: box(p.querySelector('.nsewdrag'))};
  })"""


def _fits(chart) -> bool:
    plot, title = chart["plot"], chart["title"]
    return (
        bool(title)
        and plot["right"] <= 391
        and plot["left"] - 1 <= title["left"] <= title["right"] <= plot["right"] + 1
    )


def _phone_charts(page) -> list[dict]:
    """The tab's charts once Plotly has laid them out at the phone's width: read again every 100 ms
    until every chart fits and two reads agree, or 2 s have passed (then as they are). None yet is
    read again for 1 s: a tab whose charts Plotly has not drawn yet is not counted short."""
    charts = page.evaluate(PHONE_CHARTS)
    for tries in range(20):
        page.wait_for_timeout(100)
        again = page.evaluate(PHONE_CHARTS)
        if again == charts and (charts or tries >= 10) and all(_fits(c) for c in charts):
            break
        charts = again
    return charts


def test_charts_fit_a_phone_on_the_labs(chromium, app_server):
    """Beyond the playground: at 390 px every chart and formula of the memory, complexity and roofline
    labs (no run needed) fits the screen, a chart's title whole, in English and in Chinese (a Chinese
    title with a model name had no space to break at), and the Will-it-fit bars keep most of the
    chart's width (their names beside them took it)."""
    context = chromium.new_context(viewport={"width": 1400, "height": 1100})
    page = context.new_page()
    page.goto(f"http://127.0.0.1:{app_server}/memory", wait_until="domcontentloaded")
    page.locator("h1").first.wait_for(timeout=180_000)
    wait_idle(page, 180_000)
    for lang in ("en", "zh"):
        if lang == "zh":
            page.set_viewport_size({"width": 1400, "height": 1100})  # the sidebar's language choice is reachable
            switch_language(page, "zh")
        seen, fit_seen, formulas = 0, False, 0
        for url in ("memory", "complexity", "roofline"):
            page.set_viewport_size({"width": 1400, "height": 1100})  # the sidebar's links are reachable
            page.locator(f'[data-testid="stSidebarNavLink"][href$="/{url}"]').click()
            page.locator("h1").first.wait_for(timeout=180_000)
            wait_idle(page, 180_000)
            page.set_viewport_size({"width": 390, "height": 844})
            tabs = page.get_by_role("tab")
            for k in range(tabs.count()):
                tabs.nth(k).click()  # a tab shows what the run drew: no rerun
                for chart in _phone_charts(page):
                    assert _fits(chart), (lang, url, k, chart)
                    if chart["text"].startswith(t("mem_fig_fit", lang, model="", L="", bytes="")[:8]):
                        assert chart["area"]["width"] >= 0.6 * chart["plot"]["width"], chart  # the bars keep the width
                        fit_seen = True
                    seen += 1
                edges = formula_edges(page)
                assert all(edge <= 390 for edge in edges), (lang, url, k, edges)  # a formula cut at the edge
                formulas += len(edges)
        assert seen >= 7 and fit_seen and formulas >= 5, (lang, formulas)
        assert exception_boxes(page) == 0
    context.close()
