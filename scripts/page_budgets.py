"""Every page's default action in the real app (Streamlit + Chromium, the bundled model), timed as a
visitor sees it: from the click to the first result on screen and to the whole run done; for the
playground also from the timed run's end to each tab being usable. Prints the tables against the
lab's budgets and writes a dated record (bench/record.py).

    .venv/bin/python scripts/page_budgets.py [--pages playground compare ...] [--out DIR]

Budgets: first result ≤ 5 s, complete ≤ 60 s (quiet 2-core machine, bundled model); the playground's
tabs ≤ 1 s after its timed run, except Memory (its untimed pass follows). Take the record on a quiet
machine: the record says how much other work shared it (bench/record.py), and a busy one is no record.

Each page's markers are one row of PAGES below, so a page that changes needs only its row: the button
that starts its default action (its widget key, or its label's catalogue key where it has no key),
the first result (an element matching FIRST that was not on the page before the click, or a page's
own selector; the record says which element it was) and the end (the app's script idle with no
background work shown, as scripts/app_browser.wait_idle waits for; or a page's own selector). Times
come from a MutationObserver in the page (performance.now() since the click): nothing polls.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.record import RESULTS, recorded  # noqa: E402
from engine.entrypoints.launch import free_port  # noqa: E402
from lab.catalogues import say  # noqa: E402
from scripts.app_browser import (  # noqa: E402
    BACKGROUND,
    SCRIPT_STATE,
    launch_chromium,
    open_app,
    start_app,
    stop_app,
    wait_healthy,
    wait_idle,
)

FIRST_S, DONE_S, TAB_S = 5.0, 60.0, 1.0  # the budgets
RUN_TIMEOUT_MS = 900_000  # a page far over its budget is still timed, up to this
# A result on screen: a table, a chart or a metric in the page's main area.
FIRST = (
    '[data-testid="stMain"] :is([data-testid="stDataFrame"], [data-testid="stTable"], '
    '[data-testid="stPlotlyChart"], [data-testid="stMetric"])'
)


@dataclass(frozen=True)
class PageBudget:
    """One page's default action and the markers that time it."""

    page: str  # its folder and url path (app_pages.PAGES)
    button: str  # the widget key of the button that starts it ("label:<catalogue key>" where it has none)
    first: str = FIRST  # CSS selector of its results: the first one that was not there before the click
    done: str | None = None  # CSS selector present once it is complete (None: the script idle)
    what: str = ""  # a name where a page has more than one timed action
    tab: int | None = None  # the tab (by place) its button is in, where it is not the first

    @property
    def path(self) -> str:
        """Its URL path: the default page has the root only (/playground would say "Page not found")."""
        return "" if self.page == "playground" else self.page

    @property
    def name(self) -> str:
        return f"{self.page}: {self.what}" if self.what else self.page


PAGES: tuple[PageBudget, ...] = (
    PageBudget("playground", "pg_run", first=".pd-live .pd-out", what="run the prompt"),
    PageBudget("memory", "mem_run_sweep", what="memory sweep"),
    PageBudget("complexity", "cx_run"),
    PageBudget("serving", "sv_run"),
    PageBudget("compare", "cmp_run", first=".pd-live .pd-out"),  # its columns' first tokens, live
    PageBudget("roofline", "rf_run", tab=1),
    PageBudget("sweeps", "sw_run"),
    PageBudget("claims", "cl_run"),
    PageBudget("precision", "label:pr_run"),
    PageBudget("speculative", "sp_run", what="plain vs drafted"),
    PageBudget("speculative", "sp_cost_run", what="verify-cost curve", tab=1),
    PageBudget("disaggregation", "dg_run"),
)
SKIPPED = {"remote": "needs a server to connect to", "source": "text only, no action"}
# The playground's tabs, each usable once its marker is drawn (its keyed chart, table or widget).
PLAYGROUND_TABS: tuple[tuple[str, str], ...] = (
    ("Tokens & replay", '[data-testid="stTabPanel"] .pd-chips'),
    ("KV cache", ".st-key-pg_fig_kv_tokens"),
    ("Attention", ".st-key-pg_fig_shapes"),
    ("Timings", ".st-key-pg_fig_latency"),
    ("Step table", '[data-testid="stTabPanel"] [data-testid="stDataFrame"]'),
    ("downloads", ".st-key-pg_dl_trace"),
    ("Memory", ".st-key-pg_fig_memory"),
)
TIMED_RUN_END = ".pd-live"  # the playground's live view: gone when its timed run ends

