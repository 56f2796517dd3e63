"""Each page's runs for scripts/screenshots.py: what a page's run clicks and waits for, and which of
its shots it takes (the gallery's through ShotTaker, the docs' other pictures beside them). RUNS names
them per page; EXTRA_RUNS are the docs' other pictures only, skipped by --gallery-only."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from scripts.app_browser import (
    RUN_BUTTON,
    act_and_wait,
    click_and_wait,
    open_tab,
    set_number,
    set_prompt,
    wait_idle,
)
from scripts.shot_plan import DESKTOP
from scripts.shot_taker import MAIN_BLOCK, ShotTaker

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "docs" / "screenshots"
TAB_PANEL = '[data-testid="stTabPanel"]:visible'
# A tab panel's box ends at its last element's border: a little room below keeps a last button whole.
SHOT_CSS = '[data-testid="stTabPanel"] { padding-bottom: 12px; }'
BUSY_SHOT_PX = 2600  # the busy shots keep this much from where the timed numbers start
LONG_MS = 3_600_000  # a page's whole default run on a machine other work shares: many times the quiet minute


def settle(page) -> None:
    """Move the pointer off the page (a hovered chart shows Plotly's toolbar) and let charts finish."""
    page.mouse.move(1, 1)
    page.wait_for_timeout(500)


def goto(page, url: str) -> None:
    """Open another page of the app (a new session) with the screenshot CSS."""
    page.goto(url, wait_until="domcontentloaded")
    page.add_style_tag(content=SHOT_CSS)


def wait_text(page, text: str) -> None:
    """Wait for a run's closing message: on a loaded machine its script can start later than
    click_and_wait looks for it, which would catch the page mid-run."""
    page.get_by_text(text).first.wait_for(timeout=600_000)
    wait_idle(page, 600_000)


def shoot_tab(page, tab: str, name: str, shots: ShotTaker) -> None:
    open_tab(page, tab)
    panel = page.locator(TAB_PANEL)
    if panel.locator('[data-testid="stPlotlyChart"]').count():
        panel.locator(".js-plotly-plot .main-svg").first.wait_for(timeout=20_000)
        page.wait_for_timeout(300)  # let Plotly finish its transitions
    settle(page)
    panel.screenshot(path=str(OUT / name))
    shots.extra(OUT / name)


def main_run(page, port: int, shots: ShotTaker) -> None:
    """A chat prompt on eager attention (so the heatmap exists), caught live and then tab by tab."""
    set_prompt(page, "Why is the sky blue? Answer in two sentences.")
    set_number(page, "max_new_tokens", 48)
    page.locator('label:has-text("eager")').click()
    page.locator(RUN_BUTTON).first.click()
    page.locator(".pd-live .pd-out").nth(5).wait_for(timeout=60_000)
    box = page.locator(".pd-live").bounding_box()  # the element is redrawn while we look: clip the page
    page.screenshot(path=str(OUT / "playground-live.png"), clip=box)
    page.wait_for_function("() => !document.querySelector('.pd-live')", timeout=120_000)
    click_and_wait(page, page.get_by_role("tab", name="Tokens & replay"), 600_000)  # settle: the memory pass too
    shots.page(page, "playground")
    if not shots.extras:
        return
    for tab, name in [
        ("Tokens & replay", "tab-tokens.png"),
        ("KV cache", "tab-kv-cache.png"),
        ("Attention", "tab-attention.png"),
        ("Timings", "tab-timings.png"),
        ("Memory", "tab-memory.png"),
    ]:
        shoot_tab(page, tab, name, shots)


def worked_example(page, port: int, shots: ShotTaker) -> None:
    click_and_wait(page, page.get_by_role("button", name="Load the worked example: 今天天气"))
    click_and_wait(page, page.locator(RUN_BUTTON).first, 120_000)
    shoot_tab(page, "Step table (C12)", "tab-step-table.png", shots)
    shoot_tab(page, "Tokens & replay", "worked-example-chips.png", shots)  # byte tokens boxed under 今, 天, 气


def complexity(page, port: int, shots: ShotTaker) -> None:
    """The complexity lab: a cache on/off comparison (L = 32, N = 64), then each tab."""
    page.set_viewport_size({"width": DESKTOP, "height": 2600})
    goto(page, f"http://127.0.0.1:{port}/complexity")
    page.get_by_role("spinbutton", name="generated tokens N").wait_for(timeout=120_000)
    page.get_by_role("spinbutton", name="generated tokens N").fill("64")
    page.keyboard.press("Tab")
    click_and_wait(page, page.get_by_role("button", name="Run cache on vs off"), 600_000)
    wait_text(page, "Done: 64 tokens after")
    shots.page(page, "complexity")
    if not shots.extras:
        return
    for tab, name in [
        ("Which term dominates (C15)", "complexity-dominance.png"),
        ("Worked example (C12)", "complexity-worked.png"),
    ]:
        shoot_tab(page, tab, name, shots)


def speculative(page, port: int, shots: ShotTaker) -> None:
    """The speculative decoding lab: the repeat prompt both ways (48 tokens, k = 4), then the
    verify-cost curve at its defaults."""
    page.set_viewport_size({"width": DESKTOP, "height": 2600})
    goto(page, f"http://127.0.0.1:{port}/speculative")
    page.get_by_role("button", name="Run both").wait_for(timeout=120_000)
    click_and_wait(page, page.get_by_role("button", name="Run both"), 600_000)
    wait_text(page, "tokens both ways")
    shots.page(page, "speculative")
    if not shots.extras:
        return
    open_tab(page, "What a verify step costs")
    click_and_wait(page, page.get_by_role("button", name="Measure"), 600_000)
    wait_text(page, "draft lengths at")  # the run's closing label ("measured" is in other tabs' words too)
    shoot_tab(page, "What a verify step costs", "speculative-cost.png", shots)


def disaggregation(page, port: int, shots: ShotTaker) -> None:
    """The disaggregation lab: its default workload on the three set-ups, five rounds after a calibrated
    SLO (the first run starts four servers), then the transfer calculator at its defaults; the servers
    stopped after. The viewport
    holds the whole tab: a chart below it is drawn at a stub's size until scrolled to."""
    page.set_viewport_size({"width": DESKTOP, "height": 3600})
    goto(page, f"http://127.0.0.1:{port}/disaggregation")
    run = page.get_by_role("button", name="Run the three set-ups")
    run.wait_for(timeout=120_000)
    click_and_wait(page, run, LONG_MS)
    wait_text(page, "Goodput at the SLO")
    page.get_by_text("decode worker · long prompt 1").first.wait_for(timeout=30_000)  # the last chart drawn
    page.wait_for_timeout(1000)
    shots.page(page, "disaggregation")
    click_and_wait(page, page.get_by_role("button", name="Stop the servers"))
    if not shots.extras:
        return
    open_tab(page, "The transfer on real hardware")
    wait_text(page, "KV to hand over")
    shoot_tab(page, "The transfer on real hardware", "disaggregation-transfer.png", shots)


def memory(page, port: int, shots: ShotTaker) -> None:
    """The memory lab: a sweep up to L = 2048 (eager, sdpa, 512-token chunks) and eager against sdpa timed
    at its default length, then each tab."""
    page.set_viewport_size({"width": DESKTOP, "height": 2600})
    goto(page, f"http://127.0.0.1:{port}/memory")
    lengths = page.get_by_role("textbox", name="Prompt lengths L")
    lengths.wait_for(timeout=120_000)
    lengths.fill("64, 256, 1024, 2048")
    click_and_wait(page, page.get_by_role("button", name="Run sweep"), LONG_MS)
    wait_text(page, "timed eager against sdpa at L =")  # the memory points, then the timed length
    shots.page(page, "memory")
    if not shots.extras:
        return
    shoot_tab(page, "Will it fit? (C20)", "memory-fit.png", shots)
    open_tab(page, "Attention heatmaps")
    click_and_wait(page, page.get_by_role("button", name="Run and capture"), 120_000)
    click_and_wait(page, page.get_by_text("every layer", exact=True))
    shoot_tab(page, "Attention heatmaps", "memory-heat.png", shots)
    open_tab(page, "KV leak (C16)")
    click_and_wait(page, page.get_by_role("button", name="Run both loops"), LONG_MS)
    wait_text(page, "Both loops ran")
    shoot_tab(page, "KV leak (C16)", "memory-leak.png", shots)


def serving(page, port: int, shots: ShotTaker) -> None:
    """The serving lab: the head-of-line preset at its interactive size, continuous batching against
    continuous + chunked prefill; the timeline stopped at a step where a chunk of the long prompt
    shares the batch with the chats' decodes, then the block pool and the metrics."""
    import re

    page.set_viewport_size({"width": DESKTOP, "height": 2600})
    goto(page, f"http://127.0.0.1:{port}/serving")
    run = page.get_by_role("button", name="Run both policies")
    run.wait_for(timeout=120_000)
    click_and_wait(page, run, LONG_MS)
    wait_text(page, "under both policies")
    click_and_wait(page, page.get_by_text("B: continuous + chunked prefill", exact=True).first)
    panel = page.locator(TAB_PANEL)
    for _ in range(80):
        caption = panel.get_by_text(re.compile(r"^Step \d+ of 0–\d+")).first.inner_text()
        m = re.search(r"(\d+) decode \+ (\d+) prefill", caption)
        if m and int(m[1]) >= 4 and int(m[2]) > 0:  # all four chats decode: the prefill is the long prompt's
            break
        click_and_wait(page, panel.get_by_role("button", name="Next"))
    shots.page(page, "serving")
    if not shots.extras:
        return
    shoot_tab(page, "KV blocks", "serving-blocks.png", shots)
    shoot_tab(page, "Metrics A vs B", "serving-metrics.png", shots)
    tables = page.locator(TAB_PANEL).locator('[data-testid="stDataFrame"]')
    before = tables.count()
    click_and_wait(page, page.get_by_role("button", name="Judge all four policies at this SLO"), LONG_MS)
    for _ in range(600):  # the four policies' table: one more dataframe (a dataframe takes no key class)
        if tables.count() > before:
            break
        page.wait_for_timeout(1000)
    wait_idle(page, LONG_MS)
    shoot_tab(page, "Metrics A vs B", "serving-goodput.png", shots)


def compare(page, port: int, shots: ShotTaker) -> None:
    """The compare page: its default comparison (one prompt, KV cache on against off), 24 new tokens."""
    compare_run(page, port)
    shots.page(page, "compare")


def compare_run(page, port: int) -> None:
    page.set_viewport_size({"width": DESKTOP, "height": 6400})  # the table is a canvas: drawn only when in view
    goto(page, f"http://127.0.0.1:{port}/compare")
    run = page.get_by_role("button", name="Run all")
    run.wait_for(timeout=120_000)
    for i in range(2):
        page.locator(f".st-key-cmp_max_new_{i} input").fill("24")
    click_and_wait(page, run, 600_000)
    wait_text(page, "columns finished")
    page.locator('[data-testid="stPlotlyChart"] .main-svg').first.wait_for(timeout=20_000)


def ceilings_measured(page) -> None:
    """The ceilings tab once measured: its button shows before the measurement ends, the kernel
    table only after."""
    page.get_by_role("button", name="Re-measure").wait_for(timeout=240_000)
    page.get_by_text("Which kernel each layer runs").first.wait_for(timeout=600_000)
    wait_idle(page, 240_000)


def roofline(page, port: int, shots: ShotTaker) -> None:
    """The roofline lab: the ceilings, a roofline run at its defaults (L = 32, B = 1..16), the
    projection at its defaults and a calibration at L = 16, 128 and 512."""
    page.set_viewport_size({"width": DESKTOP, "height": 2600})
    goto(page, f"http://127.0.0.1:{port}/roofline")
    ceilings_measured(page)
    if shots.extras:
        shoot_tab(page, "This machine's ceilings", "roofline-ceilings.png", shots)
    open_tab(page, "Roofline of the loaded model")
    click_and_wait(page, page.get_by_role("button", name="Run the roofline"), LONG_MS)
    page.get_by_text("Done: ").first.wait_for(timeout=LONG_MS)
    shots.page(page, "roofline")
    if not shots.extras:
        return
    shoot_tab(page, "Projection to GPUs", "roofline-projection.png", shots)
    open_tab(page, "Calibration here")
    box = page.locator(".st-key-rf_cal_lengths input")
    box.click()
    click_and_wait(page, page.get_by_role("option", name="512", exact=True))
    page.keyboard.press("Escape")
    click_and_wait(page, page.get_by_role("button", name="Run the calibration"), LONG_MS)
    page.get_by_text("Calibration done").first.wait_for(timeout=LONG_MS)
    shoot_tab(page, "Calibration here", "roofline-calibration.png", shots)


def sharing(page, port: int, shots: ShotTaker) -> None:
    """Sharing a run: a short eager run's HTML report opened from disk (top and replay), and the
    run's trace uploaded into a fresh session, replayed with no model run."""
    import tempfile

    page.set_viewport_size({"width": DESKTOP, "height": 1300})
    goto(page, f"http://127.0.0.1:{port}/")
    page.locator("textarea").first.wait_for(timeout=120_000)
    set_prompt(page, "Why is the sky blue? Answer in one sentence.")
    set_number(page, "max_new_tokens", 24)
    page.locator('label:has-text("eager")').click()
    click_and_wait(page, page.locator(RUN_BUTTON).first, 300_000)
    folder = Path(tempfile.mkdtemp())
    files = {}
    for key, name in (("pg_dl_report", "report.html"), ("pg_dl_trace", "trace.json")):
        with page.expect_download(timeout=60_000) as info:
            page.locator(f".st-key-{key} button").first.click()
        info.value.save_as(str(folder / name))
        files[name] = folder / name
    report = page.context.browser.new_page(viewport={"width": 1200, "height": 1450})
    report.goto(files["report.html"].as_uri(), wait_until="load")
    report.locator(".rp-figure .js-plotly-plot .main-svg").first.wait_for(timeout=30_000)
    report.locator("#pd-replay-slider").focus()
    for i in range(6):  # the replay a few steps in: the prompt lit at once, then token by token
        report.keyboard.press("Home" if i == 0 else "ArrowRight")
    settle(report)
    report.screenshot(path=str(OUT / "share-report.png"))
    shots.extra(OUT / "share-report.png")
    report.close()
    page.set_viewport_size({"width": DESKTOP, "height": 2600})  # the block container is as tall as the viewport
    goto(page, f"http://127.0.0.1:{port}/")
    page.locator("textarea").first.wait_for(timeout=120_000)
    page.get_by_text("Load a saved trace (JSON)").click()
    uploader = page.locator('.st-key-pg_trace_upload input[type="file"]')
    act_and_wait(page, lambda: uploader.set_input_files(str(files["trace.json"])), 60_000)
    settle(page)
    page.locator('[data-testid="stMainBlockContainer"]').screenshot(path=str(OUT / "share-uploaded.png"))
    shots.extra(OUT / "share-uploaded.png")
    click_and_wait(page, page.locator(".st-key-pg_share button").first)
    settle(page)
    page.locator(".st-key-pg_share_box").screenshot(path=str(OUT / "share-link.png"))
    shots.extra(OUT / "share-link.png")


def sweeps(page, port: int, shots: ShotTaker) -> None:
    """The sweeps page at its defaults (7 prompt lengths, 4 output lengths, 3 repeats): verdicts and charts."""
    page.set_viewport_size({"width": DESKTOP, "height": 2600})
    goto(page, f"http://127.0.0.1:{port}/sweeps")
    page.get_by_role("button", name="Run sweeps").wait_for(timeout=240_000)
    click_and_wait(page, page.get_by_role("button", name="Run sweeps"), 900_000)
    page.locator(".js-plotly-plot .main-svg").first.wait_for(timeout=20_000)
    shots.page(page, "sweeps")


def claims(page, port: int, shots: ShotTaker) -> None:
    """The claims page after a full check: the summary and the table's first claims (the first 2600
    pixels: headless Chromium leaves what lies below its viewport blank)."""
    claims_run(page, port)
    shots.page(page, "claims")


def claims_run(page, port: int) -> None:
    page.set_viewport_size({"width": DESKTOP, "height": 2600})
    goto(page, f"http://127.0.0.1:{port}/claims")
    page.get_by_role("button", name="Check all claims").wait_for(timeout=240_000)
    click_and_wait(page, page.get_by_role("button", name="Check all claims"), 900_000)
    page.get_by_text("Checked 24 claims").first.wait_for(timeout=60_000)


def busy_core(page, port: int, shots: ShotTaker) -> None:
    """Compare's default, the claims check and Precision's default again beside one core of other work (a
    spinning process this script starts and stops), as a laptop with a browser open runs them: what the
    pages say then (compare-busy.png, claims-busy.png, precision-busy.png)."""
    spinner = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        # from where each page's timed numbers start: Compare's shared charts and table, Claims' top
        for run, name, start in (
            (compare_run, "compare-busy.png", "Shared charts"),
            (claims_run, "claims-busy.png", None),
            (precision_run, "precision-busy.png", "Speed and memory"),
        ):
            run(page, port)
            box = page.locator(MAIN_BLOCK).bounding_box()
            top = page.get_by_text(start, exact=True).first.bounding_box()["y"] - 16 if start else box["y"]
            height = min(box["y"] + box["height"] - top, BUSY_SHOT_PX)
            page.screenshot(path=str(OUT / name), clip={**box, "y": top, "height": height})
            shots.extra(OUT / name)
    finally:
        spinner.kill()
        spinner.wait(timeout=10)


def remote_pools(page, port: int, shots: ShotTaker) -> None:
    """The remote page against a disaggregated pair of the bundled model (`serve --role prefill` and
    `--role decode` behind `router`): a concurrent load of 8, with both workers' /metrics read as pools."""
    from contextlib import ExitStack

    from lab.disaggregation import start_setups

    page.set_viewport_size({"width": DESKTOP, "height": 3200})
    with ExitStack() as stack:
        servers = start_setups(stack, "bundled", 128, OUT.parent.parent / "test-artifacts", setups=("pd",))
        router = servers.urls["pd"]
        goto(page, f"http://127.0.0.1:{port}/remote")
        box = page.get_by_label("Base URL", exact=True)
        box.wait_for(timeout=120_000)
        box.fill(router)
        click_and_wait(page, page.get_by_role("button", name="Connect"))
        page.get_by_text("Connected to").first.wait_for(timeout=60_000)
        open_tab(page, "Load")
        panel = page.locator(TAB_PANEL)
        panel.locator('label:has-text("concurrent: a fixed number in flight")').click()
        panel.get_by_label("Requests", exact=True).fill("8")
        panel.locator('textarea[placeholder^="prefill = "]').fill(
            "\n".join(f"{name} = {url}" for name, url in servers.workers.items())
        )
        click_and_wait(page, panel.get_by_role("button", name="Run the load"), 600_000)
        page.get_by_text("requests finished").first.wait_for(timeout=600_000)
        page.get_by_text("Each pool's gauges").first.wait_for(timeout=60_000)
        page.wait_for_timeout(1000)
        shoot_tab(page, "Load", "remote-pools.png", shots)


def remote(page, port: int, shots: ShotTaker) -> None:
    """The remote-server page against our own `python -m engine serve` (the bundled model): one prompt,
    then a concurrent load of 8 synthetic 128-token prompts, then a capacity search up to 4 in flight
    (and the rate form beside it, to look at: remote-capacity-rate.png)."""
    from engine.entrypoints.launch import engine_server

    page.set_viewport_size({"width": DESKTOP, "height": 2400})
    with engine_server("bundled", OUT.parent.parent / "test-artifacts" / "screenshot-engine-serve.log") as url:
        goto(page, f"http://127.0.0.1:{port}/remote")
        box = page.get_by_label("Base URL", exact=True)
        box.wait_for(timeout=120_000)
        box.fill(url)
        click_and_wait(page, page.get_by_role("button", name="Connect"))
        page.get_by_text("Connected to").first.wait_for(timeout=60_000)
        click_and_wait(page, page.get_by_role("button", name="Send"), 300_000)
        page.get_by_text("When each chunk arrived").first.wait_for(timeout=300_000)
        shots.page(page, "remote")
        if not shots.extras:
            return
        open_tab(page, "Load")
        panel = page.locator(TAB_PANEL)
        panel.locator('label:has-text("concurrent: a fixed number in flight")').click()
        panel.get_by_label("Requests", exact=True).fill("8")
        panel.locator('[data-testid="stSelectbox"]:has-text("Prompts")').click()
        page.get_by_role("option", name="synthetic, exact length").click()
        panel.get_by_label("Prompt tokens", exact=True).fill("128")
        click_and_wait(page, panel.get_by_role("button", name="Run the load"), 600_000)
        page.get_by_text("requests finished").first.wait_for(timeout=600_000)
        shoot_tab(page, "Load", "remote-load.png", shots)
        open_tab(page, "Capacity at an SLO")
        panel = page.locator(TAB_PANEL)
        panel.get_by_label("most requests in flight", exact=True).fill("4")
        charts = panel.locator('[data-testid="stPlotlyChart"]')
        click_and_wait(page, panel.get_by_role("button", name="Find the capacity"), 900_000)
        for _ in range(900):  # its two charts come after the search
            if charts.count() >= 2:
                break
            page.wait_for_timeout(1000)
        wait_idle(page, 900_000)
        shoot_tab(page, "Capacity at an SLO", "remote-capacity.png", shots)
        panel.locator('label:has-text("request rate")').click()
        panel.get_by_label("highest rate (requests/s)", exact=True).wait_for(timeout=60_000)
        wait_idle(page, 60_000)
        page.screenshot(path=str(OUT.parent.parent / "test-artifacts" / "remote-capacity-rate.png"), full_page=True)


def precision_run(page, port: int) -> None:
    """The precision lab's default configurations measured, as a first visit runs them."""
    goto(page, f"http://127.0.0.1:{port}/precision")
    page.get_by_role("button", name="Measure").wait_for(timeout=240_000)
    click_and_wait(page, page.get_by_role("button", name="Measure"), 900_000)
    wait_text(page, "Measured 5 configurations")


def precision(page, port: int, shots: ShotTaker) -> None:
    """The precision lab on the bundled model at its defaults (float32, bfloat16, int8 + bfloat16, w8a8 and
    an int8 KV cache; 512 text tokens) and the GGUF's own Q4_1 blocks, the context set to 4,096 at batch 8."""
    page.set_viewport_size({"width": DESKTOP, "height": 4200})  # all of it: a table below the fold is not painted
    goto(page, f"http://127.0.0.1:{port}/precision")
    page.get_by_role("button", name="Measure").wait_for(timeout=240_000)
    weights = page.locator('[data-testid="stMultiSelect"]').first.locator("input")
    weights.click()
    weights.fill("gguf")  # the list filters to the one option; Enter takes it
    page.keyboard.press("Enter")
    page.keyboard.press("Escape")
    click_and_wait(page, page.get_by_role("button", name="Measure"), 900_000)
    wait_text(page, "Measured 6 configurations")
    batch = page.get_by_label("Batch", exact=True)
    batch.fill("8")
    click_and_wait(page, page.get_by_text("Speed and memory").first)  # blur: the number is sent
    page.locator(".js-plotly-plot .main-svg").first.wait_for(timeout=20_000)
    shots.page(page, "precision")


def source(page, port: int, shots: ShotTaker) -> None:
    """The page about the source document: nothing to run, it is all text (the gallery's shots switch
    its language)."""
    page.set_viewport_size({"width": DESKTOP, "height": 2400})
    goto(page, f"http://127.0.0.1:{port}/source")
    page.locator("h1").first.wait_for(timeout=120_000)
    wait_idle(page, 120_000)
    shots.page(page, "source")


# Each page's runs, in order: the first is its default run, after which the gallery's shots are taken;
# the playground's run on the app's first page. A run taking only other shots is in EXTRA_RUNS.
RUNS = {
    "playground": (main_run, worked_example, sharing),
    "memory": (memory,),
    "complexity": (complexity,),
    "serving": (serving,),
    "compare": (compare,),
    "roofline": (roofline,),
    "sweeps": (sweeps,),
    "claims": (claims,),
    "remote": (remote, remote_pools),
    "precision": (precision,),
    "speculative": (speculative,),
    "disaggregation": (disaggregation,),
    "source": (source,),
}
EXTRA_RUNS = (worked_example, sharing, remote_pools)
