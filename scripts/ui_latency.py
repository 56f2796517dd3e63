"""Measure the playground's responsiveness on the warm bundled model, as the lab's latency targets ask:

1. time from clicking Run to the first generated token being visible in the browser, and
2. tokens/s of the live animation (as the browser sees chips arrive) against the engine's own
   decode tokens/s without any UI (same settings, same machine, measured first, in-process).

Prints a Markdown table for the docs and writes its record. Usage: .venv/bin/python scripts/ui_latency.py [--runs 5]
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine.entrypoints.launch import free_port
from scripts.app_browser import (
    RUN_BUTTON,
    click_and_wait,
    launch_chromium,
    open_app,
    set_number,
    set_prompt,
    start_app,
    stop_app,
    wait_healthy,
)

PROMPT = "Write a short story about a robot who learns to paint."
MAX_NEW = 64

# Records (ms since click, number of generated chips in the live view) on every DOM change.
OBSERVER_JS = """() => {
  window.__pd = {t0: performance.now(), marks: []};
  const count = () => document.querySelectorAll('.pd-live .pd-out').length;
  const obs = new MutationObserver(() => {
    const n = count(), m = window.__pd.marks;
    if (n && (!m.length || m[m.length - 1][1] !== n)) m.push([performance.now() - window.__pd.t0, n]);
  });
  obs.observe(document.body, {childList: true, subtree: true, characterData: true});
  window.__pd.obs = obs;
}"""


class EngineAlone:
    """The bare engine in this process, same settings as the page: no UI, no browser."""

    def __init__(self):
        from engine import load_model
        from ui.models import warm_up
        from ui.run_state import RunSettings

        self.bundle = load_model(None)
        warm_up(self.bundle)
        self.settings = RunSettings(prompt=PROMPT, chat=True, max_new_tokens=MAX_NEW)

    def run(self) -> tuple[float, float]:
        """(decode tokens/s = (n - 1) / (E2E - TTFT), TTFT ms) of one generation."""
        from engine import Engine
        from engine.core.memory_pass import timed_config

        # timed as the app times its run: bare, the memory probe left to a second pass it does not time
        engine = Engine(self.bundle.model, self.bundle.tokenizer, timed_config(self.settings.engine_config()))
        engine.generate(PROMPT, self.settings.sampling(), chat=True)
        m = engine.trace.requests[0].metrics
        return (m.num_output_tokens - 1) / (m.e2e_ms - m.ttft_ms) * 1e3, m.ttft_ms


def browser_run(page) -> tuple[float, float, int]:
    """One click on Run: (ms to the first token visible, live tokens/s, tokens seen live)."""
    page.evaluate(OBSERVER_JS)
    click_and_wait(page, page.locator(RUN_BUTTON).first, 120_000)
    marks = page.evaluate("() => { window.__pd.obs.disconnect(); return window.__pd.marks; }")
    (t_first, n_first), (t_last, n_last) = marks[0], marks[-1]
    rate = (n_last - n_first) / (t_last - t_first) * 1e3 if t_last > t_first else float("nan")
    return t_first, rate, n_last


def measure(runs: int) -> list[tuple[float, float, float, float]]:
    """Rounds of (engine alone, then the same prompt in the browser), interleaved so that a
    machine that speeds up or slows down affects both sides alike.
    Per round: (engine tokens/s, engine TTFT ms, ms to first token visible, live tokens/s)."""
    from playwright.sync_api import sync_playwright

    alone = EngineAlone()
    port = free_port()
    proc = start_app(port, log_path=ROOT / "test-artifacts" / "measure_server.log")
    rounds = []
    try:
        wait_healthy(port, proc)
        with sync_playwright() as p:
            browser = launch_chromium(p)
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            open_app(page, port)
            set_prompt(page, PROMPT)
            set_number(page, "max_new_tokens", MAX_NEW)
            browser_run(page)  # warms the page itself; not counted
            for _ in range(runs):
                rate, ttft = alone.run()
                first, live, _ = browser_run(page)
                rounds.append((rate, ttft, first, live))
            browser.close()
    finally:
        stop_app(proc)
    return rounds


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    (ROOT / "test-artifacts").mkdir(exist_ok=True)
    rounds = measure(args.runs)
    med = [statistics.median(r[i] for r in rounds) for i in range(4)]
    ratio = statistics.median(r[3] / r[0] for r in rounds)
    print(f"| measure (median of {args.runs} rounds; {MAX_NEW} new tokens, sdpa, timed without the probe) | value |")
    print("|---|---|")
    print(f"| engine alone: TTFT | {med[1]:.0f} ms |")
    print(f"| engine alone: decode tokens/s | {med[0]:.1f} |")
    print(f"| browser: click Run → first generated token visible | {med[2]:.0f} ms |")
    print(f"| browser: tokens/s of the live animation | {med[3]:.1f} |")
    print(f"| live animation / engine alone (per round) | {ratio:.0%} |")
    return 0


if __name__ == "__main__":
    from bench.record import recorded

    with recorded("ui_latency"):  # the app's server and Chromium are its children: counted as its own work
        code = main()
    sys.exit(code)