# Installed just before the click: ms since the click of the first result element that was not on
# the page before it (and is not a stale one of the last run, which Streamlit keeps until redrawn),
# with what it was; of each marker's first appearance after the live view ended; of the live view's
# end; of the background work's end; and of every change of the script's state to idle.
OBSERVER_JS = """([first, done, markers, live, background]) => {
  const w = {t0: performance.now(), first: null, first_what: null, done: null, live_seen: false,
             live_end: null, marks: {}, idle: [], background_end: null, background_seen: false};
  const before = new Set(document.querySelectorAll(first));
  const now = () => performance.now() - w.t0;
  const what = el => {
    const keyed = el.closest('[class*="st-key-"]');
    const key = keyed ? [...keyed.classList].find(c => c.startsWith('st-key-')) : '';
    return [el.dataset.testid || el.className, key].filter(Boolean).join(' ');
  };
  const look = () => {
    const t = now();
    if (w.first === null) {
      for (const el of document.querySelectorAll(first)) {
        if (before.has(el) || el.closest('[data-stale="true"]')) continue;
        w.first = t; w.first_what = what(el); break;
      }
    }
    if (done && w.done === null && document.querySelector(done)) w.done = t;
    const liveNow = !!document.querySelector(live);
    if (liveNow) w.live_seen = true;
    if (w.live_seen && !liveNow && w.live_end === null) w.live_end = t;
    if (w.live_end !== null) {
      for (const [name, sel] of markers) if (!(name in w.marks) && document.querySelector(sel)) w.marks[name] = t;
    }
    const bg = !!document.querySelector(background);
    if (bg) { w.background_seen = true; w.background_end = null; }
    else if (w.background_seen && w.background_end === null) w.background_end = t;
    const state = document.querySelector('[data-testid="stApp"]')?.dataset.testScriptState;
    if (state === 'notRunning' && w.last_state !== 'notRunning') w.idle.push(t);
    w.last_state = state;
  };
  const obs = new MutationObserver(look);
  obs.observe(document.body, {childList: true, subtree: true, characterData: true, attributes: true,
                              attributeFilter: ['data-test-script-state', 'data-stale']});
  look();
  window.__budget = w;
}"""


def button(page, spec: PageBudget):
    """The button that starts the default action: by its widget key, or by its label's words."""
    if spec.button.startswith("label:"):
        label = say(spec.button.removeprefix("label:"), "en", spec.page)
        return page.get_by_role("button", name=label, exact=True).first
    return page.locator(f".st-key-{spec.button} button").first


def time_page(page, port: int, spec: PageBudget) -> dict:
    """Open the page, click its default action, wait until it is complete; the observer's times (s)."""
    page.goto(f"http://127.0.0.1:{port}/{spec.path}", wait_until="domcontentloaded")
    if spec.tab is not None:
        page.locator('[data-testid="stTabs"]').first.get_by_role("tab").nth(spec.tab).click(timeout=300_000)
    target = button(page, spec)
    target.wait_for(state="visible", timeout=300_000)
    wait_idle(page, 300_000)
    markers = [list(m) for m in PLAYGROUND_TABS] if spec.page == "playground" else []
    page.evaluate(OBSERVER_JS, [spec.first, spec.done, markers, TIMED_RUN_END, BACKGROUND])
    target.click()
    page.wait_for_function(f"() => ({SCRIPT_STATE})() !== 'notRunning'", timeout=30_000)
    wait_idle(page, RUN_TIMEOUT_MS)
    w = page.evaluate("() => window.__budget")
    seconds = {k: w[k] / 1e3 if w[k] is not None else None for k in ("first", "done", "live_end", "background_end")}
    seconds["marks"] = {k: v / 1e3 for k, v in w["marks"].items()}
    seconds["complete"] = seconds["done"] if spec.done else (w["idle"][-1] / 1e3 if w["idle"] else None)
    seconds["first_what"] = w["first_what"]  # which element counted as the first result
    return seconds


