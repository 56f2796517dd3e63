"""Screenshots of the real app for the docs: starts `streamlit run app.py` on the bundled model,
drives the system Chromium with Playwright, and writes PNGs to docs/screenshots/.

Each page is run once, and its gallery shot (docs/gallery.md) taken after the run at each width
and in each language (scripts/shot_plan.py names them); most pages add the docs' shots of their other
tabs and runs, in English at the desktop width.

Usage: .venv/bin/python scripts/screenshots.py [--pages compare,memory] [--widths 1400,390]
       [--langs en,zh] [--gallery-only] [--busy-core]
(needs /usr/bin/chromium; CJK fonts such as fonts-noto-cjk for the Chinese shots)
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from app_pages import PAGES
from engine.entrypoints.launch import free_port
from scripts.app_browser import launch_chromium, open_app, start_app, stop_app, wait_healthy
from scripts.shot_pages import EXTRA_RUNS, OUT, RUNS, SHOT_CSS, busy_core
from scripts.shot_plan import DESKTOP, LANGS, WIDTHS, parse_list, plan
from scripts.shot_taker import ShotTaker


def parse_args(argv: list[str] | None = None):
    import argparse

    ap = argparse.ArgumentParser(description="Screenshots of the real app for the docs and the gallery.")
    choices = {
        "pages": (tuple(p.name for p in PAGES), "page"),
        "widths": (WIDTHS, "width"),
        "langs": (LANGS, "language"),
    }
    for flag, (allowed, kind) in choices.items():
        ap.add_argument(
            f"--{flag}",
            type=lambda text, allowed=allowed, kind=kind: _choice(text, allowed, kind),
            default=allowed,
            help=f"comma-separated, among {','.join(map(str, allowed))} (default: all)",
        )
    ap.add_argument("--gallery-only", action="store_true", help="only the gallery's shots: no other tabs or runs")
    ap.add_argument(
        "--busy-core",
        action="store_true",
        help="only Compare, Claims and Precision beside one busy core (compare-busy.png, …)",
    )
    return ap.parse_args(argv)


def _choice(text: str, allowed: tuple, kind: str) -> tuple:
    import argparse

    try:
        return parse_list(text, allowed, kind)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def main() -> int:
    from playwright.sync_api import sync_playwright

    args = parse_args()
    shots = ShotTaker(OUT, plan(args.pages, args.widths, args.langs), extras=not args.gallery_only)
    runs = [run for name in args.pages for run in RUNS[name] if shots.extras or run not in EXTRA_RUNS]
    if args.busy_core:
        runs = [busy_core]
    OUT.mkdir(parents=True, exist_ok=True)
    port = free_port()
    proc = start_app(port, env={"PDLAB_MODEL": "bundled"})
    try:
        wait_healthy(port, proc)
        with sync_playwright() as p:
            browser = launch_chromium(p)
            page = browser.new_page(viewport={"width": DESKTOP, "height": 2600})
            open_app(page, port, timeout_ms=300_000)  # the playground's runs start here
            page.add_style_tag(content=SHOT_CSS)
            for run in runs:
                run(page, port, shots)
            browser.close()
    finally:
        stop_app(proc)
    return 0


if __name__ == "__main__":
    sys.exit(main())
