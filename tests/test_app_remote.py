"""The remote-server page under AppTest, against a real `python -m engine serve` on loopback (a tiny
model): it opens with nothing connected, refuses a dead address with one sentence, connects, streams
one prompt with its timings, runs a concurrent load with percentiles, a timeline and the server's
own metrics, and keeps serving after each."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from app_pages import page_file
from engine.entrypoints.launch import free_port
from lab.remote_trace import Saved, dump_saved
from tests.app_helpers import table_with
from tests.fault_server import fault_server
from tests.figure_checks import charts

PAGE = page_file("remote")


@pytest.fixture(scope="module")
def served(tiny_server):
    return tiny_server[0]


def submit(at: AppTest, label: str) -> AppTest:
    next(b for b in at.button if b.label == label).click()
    return at.run()


def connect(at: AppTest, url: str) -> AppTest:
    at.text_input(key="rm_url").set_value(url)
    at.number_input(key="rm_timeout").set_value(10)
    return submit(at, "Connect")


def test_nothing_connected_yet(app):
    assert any("Connect to a server first" in i.value for i in app.info)


def test_a_dead_address_is_one_sentence(app):
    at = connect(app, f"http://127.0.0.1:{free_port()}")
    assert not at.exception
    assert any("Cannot connect to" in e.value for e in at.error), [e.value for e in at.error]
    at = connect(at, "ftp://nowhere")
    assert any("must start with http" in e.value for e in at.error), [e.value for e in at.error]


def test_connect_stream_one_prompt_and_run_a_load(app, served, tiny_dirs):
    at = connect(app, served)
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert any("Server metrics: vllm" in c.value for c in at.caption)
    assert at.selectbox(key="rm_model").value == Path(tiny_dirs["llama"]).name

    at.text_area(key="rm_prompt").set_value("Hello there")
    at.number_input(key="rm_max_tokens").set_value(8)
    at.toggle(key="rm_chat").set_value(False)
    at = submit(at, "Send")
    assert not at.exception and not at.error, [e.value for e in at.error]
    shown = {m.label: m.value for m in at.metric}
    assert shown["TTFT"].endswith(" ms") and shown["output tokens"] in ("8", 8)
    assert at.session_state["rm_one_result"].text and "When each chunk arrived" in charts(at)
    assert any("The server's own clock" in c.value for c in at.caption), [c.value for c in at.caption]
    assert {b.proto.label for b in at.get("download_button")} == {"Download trace (JSON)", "Download report (HTML)"}

    at = at.radio(key="rm_mode").set_value("concurrent").run()
    at.number_input(key="rm_requests").set_value(6)
    at.number_input(key="rm_concurrency").set_value(3)
    at.number_input(key="rm_load_tokens").set_value(8)
    at = submit(at, "Run the load")
    assert not at.exception, [e.value for e in at.exception]
    assert any("6 of 6 requests finished" in s.value for s in at.success), [s.value for s in at.success]
    table = next(d.value for d in at.dataframe if "P50" in d.value.columns)
    assert list(table.iloc[:, 0]) == ["TTFT", "TPOT", "ITL", "E2E"]
    value = {col: table[col].str.removesuffix(" (max)").str.replace(",", "").astype(float) for col in ("P50", "P99")}
    assert (value["P99"] >= value["P50"]).all()
    assert list(table["n"])[0] == 6 and table["P99"].str.endswith("(max)").all()  # 6 requests: P99 is their max
    assert table["mean"].str.fullmatch(r"[\d,]+\.\d").all(), list(table["mean"])  # one decimal, as the others
    titles = list(charts(at))  # each checked for its title, axis titles and legend
    assert any("waiting for its first chunk" in x for x in titles)
    assert any("server's own view" in x for x in titles)
    assert any("The server's own TTFT over this load" in c.value for c in at.caption)
    assert len(at.get("download_button")) == 4  # the one prompt's two and the load's two

    # the load judged at an SLO: every request meets a loose one; a 1 ms TTFT none, and the server says why
    verdict = table_with(at, "goodput (req/s)")
    assert list(verdict["load"]) == ["3 in flight"] and list(verdict["met the SLO"]) == ["6 / 6"]
    assert list(verdict["verdict"]) == ["holds"] and list(verdict["why (the server's metrics)"]) == ["—"]
    at.number_input(key="rm_load_slo_ttft").set_value(1)
    at = at.run()
    verdict = table_with(at, "goodput (req/s)")
    assert list(verdict["met the SLO"]) == ["0 / 6"] and list(verdict["goodput (req/s)"]) == [0.0]
    assert list(verdict["broke first"]) == ["TTFT (6 missed)"]
    why = verdict["why (the server's metrics)"].iloc[0]
    assert why.startswith(("requests waited in the server's queue", "prefill itself took the time")), why


def test_a_box_the_mode_does_not_use_is_greyed_out(app, served):
    """One at a time (the default) keeps nothing in flight and sends at no rate: Concurrency and Rate
    are disabled, with the reason as their help; each mode leaves on exactly the boxes it reads."""
    at = connect(app, served)
    boxes = ("rm_concurrency", "rm_rate", "rm_requests", "rm_load_tokens")

    def enabled() -> set[str]:
        shown = {key: not at.number_input(key=key).disabled for key in boxes}
        shown["rm_rates"] = not at.text_input(key="rm_rates").disabled
        shown["rm_preset"] = not at.selectbox(key="rm_preset").disabled
        return {key for key, on in shown.items() if on}

    assert at.radio(key="rm_mode").value == "synchronous"
    assert enabled() == {"rm_requests", "rm_load_tokens"}
    assert "Not used in this mode (synchronous: one at a time)" in at.number_input(key="rm_concurrency").help
    expected = {
        "concurrent": {"rm_requests", "rm_load_tokens", "rm_concurrency"},
        "poisson": {"rm_requests", "rm_load_tokens", "rm_rate"},
        "sweep": {"rm_requests", "rm_load_tokens", "rm_rates"},
        "workload": {"rm_preset"},
    }
    for mode, on in expected.items():
        at = at.radio(key="rm_mode").set_value(mode).run()
        assert enabled() == on, mode


def test_a_sweep_and_a_workload(app, served):
    at = connect(app, served)
    at = at.radio(key="rm_mode").set_value("sweep").run()
    at.text_input(key="rm_rates").set_value("8, 2")
    at.number_input(key="rm_requests").set_value(3)
    at.number_input(key="rm_load_tokens").set_value(4)
    at = submit(at, "Run the load")
    assert not at.exception, [e.value for e in at.exception]
    table = next(d.value for d in at.dataframe if "offered (req/s)" in d.value.columns)
    assert list(table["offered (req/s)"]) == [2.0, 8.0] and list(table["finished"]) == ["3 / 3", "3 / 3"]
    assert "Throughput and TTFT against the offered rate" in charts(at)
    verdict = table_with(at, "goodput (req/s)")  # each rate of the sweep judged
    assert list(verdict["load"]) == ["2 req/s offered", "8 req/s offered"] and len(verdict["verdict"]) == 2
    prompts = [r.request.prompt for run, _ in at.session_state["rm_load_result"] for r in run.results]
    assert len(set(prompts)) == 6 and sorted(p.split(")")[0] for p in prompts) == [f"({i}" for i in range(1, 7)]
    assert not any("different prompts" in c.value for c in at.caption)  # unique starts: no prefix to reuse

    at = at.radio(key="rm_mode").set_value("synchronous").run()
    at.toggle(key="rm_unique").set_value(False)
    at.number_input(key="rm_requests").set_value(12)  # more than there are questions: they repeat
    at = submit(at, "Run the load")
    assert any("12 requests shared 8 different prompts" in c.value for c in at.caption), [c.value for c in at.caption]

    at = at.radio(key="rm_mode").set_value("sweep").run()
    at.text_input(key="rm_rates").set_value("fast, faster")
    at = submit(at, "Run the load")
    assert any("is not a list of" in e.value and "faster" in e.value for e in at.error)

    at = at.radio(key="rm_mode").set_value("workload").run()
    at.selectbox(key="rm_preset").set_value("shared-prefix")
    at = submit(at, "Run the load")
    assert not at.exception, [e.value for e in at.exception]
    assert any("8 of 8 requests finished" in s.value for s in at.success), [s.value for s in at.success]


def test_beside_our_engine(app, served):
    """The same requests in process (the sidebar's tiny model) and on the server (the same tiny model):
    one table of P50s with the server/ours ratio."""
    at = connect(app, served)
    at.number_input(key="rm_beside_requests").set_value(3)
    at.number_input(key="rm_beside_tokens").set_value(6)
    at = submit(at, "Run on both")
    assert not at.exception and not at.error, [e.value for e in at.error]
    table = next(d.value for d in at.dataframe if "server / ours" in d.value.columns)
    assert list(table.iloc[:, 0]) == ["TTFT P50 (ms)", "TPOT P50 (ms)", "E2E P50 (ms)", "output tokens/s"]
    assert (table["our engine (in process)"] > 0).all() and (table["server"] > 0).all()
    ratio = table["server"] / table["our engine (in process)"]  # of the rounded values shown: within rounding
    assert (abs(table["server / ours"] - ratio) < 0.02 * ratio + 0.01).all()


def test_beside_values_keep_three_figures_so_the_ratio_reads_from_them():
    from app_pages.remote.local_vs_server import three_figures

    assert [three_figures(x) for x in (0.97437, 3.8205, 38.21, 1234.56)] == [0.974, 3.82, 38.2, 1234.6]
    ours, server = 0.97437, 1.5012  # a tiny model's TPOT: one decimal showed 1.0 and 1.5 beside a ratio of 1.54
    assert abs(three_figures(server) / three_figures(ours) - server / ours) < 0.005


def test_what_other_servers_do_is_said(app):
    """A server that answers with no tokens, and one that cuts a running stream for a newer request
    (llama.cpp's server does both): one prompt says it got 0 tokens; a load's summary is not green
    and lists each reason with its count and the likely cause; "Beside our engine" shows them too."""
    with fault_server() as base:
        at = connect(app, f"{base}/empty")
        assert any("publishes no Prometheus metrics" in c.value for c in at.caption), [c.value for c in at.caption]
        at.text_area(key="rm_prompt").set_value("Hi")
        at = submit(at, "Send")
        assert not at.exception and not at.error, [e.value for e in at.error]
        assert any("answered with 0 tokens (finish reason: stop)" in i.value for i in at.info), [
            i.value for i in at.info
        ]

        at = connect(at, f"{base}/interrupt")
        at = at.radio(key="rm_mode").set_value("concurrent").run()
        at.number_input(key="rm_requests").set_value(4)
        at.number_input(key="rm_concurrency").set_value(4)
        at = submit(at, "Run the load")
        assert not at.exception, [e.value for e in at.exception]
        assert not any("requests finished" in s.value for s in at.success), "a load with failures shown green"
        said = " ".join(w.value for w in [*at.warning, *at.error]).replace("\\", "")
        assert "of 4 requests finished" in said and "of 4 requests failed:" in said and "× The stream" in said
        assert "interrupt_requests false" in said
        gantt = next(spec for title, spec in charts(at).items() if "waiting for its first chunk" in title)
        assert "failed (sent → error)" in [trace["name"] for trace in gantt["data"]]

        at.number_input(key="rm_beside_requests").set_value(3)
        at.number_input(key="rm_beside_tokens").set_value(6)
        at = submit(at, "Run on both")
        assert not at.exception, [e.value for e in at.exception]
        beside = " ".join(w.value for w in at.warning).replace("\\", "")
        assert beside.count("of 3 requests failed:") == 1 and "× The stream" in beside


def test_a_saved_run_opens_without_a_server(new_app, app, served, tiny_dirs):
    """A load saved as the page saves it, opened in a fresh session that never connected: the same
    table and charts; a bad file gets one sentence and the page keeps serving."""
    at = connect(app, served)
    at = at.radio(key="rm_mode").set_value("concurrent").run()
    at.number_input(key="rm_requests").set_value(4)
    at.number_input(key="rm_load_tokens").set_value(5)
    at = submit(at, "Run the load")
    run, seen = at.session_state["rm_load_result"][-1]
    saved = Saved(served, Path(tiny_dirs["llama"]).name, "vllm", [(run, seen)])
    table = next(d.value for d in at.dataframe if "P50" in d.value.columns)

    fresh = new_app(180)
    fresh.run()
    fresh.switch_page(page_file("remote")).run()
    fresh.file_uploader(key="rm_upload").set_value(("my load.json", dump_saved(saved).encode(), "application/json"))
    fresh.run()
    assert not fresh.exception and not fresh.error, [e.value for e in fresh.error]
    assert any("my load.json" in i.value.replace("\\", "") and "model llama" in i.value for i in fresh.info)
    shown = next(d.value for d in fresh.dataframe if "P50" in d.value.columns)
    assert shown.equals(table)
    assert "Each request: waiting for its first chunk, then streaming" in charts(fresh)
    assert list(table_with(fresh, "goodput (req/s)")["load"]) == ["4 in flight"]  # judged as the live run was
    assert not any("end-of-sequence" in w.value for w in fresh.warning)

    # a server that ends a reply at EOS although asked to ignore it (llama.cpp's does): said, not hidden
    run.results[0].finish_reason, run.results[0].usage_output_tokens = "stop", 2
    fresh.file_uploader(key="rm_upload").set_value(("early.json", dump_saved(saved).encode(), "application/json"))
    fresh.run()
    early = [w.value for w in fresh.warning if "end-of-sequence" in w.value]
    assert early and early[0].startswith("1 of 4 replies ended at the model's end-of-sequence before their 5 tokens")

    fresh.file_uploader(key="rm_upload").set_value(
        ("bad.json", b'{"format": "pdlab-remote-trace", "version": 1}', "application/json")
    )
    fresh.run()
    assert not fresh.exception
    shown = [e.value.replace("\\", "") for e in fresh.error]  # the page escapes Markdown in messages
    assert any("Could not open bad.json" in e and "server is missing" in e for e in shown), shown


def test_a_capacity_search_answers_in_one_sentence_with_its_charts(app, served):
    at = connect(app, served)
    at.number_input(key="rm_slo_ttft").set_value(600_000)  # every request meets it: the search runs to its maximum
    at.number_input(key="rm_slo_tpot").set_value(0)
    at.number_input(key="rm_cap_max_load").set_value(2)
    at.number_input(key="rm_cap_tokens").set_value(4)
    at = at.button(key="rm_cap_run").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    result = at.session_state["rm_cap_result"]
    assert sorted(result.points) == [1, 2] and result.good == 2 and result.stopped == "max load"
    said = [m.value for m in (*at.success, *at.warning)]
    assert any("Holds a concurrency of 2 with TTFT ≤ 600000 ms for 90 % of requests" in m for m in said), said
    table = table_with(at, "requests in flight")
    assert list(table["requests in flight"]) == [1, 2] and list(table["met the SLO"]) == ["10 / 10", "10 / 10"]
    titles = charts(at)
    assert "SLO attainment against load" in titles and "Goodput and throughput against load" in titles
    assert titles["SLO attainment against load"]["layout"]["xaxis"]["tickvals"] == [1, 2]  # no "1.5" in flight


def test_a_capacity_search_by_request_rate_says_its_rates(app, served):
    at = connect(app, served)
    at.number_input(key="rm_slo_ttft").set_value(600_000)
    at.number_input(key="rm_slo_tpot").set_value(0)
    at.radio(key="rm_cap_by").set_value("rate").run()
    at.number_input(key="rm_cap_rate_step").set_value(0.1)
    at.number_input(key="rm_cap_max_rate").set_value(64.0)
    at = at.button(key="rm_cap_run").click().run()  # 640 steps: refused, and the page goes on
    assert not at.exception and any("at most 256 are searched" in e.value for e in at.error)
    at.number_input(key="rm_cap_rate_step").set_value(2.0)
    at.number_input(key="rm_cap_max_rate").set_value(4.0)
    at.number_input(key="rm_cap_tokens").set_value(4)
    at = at.button(key="rm_cap_run").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    result = at.session_state["rm_cap_result"]
    assert result.scale.by == "rate" and sorted(result.points) == [1, 2] and result.stopped == "max load"
    said = [m.value for m in (*at.success, *at.warning)]
    assert any("Holds a rate of 4 requests/s with TTFT ≤ 600000 ms" in m for m in said), said
    table = table_with(at, "requests sent per second")
    assert list(table["requests sent per second"]) == [2, 4] and list(table["met the SLO"]) == ["12 / 12", "24 / 24"]
    attainment = charts(at)["SLO attainment against load"]["layout"]["xaxis"]
    assert attainment["tickvals"] == [2, 4] and attainment["title"]["text"].startswith("requests sent per second")


def test_a_load_of_synthetic_prompts_says_their_length_beside_the_servers_count(app, served):
    at = connect(app, served)
    at = at.radio(key="rm_mode").set_value("concurrent").run()
    at.number_input(key="rm_requests").set_value(4)
    at.number_input(key="rm_load_tokens").set_value(4)
    at.selectbox(key="rm_prompts").set_value("synthetic")
    at.number_input(key="rm_prompt_tokens").set_value(48)
    at = submit(at, "Run the load")
    assert not at.exception and not at.error, [e.value for e in at.error]
    run, _ = at.session_state["rm_load_result"][-1]
    assert {(r.request.prompt_tokens, r.request.chat, r.request.tokenizer) for r in run.results} == {
        (48, False, "SmolLM2-135M-Instruct")
    }
    said = [i.value for i in at.info]
    assert any("48 tokens each by SmolLM2-135M-Instruct's tokenizer; the server counted 48 too" in m for m in said), (
        said
    )

    at.text_input(key="rm_tokenizer").set_value("/no/such/tokenizer")
    at = submit(at, "Run the load")
    assert not at.exception and any("Cannot load a tokenizer" in e.value for e in at.error), [e.value for e in at.error]


def test_pools_are_read_beside_a_load_and_drawn_pool_by_pool(app, served):
    at = connect(app, served)
    at = at.radio(key="rm_mode").set_value("concurrent").run()
    at.number_input(key="rm_requests").set_value(3)
    at.number_input(key="rm_load_tokens").set_value(4)
    at.text_area(key="rm_pools").set_value("decode = http//nowhere")
    at = submit(at, "Run the load")
    assert any("Pools, line 1" in e.value for e in at.error), [e.value for e in at.error]  # refused, not run
    at.text_area(key="rm_pools").set_value(f"# a deployment's pools\nworker = {served}\nsecond = {served}")
    at = submit(at, "Run the load")
    assert not at.exception and not at.error, [e.value for e in at.error]
    _, seen = at.session_state["rm_load_result"][-1]
    assert set(seen.pools) == {"worker", "second"} and all(len(p.snapshots) >= 2 for p in seen.pools.values())
    pools = charts(at)["Each pool's gauges over the load"]
    assert [a["text"] for a in pools["layout"]["annotations"]] == ["worker", "second"]  # one row per pool
    assert any("**worker**: vllm names" in c.value for c in at.caption), [c.value for c in at.caption]


def test_a_strict_server_and_a_refusing_one_as_the_page_says_them(app):
    """`transformers serve` refuses vLLM's `ignore_eos` with 422: the load goes on without it and says
    so with the server's words; a server that refuses every request gets no SLO verdict, on the Load
    tab or in the capacity search, but "all N requests failed" with its status and words."""
    with fault_server() as base:
        at = connect(app, f"{base}/strict")
        at = at.radio(key="rm_mode").set_value("concurrent").run()
        at.number_input(key="rm_requests").set_value(4)
        at = submit(at, "Run the load")
        assert not at.exception and any("4 of 4 requests finished" in s.value for s in at.success)
        said = " ".join(w.value for w in at.warning).replace("\\", "")
        assert "The server refuses vLLM's extension `ignore_eos`" in said
        assert "422 Unexpected fields in the request: {'ignore_eos'}" in said

        at = connect(at, f"{base}/refuse")
        at = submit(at, "Run the load")
        failed = " ".join(e.value for e in at.error).replace("\\", "")
        assert "No SLO verdict: all 4 requests failed: 400 the model is still loading." in failed, failed
        with pytest.raises(LookupError):
            table_with(at, "goodput (req/s)")  # no verdict row over requests that all failed
        at.number_input(key="rm_cap_max_load").set_value(2)
        at = at.button(key="rm_cap_run").click().run()
        assert not at.exception
        failed = " ".join(e.value for e in at.error).replace("\\", "")
        assert "No SLO verdict: at a concurrency of 1, all 10 requests failed: 400 the model is still loading." in (
            failed
        ), failed
        assert not any("Not even" in m.value for m in (*at.warning, *at.success))
