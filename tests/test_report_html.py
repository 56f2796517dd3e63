"""The standalone HTML report: self-contained (plotly.js inline once, nothing fetched), the run's
figures from the page's own builders, a replay with every frame, and user text that stays text."""

from __future__ import annotations

import copy
import json
import re

import pytest

from app_pages.playground.report import report_html
from app_pages.playground.report_figures import run_figures
from app_pages.playground.report_replay import replay_data
from lab.busy import MachineLoad
from tests.ui_support import run_to_end

XSS = ["<script>alert(1)</script>", "<img src=x onerror=alert(1)>", "</script><!-- & \u2028"]


@pytest.fixture(scope="module")
def eager_run(tiny):
    return run_to_end(tiny, prompt=XSS[0] + " and " + XSS[1], max_new_tokens=5, attention="eager")


@pytest.fixture(scope="module")
def report(eager_run) -> str:
    return report_html(eager_run, "en")


def scripts(html: str) -> list[str]:
    return re.findall(r"<script\b[^>]*>", html)


def test_self_contained_plotly_inline_once_and_no_external_references(report, eager_run):
    assert not re.search(r"<(script|link|img|iframe)\b[^>]*\b(src|href)=", report), "nothing is fetched"
    assert report.count("plotly.js v") == 1  # the library's banner: embedded once
    figures = re.findall(r'data-figure="(\w+)"', report)
    assert figures == list(run_figures(eager_run, "en"))
    assert report.count("Plotly.newPlot(") == len(figures)


def test_figures_are_the_page_builders_json(report, eager_run):
    fig = run_figures(eager_run, "en")["kv_tokens"]
    prefill = next(d for d in fig.to_plotly_json()["data"] if d["name"] == "prefill")
    assert prefill["y"] == [eager_run.num_prompt_tokens]
    assert "KV cache per step: tokens and blocks" in report


def test_user_text_stays_text(report, eager_run):
    # Outside plotly.js itself, the only scripts are the replay's data and code, and the figures'.
    figures = report.count("Plotly.newPlot(")
    assert len(scripts(report)) == 2 + 2 + figures  # plotly's config + library, replay data + code, one per figure
    for bad in XSS[:2]:
        assert bad not in report
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in report  # the prompt in the settings table
    data = re.search(r'<script type="application/json" id="pd-replay-data">(.*?)</script>', report, re.S)[1]
    assert "<" not in data and ">" not in data  # escaped as \u003c, so no tag can close the element
    labels = "".join(p["l"] for p in json.loads(data)["prompt"])
    assert "<script>alert(1)</script>" in labels  # and the JSON still holds the literal text


def test_escaping_covers_every_field(tiny):
    run = run_to_end(tiny, prompt="x", max_new_tokens=2)
    run.settings.prompt = XSS[2]
    run.prompt[0] = type(run.prompt[0])(run.prompt[0].token_id, XSS[2])
    html = report_html(run, "zh")
    assert XSS[2] not in html and "&lt;/script&gt;&lt;!--" in html
    assert len(scripts(html)) == 4 + html.count("Plotly.newPlot(")


def test_replay_frames_step_through_the_run(eager_run):
    data = replay_data(eager_run, "en")
    assert data["frames"] == [-1] + [s.step for s in eager_run.steps]
    assert len(data["captions"]) == len(data["frames"]) and "prefill" in data["captions"][1]
    assert len(data["prompt"]) == eager_run.num_prompt_tokens and len(data["out"]) == len(eager_run.tokens)
    assert [o["s"] for o in data["out"]] == [t.step for t in eager_run.tokens]
    assert data["out"][0]["p"] == "prefill" and {o["p"] for o in data["out"][1:]} == {"decode"}


def test_report_in_chinese(eager_run):
    html = report_html(eager_run, "zh")
    assert '<html lang="zh-Hans">' in html and "运行报告" in html and "Token 回放" in html


def test_the_report_says_how_busy_the_machine_was(eager_run):
    """A busy run's report carries the machine's other work beside each timing and under the timed
    charts' titles, as the page does, never as a verdict on the run; a quiet one adds nothing; a run
    whose load was never recorded says so rather than reading as clean."""
    run = copy.copy(eager_run)
    run.load = MachineLoad(1.5, 2, 3.0)
    busy = report_html(run, "en")
    assert (
        busy.count('<div class="rp-label rp-busy">⚠ 1.5/2 cores busy with other work</div>') == 5
    )  # the 5 timed numbers
    assert "Unreliable" not in busy and 'class="rp-banner rp-warn"' not in busy
    assert busy.count("2 cores busy with other work") >= 7  # and the latency and time-share charts' subtitles
    run.load = MachineLoad(0.1, 2, 3.0)
    quiet = report_html(run, "en")
    assert "other work" not in quiet and 'class="rp-banner rp-warn"' not in quiet
    run.load = None
    assert "does not say how busy the machine was" in report_html(run, "en")


def test_a_speculative_runs_replay_keeps_its_draft_colours(tiny):
    from ui.chips import speculative_marks

    prompt = "one two three four one two three four one two three four one two"
    run = run_to_end(tiny, prompt=prompt, max_new_tokens=16, speculative_k=4, probe_memory=False)
    marks = speculative_marks(run)
    assert marks  # the repeating prompt drafts
    data = replay_data(run, "en")
    kinds = [o.get("k") for o in data["out"]]
    assert kinds == [
        None if m is None else "pd-" + m[0].replace("_", "-") for m in (marks.get(t.index) for t in run.tokens)
    ]
    rejected = sum(len(o.get("r", [])) for o in data["out"])
    assert rejected == sum(len(v) for v in run.rejected.values())