def verdict(value: float | None, budget: float) -> str:
    if value is None:
        return "not seen"
    return "within" if value <= budget else f"over by {value - budget:.1f} s"


def fmt(value: float | None) -> str:
    return "—" if value is None else f"{value:.1f}"


def print_tables(times: dict[str, dict]) -> None:
    print(
        f"\n| page (default action) | first result s | complete s | first ≤ {FIRST_S:g} s | complete ≤ {DONE_S:g} s "
        "| the first result |"
    )
    print("|---|---|---|---|---|---|")
    for name, w in times.items():
        first, done = w.get("first"), w.get("complete")
        if "failed" in w:
            print(f"| {name} | — | — | could not be timed: {w['failed'][:120]} | | |")
            continue
        print(
            f"| {name} | {fmt(first)} | {fmt(done)} | {verdict(first, FIRST_S)} | {verdict(done, DONE_S)} "
            f"| {w.get('first_what') or '—'} |"
        )
    for page, reason in SKIPPED.items():
        print(f"| {page} | — | — | skipped: {reason} | | |")
    play = next((w for name, w in times.items() if name.startswith("playground")), None)
    if play is None or play.get("live_end") is None:
        return
    end = play["live_end"]
    print(f"\nPlayground: the timed run ended {end:.1f} s after the click; each tab usable after it:\n")
    print(f"| tab | s after the timed run | ≤ {TAB_S:g} s |")
    print("|---|---|---|")
    for tab, _ in PLAYGROUND_TABS:
        at = play["marks"].get(tab)
        after = None if at is None else max(0.0, at - end)
        budget = "(its own pass)" if tab == "Memory" else verdict(after, TAB_S)
        print(f"| {tab} | {fmt(after)} | {budget} |")


def main() -> int:
    from playwright.sync_api import Error as PlaywrightError
    from playwright.sync_api import sync_playwright

    names = sorted({p.page for p in PAGES})
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pages", nargs="+", choices=names, default=names, help="time only these pages")
    args = ap.parse_args()
    chosen = [p for p in PAGES if p.page in args.pages]
    port = free_port()
    proc = start_app(port, env={"PDLAB_MODEL": "bundled"})
    times: dict[str, dict] = {}
    try:
        wait_healthy(port, proc)
        with sync_playwright() as p:
            browser = launch_chromium(p)
            page = browser.new_page(viewport={"width": 1280, "height": 1600})
            open_app(page, port, timeout_ms=300_000)  # the model loaded once, before any page is timed
            for spec in chosen:
                try:
                    times[spec.name] = time_page(page, port, spec)
                except PlaywrightError as e:  # one page that cannot be timed leaves the others' times
                    times[spec.name] = {"failed": str(e).splitlines()[0]}
                print(f"# {spec.name}: {times[spec.name]}", flush=True)
            browser.close()
    finally:
        stop_app(proc)
    print_tables(times)
    return 0


def parse_out(argv: list[str]) -> Path:
    """--out DIR: where the record goes (default bench/results; a trial run can keep it elsewhere)."""
    if "--out" in argv:
        i = argv.index("--out")
        out = Path(argv[i + 1])
        del argv[i : i + 2]
        return out
    return RESULTS


if __name__ == "__main__":
    out = parse_out(sys.argv)
    with recorded("page_budgets", out):
        code = main()
    sys.exit(code)
