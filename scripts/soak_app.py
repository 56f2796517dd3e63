"""The Streamlit app must not grow either: a real app server (one process), one browser session
pressing Run again and again on the playground (the prompt changing each time), the server's
resident memory (RSS, psutil's reading of the process we started) after each run.

    .venv/bin/python scripts/soak_app.py [--runs 100] [--new-tokens 32]

Same table and limit as bench/soak.py (growth from run 10 to the last at most 50 MB). Each app run
makes its own engine and KV pool, freed with it; the blocks-back-to-zero check of a long-lived
engine is bench/soak.py's.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from soak import PROMPTS, parse_args, print_header, report

from engine.entrypoints.launch import free_port
from scripts.app_browser import (
    ARTIFACTS,
    RUN_BUTTON,
    click_and_wait,
    exception_boxes,
    launch_chromium,
    open_app,
    set_number,
    set_prompt,
    start_app,
    stop_app,
    wait_healthy,
)


def rss_mb(pid: int) -> float:
    import psutil

    return psutil.Process(pid).memory_info().rss / 2**20


def main() -> int:
    from playwright.sync_api import sync_playwright

    args = parse_args(__doc__.splitlines()[0])
    ARTIFACTS.mkdir(exist_ok=True)
    port = free_port()
    proc = start_app(port, env={"PDLAB_MODEL": "bundled"}, log_path=ARTIFACTS / "soak-app-server.log")
    rss = []
    try:
        wait_healthy(port, proc, 240)
        with sync_playwright() as p:
            browser = launch_chromium(p)
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            open_app(page, port, 240_000)
            for i in range(args.runs):
                set_prompt(page, f"{PROMPTS[i % len(PROMPTS)]} ({i})")
                set_number(page, "max_new_tokens", args.new_tokens)
                click_and_wait(page, page.locator(RUN_BUTTON).first, 240_000)
                if not page.get_by_text(re.compile(r"Done: \d+ tokens? generated")).count() or exception_boxes(page):
                    raise SystemExit(f"run {i} did not finish cleanly")
                rss.append(rss_mb(proc.pid))
            browser.close()
    finally:
        stop_app(proc)
    print_header(args.runs, args.new_tokens)
    return 0 if report("app (playground)", rss) else 1


if __name__ == "__main__":
    from bench.record import recorded

    with recorded("soak_app"):  # the app's server and Chromium are its children: counted as its own work
        code = main()
    sys.exit(code)
