"""The sweeps page under streamlit.testing's AppTest, on a tiny random model."""

from __future__ import annotations

import re

import pytest

from app_pages import page_file
from tests.app_helpers import errors, run_sweep
from tests.figure_checks import charts

PAGE = page_file("sweeps")


def test_sweep_runs_and_shows_verdicts_and_charts(app, monkeypatch):
    import app_pages.sweeps.run as page_run

    drawn = []  # round 1's requests on screen as they are measured, before the round's charts
    draw = page_run.draw_first_round
    monkeypatch.setattr(
        page_run, "draw_first_round", lambda slot, pts, lang: drawn.append(len(pts)) or draw(slot, pts, lang)
    )
    assert any("Not run yet" in i.value for i in app.info)
    at = run_sweep(app)
    assert drawn and drawn[0] == 1
    assert not at.exception and not errors(at)
    result = at.session_state["sw_result"]
    assert result.complete and len(result.prompt_points) == 4 and len(result.output_points) == 4
    assert any(s.value.startswith("Done: 8 requests") for s in at.success)
    table = next(d.value for d in at.table if "verdict" in d.value.columns)
    assert list(table["claim"]) == ["C4", "C8", "C9", "C18"]
    assert list(table["verdict"]) == ["≟ not separable here"] * 4  # two rounds: too few to judge by
    assert all(re.search(r"n = 2", m) for m in table["measured"])  # the interval behind each, and its n
    assert "TTFT(longest L) ÷ TTFT(shortest) ≥ 1.5" in table["rule"][3]
    assert any(c.value.startswith("Timed arms run interleaved") for c in at.caption)  # the method, once
    specs = charts(at)
    ttft = specs["TTFT and prefill step time against prompt length"]
    assert ttft["layout"]["xaxis"]["type"] == "log"
    median = next(d for d in ttft["data"] if d["name"] == "TTFT (median)")
    assert median["x"] == [8, 32]
    assert median["y"] == pytest.approx([result.by_prompt("ttft_ms")[L].median for L in (8, 32)])
    band = next(d for d in ttft["data"] if d["name"].endswith("min–max over rounds"))
    assert band["fill"] == "toself" and len(band["x"]) == 4
    share = specs["Decode share of the request's time against output length"]
    assert share["data"][1]["y"] == pytest.approx([100 * result.by_output("decode_share")[N].median for N in (2, 6)])
    assert {"TPOT against prompt length", "TPOT and decode step time against output length"} <= set(specs)
    status = at.get("status")
    assert not status or status[0].proto.state != 3  # never left in an error state


@pytest.mark.parametrize(
    "Ls, Ns, expected",
    [
        ("8, abc", "2, 6", "is not a list of whole numbers"),
        ("8", "2, 6", "at least two different lengths"),
        ("8, 600", "2, 6", "this model holds 512"),
    ],
)
def test_bad_input(app, Ls, Ns, expected):
    at = run_sweep(app, Ls, Ns, 1)
    assert not at.exception and any(expected in e for e in errors(at)), errors(at)
    assert "sw_result" not in at.session_state
    at = run_sweep(at, "8, 16", "2, 3", 1)
    assert not errors(at) and at.session_state["sw_result"].complete


def test_stopped_sweep_keeps_its_points(app):
    from lab.sweeps import SweepResult, SweepSettings

    done = run_sweep(app, repeats=1).session_state["sw_result"]
    partial = SweepResult(done.model, done.settings, done.prompt_points[:1], [], complete=False)
    app.session_state["sw_result"] = partial
    at = app.run()
    assert not at.exception and any("Stopped" in w.value for w in at.warning)
    assert any("stopped before its first round" in i.value for i in at.info)
    assert "TTFT and prefill step time against prompt length" in charts(at)
    assert SweepSettings().num_runs == 55 and SweepSettings().repeats == 5  # five rounds: a judged interval


def test_language_and_page_visits(app):
    at = run_sweep(app, repeats=1)
    at.text_input(key="sw_Ls").set_value("8, 16, 32")
    at = at.sidebar.radio(key="lang").set_value("zh").run()
    assert not at.exception and at.title[0].value == "扫描实验：实测 TTFT、TPOT 与解码占比"
    table = next(d.value for d in at.table if "结论" in d.value.columns)
    assert all(v.split(" ", 1)[1] in ("成立", "大致成立", "不成立", "此处无法区分") for v in table["结论"])
    assert "TTFT 与预填充步耗时随提示长度的变化" in charts(at)
    at.switch_page(page_file("serving")).run()
    at.switch_page(PAGE).run()
    assert not at.exception and at.text_input(key="sw_Ls").value == "8, 16, 32"
    assert at.session_state["sw_result"].complete
