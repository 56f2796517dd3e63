"""A remote run saved and opened again (lab/remote_trace.py) and its HTML report: a real load on our
own server (a tiny model) with the server's metrics read beside it round-trips to the same numbers
and charts; the API key and any credentials in the URL never reach a file; a bad file is refused
with the field it got wrong."""

from __future__ import annotations

import asyncio
import json
import re

import pytest

from app_pages.remote.figures import gantt_figure, server_figure, sweep_figure
from app_pages.remote.report import report_html
from lab.remote_client import Endpoint, RemoteRequest, stream_one
from lab.remote_load import LoadPlan, LoadRun, run_load
from lab.remote_metrics import MetricsWatch, watch
from lab.remote_trace import Saved, dump_saved, load_saved, public_url, saved_to_dict, single_run

SECRET = "sk-do-not-save-me"
REQS = [RemoteRequest(p, max_tokens=5, chat=False, ignore_eos=True) for p in ("Hello <script>x</script>", "Sky")]


@pytest.fixture(scope="module")
def served(tiny_server):
    return tiny_server


async def _watched(endpoint: Endpoint, model: str, plan: LoadPlan) -> tuple[LoadRun, MetricsWatch]:
    done = asyncio.Event()
    watcher = asyncio.create_task(watch(endpoint, done, interval_s=0.1))
    run = await run_load(endpoint, model, plan)
    done.set()
    return run, await watcher


@pytest.fixture(scope="module")
def sweep_saved(served) -> Saved:
    base, model = served
    endpoint = Endpoint(base, api_key=SECRET, timeout_s=30)
    runs = [
        asyncio.run(_watched(endpoint, model, LoadPlan("constant", REQS, max_requests=4, rate=rate)))
        for rate in (4.0, 16.0)
    ]
    return Saved(base.replace("http://", f"http://user:{SECRET}@"), model, "vllm", runs)


def test_a_real_sweep_round_trips_to_the_same_numbers_and_charts(sweep_saved):
    text = dump_saved(sweep_saved)
    back = load_saved(text)
    assert back.model == sweep_saved.model and back.kind == "vllm" and len(back.runs) == 2
    for (run, seen), (run2, seen2) in zip(sweep_saved.runs, back.runs):
        a, b = run.summary(), run2.summary()
        assert (a["requests"], a["finished"]) == (b["requests"], b["finished"]) == (4, 4)
        for key in ("ttft_ms", "tpot_ms", "itl_ms", "e2e_ms"):
            assert b[key] == pytest.approx(a[key], abs=1e-3)
        assert b["requests_per_s"] == pytest.approx(a["requests_per_s"], rel=1e-4)
        assert [r.text for r in run2.results] == [r.text for r in run.results]
        assert [r.response_id for r in run2.results] == [r.response_id for r in run.results]
        assert len(seen2.snapshots) == len(seen.snapshots) >= 2
        for which in ("running", "waiting", "kv_usage"):
            (t1, v1), (t2, v2) = zip(*seen.series(which)), zip(*seen2.series(which))
            assert v2 == v1 and t2 == pytest.approx([t - run.start for t in t1], abs=1e-5)
        before, after = seen.over_run("ttft"), seen2.over_run("ttft")
        assert after.count == before.count == 4 and after.quantile(0.5) == pytest.approx(before.quantile(0.5))
        for i in (0, 1):  # waiting and streaming bars: same starts and lengths, from the file's clock
            old, new = gantt_figure(run, "en").data[i], gantt_figure(run2, "en").data[i]
            assert new.base == pytest.approx(old.base, abs=1e-5) and new.x == pytest.approx(old.x, abs=1e-5)
        old, new = server_figure(seen, run.start, "en").data[0], server_figure(seen2, run2.start, "en").data[0]
        assert new.x == pytest.approx(old.x, abs=1e-5) and new.y == old.y
    old = sweep_figure([r for r, _ in sweep_saved.runs], "en").data[1]
    assert sweep_figure([r for r, _ in back.runs], "en").data[1].y == pytest.approx(old.y, rel=1e-4)


