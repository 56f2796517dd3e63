"""The remote-server page in Chromium against a real `python -m engine serve` (a tiny model): connect,
run a concurrency-4 load, and see the percentiles, the per-request timeline and the server's gauges;
save the run's trace and report as Chromium downloads them, and open the trace again on the page, then
a GuideLLM report; a capacity search read as its sentence and attainment chart; no exception box.
Screenshots land in test-artifacts/."""

from __future__ import annotations

import re
from pathlib import Path

from scripts.app_browser import (
    ARTIFACTS,
    act_and_wait,
    click_and_wait,
    exception_boxes,
    open_tab,
    wait_idle,
)
from tests.browser_utils import page_at
from tests.fault_server import fault_server

GUIDELLM_REPORT = Path(__file__).parent / "data" / "guidellm-0.8-concurrent.json"


def test_connect_and_run_a_concurrent_load(chromium, tiny_app_server, tiny_server):
    engine_url, _ = tiny_server
    ready = lambda p: p.get_by_label("Base URL", exact=True)  # noqa: E731
    with page_at(chromium, tiny_app_server, "remote", ready, height=2200) as page:
        ready(page).fill(engine_url)
        click_and_wait(page, page.get_by_role("button", name="Connect"))
        page.get_by_text("Connected to").first.wait_for(timeout=60_000)
        assert page.get_by_text("1 model. Server metrics: vllm").count() == 1
        open_tab(page, "Load")
        panel = page.locator('[data-testid="stTabPanel"]:visible')  # other tabs have fields of the same names
        panel.locator('label:has-text("concurrent: a fixed number in flight")').click()
        wait_idle(page)  # the mode redraws the form: Concurrency is greyed out until then
        panel.get_by_label("Requests", exact=True).fill("8")
        panel.get_by_label("Concurrency", exact=True).fill("4")
        panel.get_by_label("tokens per reply", exact=True).fill("12")
        click_and_wait(page, panel.get_by_role("button", name="Run the load"), 300_000)
        page.get_by_text("8 of 8 requests finished").first.wait_for(timeout=300_000)
        wait_idle(page)
        for title in (
            "Each request: waiting for its first chunk, then streaming",
            "The server's own view during the load",
        ):
            panel.get_by_text(title).first.wait_for(timeout=30_000)  # a busy machine draws the charts later
            assert panel.get_by_text(title).count() == 1
        assert panel.locator('[data-testid="stDataFrame"]').count() == 2  # the percentiles and the SLO verdict
        assert panel.get_by_text("Goodput: did the load meet an SLO?").count() == 1
        assert exception_boxes(page) == 0
        page.screenshot(path=str(ARTIFACTS / "remote_load.png"), full_page=True)
        saved = {}
        for name in ("Download trace (JSON)", "Download report (HTML)"):  # built when clicked, saved by Chromium
            with page.expect_download(timeout=60_000) as download:
                panel.get_by_role("button", name=name).click()
            saved[name] = ARTIFACTS / download.value.suggested_filename
            download.value.save_as(saved[name])
        html = saved["Download report (HTML)"].read_text(encoding="utf-8")
        assert "8 of 8 requests finished" in html and html.count("Plotly.newPlot") == 2
        page.get_by_text("Open a saved remote run").click()
        uploader = page.locator('.st-key-rm_upload input[type="file"]')
        act_and_wait(page, lambda: uploader.set_input_files(str(saved["Download trace (JSON)"])), 60_000)
        name = saved["Download trace (JSON)"].name  # named by what it holds and when
        assert name.startswith("remote-trace_") and name.endswith(".json"), name
        page.get_by_text(f"Showing {name}").wait_for(timeout=30_000)
        opened = page.locator('[data-testid="stExpander"]').filter(has_text=f"Showing {name}")
        assert opened.locator('[data-testid="stDataFrame"]').count() == 2
        assert opened.locator(".js-plotly-plot").count() == 2 and exception_boxes(page) == 0
        opened.screenshot(path=str(ARTIFACTS / "remote_opened.png"))

        act_and_wait(page, lambda: uploader.set_input_files(str(GUIDELLM_REPORT)), 60_000)
        page.get_by_text("a report of GuideLLM 0.8.0, 1 load, server").wait_for(timeout=30_000)
        report = page.locator('[data-testid="stExpander"]').filter(has_text="a report of GuideLLM")
        tables = report.locator('[data-testid="stDataFrame"]')
        assert tables.count() == 3  # ours, GuideLLM's own figures, the SLO verdict
        assert report.get_by_text("GuideLLM 0.8.0's own figures").count() == 1
        assert report.get_by_text("No ITL of ours").count() == 1
        assert report.locator(".js-plotly-plot").count() == 1 and exception_boxes(page) == 0
        report.screenshot(path=str(ARTIFACTS / "remote_guidellm.png"))


