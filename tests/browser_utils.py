"""Browser-test helpers beyond driving the app (scripts/app_browser.py): watching the live view and
progress bars, reading chips and keyed widgets, editing a data grid, opening pages by the sidebar."""

from __future__ import annotations

from contextlib import contextmanager

from scripts.app_browser import act_and_wait, click_and_wait, wait_idle


def output_chip_texts(page, scope: str = "") -> list[str]:
    return page.locator(f"{scope} .pd-chips .pd-chip:not(.pd-pending) .pd-tok").all_inner_texts()


# Watches the live view: when it first appeared and vanished (epoch ms, comparable across pages),
# when the first generated token showed, and the most tokens seen at once; and when the second
# pass's progress ("Timed run done. …") first showed, with how many result tabs were there then.
LIVE_OBSERVER_JS = """() => {
  const w = {start: null, end: null, first_token: null, max_tokens: 0, pass_seen: null, tabs_at_pass: 0};
  const look = () => {
    const live = document.querySelector('.pd-live');
    const now = performance.timeOrigin + performance.now();
    if (live && w.start === null) w.start = now;
    if (!live && w.start !== null && w.end === null) w.end = now;
    const n = live ? live.querySelectorAll('.pd-out').length : 0;
    if (n && w.first_token === null) w.first_token = now;
    w.max_tokens = Math.max(w.max_tokens, n);
    if (w.pass_seen === null && document.body.textContent.includes('Timed run done.')) {
      w.pass_seen = now;
      w.tabs_at_pass = document.querySelectorAll('[role="tab"]').length;
    }
  };
  new MutationObserver(look).observe(document.body, {childList: true, subtree: true, characterData: true});
  window.__live = w;
}"""


def watch_live(page) -> None:
    page.evaluate(LIVE_OBSERVER_JS)


def live_record(page) -> dict:
    return page.evaluate("() => window.__live")


def assert_shows(scope, text: str) -> None:
    """`text` is visible in `scope` (a page or a locator); else the failure says what was there
    instead (a run's error message, say), since a browser test's page is gone by the report."""
    if scope.get_by_text(text).first.is_visible():
        return
    whole = scope.first.inner_text() if hasattr(scope, "first") else scope.inner_text("body")
    shown = " ".join(whole.split())
    raise AssertionError(f"{text!r} is not shown; the page shows: …{shown[-1500:]}")


def final_chip_labels(page, kind: str = "pd-out") -> list[str]:
    """Chip labels in the replay panel (the finished run), by kind: pd-in (prompt) or pd-out."""
    return page.locator(f'[data-testid="stTabPanel"] .pd-chips .{kind} .pd-tok').all_inner_texts()


# --- keyed widgets and pages (Streamlit puts a widget's key in its container's class: st-key-<key>) ---
CHOSEN_JS = """root => {
  const range = root.querySelector('input[type="range"]');  // select_slider
  if (range) return range.getAttribute('aria-valuetext');
  const picked = root.querySelector('[data-testid="stRadioOption"][data-selected="true"], '
                                    + '[role="radio"][aria-checked="true"]');  // radio, segmented control
  if (picked) return picked.innerText.trim();
  const combo = root.querySelector('input[role="combobox"]');  // selectbox
  return combo ? combo.value : null;
}"""


def chosen(page, key: str) -> str | None:
    """The label a keyed radio, selectbox, segmented control or select slider shows as chosen."""
    return page.locator(f".st-key-{key}").first.evaluate(CHOSEN_JS)


def choose(page, key: str, label: str) -> None:
    """Pick `label` in a keyed radio, segmented control or selectbox, and wait for the rerun."""
    box = page.locator(f".st-key-{key}").first
    combo = box.locator('input[role="combobox"]')
    if combo.count():
        combo.click()
        combo.fill(label)  # filters the list: a long one only draws the options in view
        click_and_wait(page, page.get_by_role("option", name=label, exact=True))
    else:
        click_and_wait(page, box.get_by_text(label, exact=True))


def open_page(page, index: int, timeout_ms: int = 180_000) -> None:
    """Open app_pages.PAGES[index] from the sidebar's navigation (in the same session, as a user would),
    where the navigation lists it: by section, then in the table's order."""
    from app_pages import PAGES, by_section

    in_nav = [p.name for pages in by_section().values() for p in pages].index(PAGES[index].name)
    click_and_wait(page, page.locator('[data-testid="stSidebarNavLink"]').nth(in_nav), timeout_ms)
    page.locator("h1").first.wait_for(timeout=timeout_ms)
    wait_idle(page, timeout_ms)


