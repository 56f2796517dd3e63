"""Reports of other load generators read into the remote page's views (lab/report_import.py): a real
GuideLLM 0.8.0 report (tests/data/, a concurrent load of 6 requests on `python -m engine serve`) and
a `vllm bench serve --save-result` file written here by hand in its documented shape.

Each request's own values survive the import unchanged, the tool's summary figures are shown as it
reported them, and the lab's rules (percentiles, SLO per request, goodput) apply to the imported
requests as to its own loads."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from engine.errors import LabError
from lab.report_import import read_report
from lab.slo import SLO, judge_load

GUIDELLM = Path(__file__).parent / "data" / "guidellm-0.8-concurrent.json"


def guidellm_doc() -> dict:
    return json.loads(GUIDELLM.read_text(encoding="utf-8"))


def test_a_guidellm_report_keeps_each_request_and_its_own_figures():
    doc = guidellm_doc()
    imported = read_report(GUIDELLM.read_bytes())
    assert imported.tool == "GuideLLM 0.8.0" and not imported.per_token_times and imported.send_times
    (run,) = imported.runs
    assert run.label == "concurrent, 2 streams" and run.run.plan.mode == "concurrent" and run.run.plan.concurrency == 2
    bench = doc["benchmarks"][0]
    theirs = bench["requests"]["successful"]
    metrics = [r.metrics for r in run.run.results]
    # request by request: GuideLLM's TTFT is ours, its per-request ITL is our TPOT
    assert sorted(m.ttft_ms for m in metrics) == sorted(r["time_to_first_token_ms"] for r in theirs)
    assert sorted(m.tpot_ms for m in metrics) == sorted(r["inter_token_latency_ms"] for r in theirs)
    assert [m.itl_ms for m in metrics] == [[]] * 6  # no per-chunk times in the report: no ITL of ours
    assert run.run.seconds == pytest.approx(bench["end_time"] - bench["start_time"])
    summary = run.run.summary()
    assert summary["finished"] == 6 and summary["itl_ms"]["n"] == 0
    assert summary["ttft_ms"]["mean"] == pytest.approx(bench["metrics"]["time_to_first_token_ms"]["successful"]["mean"])

    figures = {f.label: f for f in run.theirs}
    ttft = bench["metrics"]["time_to_first_token_ms"]["successful"]
    assert figures["TTFT (GuideLLM)"].ours == "ttft_ms" and figures["TTFT (GuideLLM)"].n == 6
    assert figures["TTFT (GuideLLM)"].stats == {
        "mean": ttft["mean"],
        **{p: ttft["percentiles"][p] for p in ("p50", "p90", "p99")},
    }
    assert figures["ITL (GuideLLM)"].ours == "tpot_ms" and figures["ITL (GuideLLM)"].n == 90  # per token
    assert figures["TPOT (GuideLLM)"].ours is None  # includes TTFT: none of ours
    latency = bench["metrics"]["request_latency"]["successful"]["percentiles"]["p50"]
    assert figures["request latency (GuideLLM)"].stats["p50"] == pytest.approx(latency * 1e3)
    # the two percentile rules differ on an even n; the page names the difference
    assert figures["TTFT (GuideLLM)"].stats["p50"] != pytest.approx(summary["ttft_ms"]["p50"])


def test_an_imported_load_is_judged_request_by_request():
    imported = read_report(GUIDELLM.read_bytes())
    run = imported.runs[0].run
    requests = guidellm_doc()["benchmarks"][0]["requests"]["successful"]
    slo = SLO(ttft_ms=1000, tpot_ms=170)
    meeting = sum(r["time_to_first_token_ms"] <= 1000 and r["inter_token_latency_ms"] <= 170 for r in requests)
    g = judge_load(slo, [r.metrics for r in run.timed], run.seconds, len(run.results))
    assert 0 < meeting < 6 and g.met == meeting and g.requests == 6


def test_errored_and_cancelled_guidellm_requests_are_failures_with_their_reason():
    doc = guidellm_doc()
    q = doc["benchmarks"][0]["requests"]
    q["errored"], q["incomplete"] = [q["successful"].pop()], [dict(q["successful"].pop(), request_end_time=None)]
    run = read_report(json.dumps(doc)).runs[0].run
    assert len(run.finished) == 4 and len(run.failed) == 2
    reasons = sorted(r.error for r in run.failed)
    assert reasons[0].startswith("errored") and reasons[1].startswith("incomplete")


def vllm_doc() -> dict:
    """Three requests: two streamed, one that failed; vLLM's times are seconds, its figures ms."""
    return {
        "backend": "openai-chat",
        "model_id": "SmolLM2-135M-Instruct",
        "max_concurrency": 2,
        "duration": 0.5,
        "completed": 2,
        "input_lens": [32, 64, 16],
        "output_lens": [3, 2, 0],
        "ttfts": [0.1, 0.2, 0.0],
        "itls": [[0.02, 0.03], [0.05], []],
        "errors": ["", "", "Read timed out"],
        "mean_ttft_ms": 150.0,
        "median_ttft_ms": 150.0,
        "p99_ttft_ms": 199.0,
        "mean_tpot_ms": 37.5,
        "median_tpot_ms": 37.5,
        "p99_tpot_ms": 49.75,
        "mean_itl_ms": 33.3,
        "median_itl_ms": 30.0,
        "p99_itl_ms": 49.6,
    }