def test_no_key_and_no_credentials_reach_the_file_or_the_report(sweep_saved):
    text = dump_saved(sweep_saved)
    html = report_html(load_saved(text))
    for out in (text, html):
        assert SECRET not in out and "user:" not in out
    assert json.loads(text)["server"]["base_url"].startswith("http://127.0.0.1:")
    assert public_url("https://a:b@host.example:8443/v1?x=1#f") == "https://host.example:8443/v1"


def test_the_report_draws_the_sweep_and_the_last_run(sweep_saved):
    html = report_html(sweep_saved)
    assert html.count("Plotly.newPlot") == 3 and html.count("plotly.js v") == 1  # sweep, gantt, gauges; js once
    for text in (
        "Sweep: what the server delivers",
        "offered (req/s)",
        "TTFT P50",
        "4 of 4 requests finished",
        "own TTFT over this load",
        "API key is not in this file",
    ):
        assert text in html, text
    assert "<script>x</script>" not in html  # a prompt never becomes markup (and replies are escaped)
    zh = report_html(sweep_saved, "zh")
    assert 'lang="zh-Hans"' in zh and "远程服务器运行记录" in zh


def test_the_report_draws_each_pools_gauges_after_the_servers(sweep_saved):
    run, seen = sweep_saved.runs[-1]
    beside = MetricsWatch(seen.snapshots, pools={"worker": seen})
    html = report_html(Saved(sweep_saved.base_url, sweep_saved.model, "vllm", [(run, beside)]))
    assert re.findall(r'data-figure="(\w+)"', html) == ["gantt", "server", "pools"]
    assert "Each pool's gauges over the load" in html


def test_one_prompt_saves_as_a_run_of_one(served):
    base, model = served
    endpoint = Endpoint(base, timeout_s=30)
    result = asyncio.run(stream_one(endpoint, model, RemoteRequest("Tell me", max_tokens=6, ignore_eos=True)))
    saved = Saved(base, model, None, [(single_run(result), MetricsWatch(note="none here"))])
    back = load_saved(dump_saved(saved))
    ((run, seen),) = back.runs
    assert run.results[0].text == result.text and run.results[0].metrics.ttft_ms == pytest.approx(
        result.metrics.ttft_ms, abs=1e-3
    )
    assert seen.note == "none here" and not seen.snapshots
    html = report_html(back)
    assert "The reply" in html and "When each chunk arrived" in html and "No server metrics: none here" in html


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda d: d.update(format="pdlab-playground-trace"), 'expected a file with "format": "pdlab-remote-trace"'),
        (lambda d: d.update(runs=[]), "holds no run"),
        (lambda d: d["runs"][0]["results"][0].update(request=7), "runs[0].results[0].request should be"),
        (lambda d: d["runs"][0]["results"][0]["chunk_texts"].append("x"), "one text per chunk time"),
        (lambda d: d["runs"][0]["results"][0].update(chunk_times=[3.0, 2.0], chunk_texts=["a", "b"]), "not in order"),
        (lambda d: d["runs"][0]["results"][0].update(chunk_times=[-5.0], chunk_texts=["a"]), "before its request"),
        (lambda d: d["runs"][0]["plan"].update(mode="tsunami"), "runs[0].plan.mode should be one of"),
        (lambda d: d["runs"][0]["plan"].update(concurrency=0), "runs[0].plan.concurrency should be"),
        (
            lambda d: d["runs"][0]["server_metrics"]["snapshots"][0]["histograms"].update(
                h={"buckets": [[1]], "count": 1, "total": 1}
            ),
            "should be [upper bound, count]",
        ),
        (lambda d: d["server"].update(kind="mystery"), "server.kind should be one of"),
    ],
)
def test_a_bad_file_names_what_is_wrong(sweep_saved, change, message):
    doc = saved_to_dict(sweep_saved)
    change(doc)
    with pytest.raises(ValueError, match=message.replace("[", r"\[").replace("(", r"\(")):
        load_saved(json.dumps(doc))


def test_nan_and_non_json_are_refused_with_a_sentence():
    with pytest.raises(ValueError, match="not a number a trace can hold"):
        load_saved('{"format": "pdlab-remote-trace", "version": 1, "x": NaN}')
    with pytest.raises(ValueError, match="not JSON"):
        load_saved(b"<html>")
