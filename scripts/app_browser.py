"""Start the real app in a subprocess and drive it with Playwright and Debian's Chromium: shared by
the browser tests and the scripts that screenshot, soak and time the app."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from engine.entrypoints.launch import stop, wait_for

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = ROOT / "test-artifacts"  # screenshots and server logs


CHROMIUM = "/usr/bin/chromium"


CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def start_app(port: int, env: dict[str, str] | None = None, log_path: Path | None = None) -> subprocess.Popen:
    """`streamlit run app.py` on 127.0.0.1:port; its output goes to log_path (or is discarded)."""
    cmd = [
        sys.executable,
        "-m",
        "streamlit",
        "run",
        str(ROOT / "app.py"),
        "--server.port",
        str(port),
        "--server.address",
        "127.0.0.1",
        "--server.headless",
        "true",
        "--browser.gatherUsageStats",
        "false",
        "--server.fileWatcherType",
        "none",
    ]
    out = open(log_path, "w") if log_path else subprocess.DEVNULL
    return subprocess.Popen(cmd, cwd=ROOT, env={**os.environ, **(env or {})}, stdout=out, stderr=subprocess.STDOUT)


def wait_healthy(port: int, proc: subprocess.Popen, timeout: float = 60.0) -> None:
    wait_for(f"http://127.0.0.1:{port}/_stcore/health", proc, timeout)


stop_app = stop  # stop the server we started, by its own handle


def launch_chromium(playwright):
    return playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)


# --- page helpers ------------------------------------------------------------------------------
RUN_BUTTON = 'button:has-text("Run"), button:has-text("运行")'


def open_app(page, port: int, timeout_ms: int = 120_000) -> None:
    """Load the app and wait until the model is loaded and the prompt box is there."""
    page.goto(f"http://127.0.0.1:{port}/", wait_until="domcontentloaded")
    page.locator("textarea").first.wait_for(state="visible", timeout=timeout_ms)
    wait_idle(page, timeout_ms)


SCRIPT_STATE = "() => document.querySelector('[data-testid=\"stApp\"]')?.dataset.testScriptState"
# Work a page goes on with after its script has ended (the playground's memory pass), shown in a
# container whose key ends in "_background" (Streamlit gives a keyed container the class st-key-<key>).
BACKGROUND = '[class*="st-key-"][class*="_background"]'


def wait_idle(page, timeout_ms: int = 60_000, settle_ms: int = 250) -> None:
    """Wait until the app's script is not running (Streamlit marks the state on the app root) and no
    background work is shown, and it stays so for settle_ms: a second rerun may follow the first at
    once (a widget the first run changed), and a page read in the gap between the two shows half of
    the second one."""
    idle = f"() => ({SCRIPT_STATE})() === 'notRunning' && !document.querySelector('{BACKGROUND}')"
    for _ in range(5):
        page.wait_for_function(idle, timeout=timeout_ms)
        page.wait_for_timeout(settle_ms)
        if page.evaluate(idle):
            return


def click_and_wait(page, locator, timeout_ms: int = 60_000) -> None:
    """Click something that reruns the script, then wait for that rerun to finish."""
    act_and_wait(page, locator.click, timeout_ms)


def press_and_wait(page, key: str, timeout_ms: int = 60_000) -> None:
    """Press a key on the focused widget, then wait for the rerun it causes."""
    act_and_wait(page, lambda: page.keyboard.press(key), timeout_ms)


def act_and_wait(page, action, timeout_ms: int = 60_000) -> None:
    action()
    try:  # the rerun may start and end before we look: then there is nothing to wait for
        page.wait_for_function(f"() => ({SCRIPT_STATE})() !== 'notRunning'", timeout=3_000)
    except Exception:  # noqa: BLE001 - playwright's TimeoutError
        pass
    wait_idle(page, timeout_ms)


def set_prompt(page, text: str) -> None:
    box = page.locator("textarea").first
    box.fill(text)


def set_number(page, label: str, value: int | float) -> None:
    field = page.get_by_label(label, exact=True)
    field.fill(str(value))


def open_tab(page, name: str) -> None:
    page.get_by_role("tab", name=name).click()
    page.wait_for_timeout(300)


def exception_boxes(page) -> int:
    return page.locator('[data-testid="stException"]').count()
