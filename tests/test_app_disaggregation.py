"""The disaggregation lab under streamlit.testing's AppTest, on a tiny random model: the transfer
calculator's arithmetic on screen, and a real run of the three set-ups (four server processes the
page starts, stopped by its own button at the end)."""

from __future__ import annotations

import pytest

from app_pages import page_file
from tests.app_helpers import errors, table_problems, table_with
from tests.figure_checks import charts

PAGE = page_file("disaggregation")


@pytest.fixture
def stopped_servers():
    """The page's servers outlive a script run (shared by every session): stop them after the test."""
    yield
    from app_pages.disaggregation.servers import setup_servers

    setup_servers().stop()


def test_the_calculator_shows_the_formulas_bytes_and_whether_the_transfer_hides(app):
    assert not errors(app)
    shown = {m.label: m.value for m in app.metric}
    assert shown["KV to hand over"] == "512.0 MiB"  # Llama-3-8B, 4,096 tokens in bf16: 128 KiB a token
    table = table_with(app, "link")
    assert len(table) == 6 and set(table["hides behind the prefill"]) >= {"yes"}
    assert table.set_index("link").loc["25 GbE", "hides behind the prefill"].startswith("no: adds")
    assert "Hand-off time on each link against the prefill" in charts(app)
    at = app.selectbox(key="dg_calc_model").set_value("DeepSeek-V3 (MLA)").run()
    assert any("mixture of experts" in i.value for i in at.info)
    assert "hides behind the prefill" not in table_with(at, "link").columns


def test_three_set_ups_run_and_the_pair_draws_its_hand_offs(app, stopped_servers):
    app.number_input(key="dg_chats").set_value(2)
    app.number_input(key="dg_chat_tokens").set_value(8)
    app.number_input(key="dg_long").set_value(64)
    app.number_input(key="dg_longs").set_value(1)
    app.number_input(key="dg_chunk").set_value(32)
    at = app.button(key="dg_run").click().run(timeout=600)
    assert not at.exception and not errors(at), errors(at)
    r = at.session_state["dg_result"]
    assert len(r.rounds.rounds) == 5 and r.calibration is not None  # the defaults: five rounds, a calibrated SLO
    assert r.slo.ttft_ms == round(4 * r.calibration.solo_ttft_ms) and r.slo.tpot_ms > 0
    assert any("SLO calibrated on this machine: TTFT ≤ 4 ×" in c.value for c in at.caption)
    assert set(r.runs) == {"whole", "chunked", "pd"}
    for sr in r.runs.values():
        assert [x.error for x in sr.run.results] == [None] * 3 and sr.run.results[0].num_output_tokens == 8
    pd_run = r.runs["pd"]
    assert len(pd_run.records) >= 3  # the router's record of each request
    counted = table_with(at, "chats' steps it takes")  # the work, counted before anything was timed
    assert list(counted["chats' steps it takes"]) == [1, 2, 0]  # 64 tokens: whole, in chunks of 32, elsewhere
    handed = r.summaries()[0]["pd"].handoff_bytes
    kv = r.work["pd"].handoff_bytes  # the KV counted; the hand-off sent it in one body with its framing
    assert 0 < kv <= handed < kv + 4096
    summary = table_with(at, "hand-off transfer, median (ms)")
    assert not table_problems(at)  # "hand-off transfer, median (ms)" whole in its help, not cut
    assert list(summary["set-up"]) == [
        "colocated, whole prompts",
        "colocated, chunked prefill",
        "1 prefill + 1 decode worker",
    ]
    assert [x == "—" for x in summary["hand-off transfer, median (ms)"]] == [True, True, False]  # never "None"
    # each set-up against the whole-prompt server, paired round by round: ratio [interval], n, verdict
    versus = table_with(at, "chats' longest gap ÷ whole's")
    assert list(versus["set-up"]) == ["colocated, chunked prefill", "1 prefill + 1 decode worker"]
    cells = [c for column in versus.columns[1:] for c in versus[column]]
    assert all(", n = 5" in c and c.endswith(("longer", "shorter", "more", "less", "not separable here")) or
               c.startswith("not measured") for c in cells), cells  # fmt: skip
    verdicts = table_with(at, "goodput (req/s)")["verdict"]
    assert not any("busy machine" in v for v in verdicts)  # a miss beside other work: not separable here
    said = " ".join(m.value for m in at.markdown)
    assert "served the most within" in said or "is separable from every other's here" in said
    drawn = charts(at)
    gantt = drawn["Each request on each worker: 1 prefill + 1 decode worker"]
    lanes = dict(zip(gantt["layout"]["yaxis"]["ticktext"], gantt["layout"]["yaxis"]["tickvals"]))
    assert "prefill worker · long prompt 1" in lanes and "decode worker · long prompt 1" in lanes
    drawn_on = {y for d in gantt["data"] for y in (d.get("y") or []) if y is not None}
    assert drawn_on == set(lanes.values())  # a bar on every lane
    assert len([a for a in gantt["layout"]["annotations"] if a.get("showarrow")]) == 3  # one hand-off each
    assert "Interference: the chats' gaps between tokens while long prompts prefill" in drawn
    assert "TTFT and TPOT of every request, per set-up" in drawn
    at = at.button(key="dg_stop").click().run()
    from app_pages.disaggregation.servers import setup_servers

    assert setup_servers().servers is None