def test_an_empty_reply_and_failed_requests_are_said(chromium, tiny_app_server):
    """Against a server that answers with 0 tokens, one prompt says so; against one that cuts a running
    stream for a newer request, a load's summary is not green and lists the reasons with their cause."""
    ready = lambda p: p.get_by_label("Base URL", exact=True)  # noqa: E731
    with fault_server() as base, page_at(chromium, tiny_app_server, "remote", ready, height=1800) as page:
        ready(page).fill(f"{base}/empty")
        click_and_wait(page, page.get_by_role("button", name="Connect"))
        page.get_by_text("Connected to").first.wait_for(timeout=60_000)
        click_and_wait(page, page.get_by_role("button", name="Send"), 60_000)
        page.get_by_text("The server answered with 0 tokens (finish reason: stop)").wait_for(timeout=30_000)

        ready(page).fill(f"{base}/interrupt")
        click_and_wait(page, page.get_by_role("button", name="Connect"))
        page.get_by_text("/interrupt/v1").first.wait_for(timeout=60_000)
        open_tab(page, "Load")
        panel = page.locator('[data-testid="stTabPanel"]:visible')
        panel.locator('label:has-text("concurrent: a fixed number in flight")').click()
        wait_idle(page)  # the mode redraws the form: Concurrency is greyed out until then
        panel.get_by_label("Requests", exact=True).fill("4")
        panel.get_by_label("Concurrency", exact=True).fill("4")
        click_and_wait(page, panel.get_by_role("button", name="Run the load"), 120_000)
        panel.get_by_text("of 4 requests failed:").wait_for(timeout=60_000)
        alerts = panel.locator('[data-testid="stAlert"]')
        finished = alerts.filter(has_text="requests finished")
        assert finished.count() == 1 and finished.locator('[data-testid="stAlertContentSuccess"]').count() == 0
        assert alerts.filter(has_text="× The stream").filter(has_text="interrupt_requests false").count() == 1
        assert exception_boxes(page) == 0
        panel.locator('[data-testid="stAlert"]').first.scroll_into_view_if_needed()
        page.screenshot(path=str(ARTIFACTS / "remote_failures.png"), full_page=True)


def test_a_capacity_search_reads_as_a_sentence_with_its_attainment_chart(chromium, tiny_app_server, tiny_server):
    """The capacity tab on a served engine: a short search with its progress, the one-sentence answer,
    and the attainment chart with the target line."""
    engine_url, _ = tiny_server
    ready = lambda p: p.get_by_label("Base URL", exact=True)  # noqa: E731
    with page_at(chromium, tiny_app_server, "remote", ready, height=2200) as page:
        ready(page).fill(engine_url)
        click_and_wait(page, page.get_by_role("button", name="Connect"))
        page.get_by_text("Connected to").first.wait_for(timeout=60_000)
        open_tab(page, "Capacity at an SLO")
        panel = page.locator('[data-testid="stTabPanel"]:visible')
        panel.get_by_label("time budget (s)", exact=True).fill("20")
        panel.get_by_label("most requests in flight", exact=True).fill("3")
        panel.get_by_label("tokens per reply", exact=True).fill("8")
        click_and_wait(page, panel.get_by_role("button", name="Find the capacity"), 120_000)
        panel.get_by_text("Search finished in").wait_for(timeout=120_000)
        wait_idle(page)
        answer = panel.locator('[data-testid="stAlert"]').filter(has_text="TTFT ≤ 1000 ms and TPOT ≤ 200 ms")
        assert answer.count() == 1
        assert re.search(r"Holds a concurrency of (at least )?\d|Not even one request", answer.inner_text())
        charts = panel.locator(".js-plotly-plot")
        charts.first.wait_for(timeout=20_000)
        assert panel.locator(".gtitle").filter(has_text="SLO attainment against load").count() == 1
        assert panel.locator(".legendtext").filter(has_text="target").count() >= 1
        assert exception_boxes(page) == 0
        page.screenshot(path=str(ARTIFACTS / "remote_capacity.png"), full_page=True)