def test_a_vllm_result_keeps_every_chunk_gap():
    text = json.dumps(vllm_doc())[:-1] + ', "request_rate": Infinity}'  # as Python's json writes inf
    imported = read_report(text)
    assert imported.tool == "vllm bench serve (openai-chat)" and imported.per_token_times and not imported.send_times
    (run,) = imported.runs
    assert run.label == "max concurrency 2" and run.run.plan.concurrency == 2
    done = [r.metrics for r in run.run.timed]
    assert [m.ttft_ms for m in done] == pytest.approx([100.0, 200.0])
    assert [m.tpot_ms for m in done] == pytest.approx([25.0, 50.0])  # (last - first) / (n - 1)
    assert [g for m in done for g in m.itl_ms] == pytest.approx([20.0, 30.0, 50.0])
    assert [r.error for r in run.run.failed] == ["Read timed out"]
    figures = {f.label: f for f in run.theirs}
    assert figures["TTFT (vLLM)"].stats == {"mean": 150.0, "p50": 150.0, "p99": 199.0} and figures["TTFT (vLLM)"].n == 2
    assert figures["ITL (vLLM)"].n == 3 and figures["TPOT (vLLM)"].ours == "tpot_ms"
    short = dict(vllm_doc(), input_lens=[32])  # a list that does not cover every request is left out
    assert [r.request.prompt for r in read_report(json.dumps(short)).runs[0].run.results] == ["", "", ""]


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda d: d.update(itls=[[0.02]]), "one entry per request"),
        (lambda d: d.update(ttfts=[0.1, "fast", 0.0]), "ttfts[1]"),
        (lambda d: d.update(output_lens=[3, -2, 0]), "output_lens[1]"),
        (lambda d: d.update(itls=[[0.02, "x"], [0.05], []]), "itls[0][1]"),
    ],
)
def test_a_broken_vllm_result_says_what_is_wrong(change, message):
    doc = vllm_doc()
    change(doc)
    with pytest.raises(LabError, match=r"Not a valid vllm bench serve result") as e:
        read_report(json.dumps(doc))
    assert message in str(e.value)


def test_a_broken_guidellm_report_names_the_field():
    doc = guidellm_doc()
    bad = copy.deepcopy(doc)
    bad["benchmarks"][0]["requests"]["successful"][2]["request_start_time"] = "soon"
    with pytest.raises(LabError, match=r"Not a valid GuideLLM report: benchmarks\[0\]\.requests\.successful\[2\]"):
        read_report(json.dumps(bad))
    empty = copy.deepcopy(doc)
    empty["benchmarks"][0]["requests"]["successful"] = []
    with pytest.raises(LabError, match="no benchmark with a request"):
        read_report(json.dumps(empty))


def test_other_json_is_left_to_the_trace_reader():
    assert read_report(json.dumps({"format": "pdlab-remote-trace", "version": 1})) is None
    with pytest.raises(LabError, match="not JSON"):
        read_report(b"\xff not json")