def edit_grid_cell(page, key: str, row: int, column: int, text: str, row_px: int = 35) -> None:
    """Type `text` into a keyed st.data_editor's cell (0-based row and data column) and commit it.
    The grid is a canvas: click the row's first cell, move with the arrow keys, open the cell's
    editor with Enter, fill its input, commit with Enter. Keys typed into a just-opened editor
    were sometimes lost (the CI machine), and the grid's cell table was once not drawn 30 s after a
    commit, so the input is filled and read back before the commit, and the whole edit is retried
    until the cell reads `text`. A click that left the focus elsewhere is retried before any arrow
    key: CI once moved the workload radio from its last option to its first that way."""
    canvas = page.locator(f".st-key-{key} canvas").first
    focused = f"() => !!document.activeElement?.closest('.st-key-{key}')"
    for _attempt in range(4):
        canvas.wait_for(state="visible", timeout=30_000)
        box = canvas.bounding_box()
        page.mouse.click(box["x"] + 60, box["y"] + row_px * (row + 1) + row_px // 2)
        if not page.evaluate(focused):  # arrow keys would go to the widget that has the focus (a radio)
            wait_idle(page)
            continue
        for _ in range(column):
            page.keyboard.press("ArrowRight")
        page.keyboard.press("Enter")
        editor = page.locator("#portal input, #portal textarea").first  # glide-data-grid's overlay editor
        try:
            editor.wait_for(state="visible", timeout=10_000)
        except Exception:  # noqa: BLE001 - the click did not open the editor this time: try again
            page.keyboard.press("Escape")
            continue
        editor.fill(text)
        if editor.input_value() == text:
            act_and_wait(page, lambda: page.keyboard.press("Enter"))
            try:
                if grid_cell(page, key, row, column, timeout_ms=10_000) == text:
                    return
            except Exception:  # noqa: BLE001 - the grid's cell table not drawn yet (seen on CI): edit again
                pass
        page.keyboard.press("Escape")
        page.wait_for_timeout(1000)


def grid_cell(page, key: str, row: int, column: int, timeout_ms: int = 30_000) -> str:
    """A data editor cell's text, from the grid's accessible table (column 0 is the row marker)."""
    cell = page.locator(f".st-key-{key}").get_by_test_id(f"glide-cell-{column + 1}-{row}")
    return cell.inner_text(timeout=timeout_ms)


# Records whether a progress bar ever showed while the script ran, and the texts every bar carried.
# Records what a run shows while its progress bar is up: the bar's texts, the captions, the most
# charts drawn inside the running status box at once (results drawn before the run ends), and
# whether a status box's spinner icon was seen, and seen turning.
PROGRESS_OBSERVER_JS = """() => {
  const w = {seen: false, texts: [], captions: [], status_charts: 0, spinners: 0, spinning: false};
  const add = (list, text) => { if (text && !list.includes(text)) list.push(text); };
  new MutationObserver(() => {
    const bars = document.querySelectorAll('[data-testid="stProgress"]');
    for (const bar of bars) {
      w.seen = true;
      add(w.texts, bar.innerText.trim());
    }
    if (!bars.length) return;
    for (const c of document.querySelectorAll('[data-testid="stCaptionContainer"]')) {
      add(w.captions, c.innerText.trim());
    }
    const inside = document.querySelectorAll('[data-testid="stExpander"] [data-testid="stPlotlyChart"]').length;
    w.status_charts = Math.max(w.status_charts, inside);
    for (const icon of document.querySelectorAll('[data-testid="stExpanderIconSpinner"]')) {
      w.spinners += 1;  // a spinning icon costs the browser CPU the timed steps lack (docs/playground.md)
      for (const el of [icon, ...icon.querySelectorAll('*')]) {
        if (getComputedStyle(el).animationName !== 'none') w.spinning = true;
      }
    }
  }).observe(document.body, {childList: true, subtree: true, characterData: true});
  window.__progress = w;
}"""


@contextmanager
def page_at(browser, port: int, path: str, ready, width: int = 1400, height: int = 1100, **context_args):
    """A fresh browser session on the app's /path, once `ready(page)` (a locator) is visible and the
    script is idle; closed afterwards."""
    context = browser.new_context(viewport={"width": width, "height": height}, **context_args)
    page = context.new_page()
    try:
        page.goto(f"http://127.0.0.1:{port}/{path}", wait_until="domcontentloaded")
        ready(page).wait_for(state="visible", timeout=180_000)
        wait_idle(page, 180_000)
        yield page
    finally:
        context.close()


def formula_edges(page, scope: str = "") -> list[int]:
    """The right edge, in px, of every formula drawn (KaTeX) under `scope` (a CSS selector; the whole
    page by default) that is visible."""
    return page.evaluate(
        """scope => [...document.querySelectorAll((scope + ' .katex').trim())]
  .map(k => k.getBoundingClientRect()).filter(r => r.width > 0).map(r => Math.round(r.right))""",
        scope,
    )
