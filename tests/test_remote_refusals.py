"""Servers that refuse what the lab sends, played by tests/fault_server.py: `transformers serve`'s 422
on vLLM's `ignore_eos` (the requests go again without it, the load and the capacity command say so,
the saved run keeps the server's words), a server that refuses every request (no SLO verdict: "all N
requests failed" with its status and words), an error body in FastAPI's shape (its words shown, not
"Error code: 422"), and a capacity search whose time budget holds against a slow server."""

from __future__ import annotations

import asyncio
import time

import openai
import pytest

from app_pages.remote.outcome import outcome_lines
from lab import capacity_cli
from lab.catalogues import word
from lab.load_capacity import search, server_measure
from lab.remote_client import Endpoint, RemoteRequest, stream_one
from lab.remote_errors import refused_extensions, server_message
from lab.remote_load import LoadPlan, run_load
from lab.remote_metrics import MetricsWatch
from lab.remote_trace import Saved, dump_saved, load_saved
from lab.slo import SLO
from tests.fault_server import fault_server

REFUSED = "422 Unexpected fields in the request: {'ignore_eos'}"


@pytest.fixture(scope="module")
def faulty():
    with fault_server() as base:
        yield base


def test_a_refused_extension_is_dropped_and_the_endpoint_remembers(faulty):
    endpoint = Endpoint(f"{faulty}/strict", timeout_s=10)
    for chat in (True, False):
        r = asyncio.run(stream_one(endpoint, "m", RemoteRequest("x", 16, chat=chat, ignore_eos=True)))
        assert r.error is None and r.text == "One two three" and r.num_output_tokens == 3, r.error
        assert r.dropped_fields == ["ignore_eos"] and r.refusal == REFUSED
        assert not r.ignored_ignore_eos  # it was never asked: the dropped line says why replies end early
    assert set(endpoint.refused) == {"ignore_eos", "min_tokens"}
    plain = asyncio.run(stream_one(endpoint, "m", RemoteRequest("x", 16)))  # asked for no extension
    assert plain.error is None and plain.dropped_fields == [] and plain.refusal is None


def test_a_load_on_a_strict_server_finishes_and_says_what_it_went_without(faulty):
    plan = LoadPlan("concurrent", [RemoteRequest("x", 16, ignore_eos=True)], max_requests=6, concurrency=3)
    run = asyncio.run(run_load(Endpoint(f"{faulty}/strict", timeout_s=10), "m", plan))
    assert run.summary()["finished"] == 6 and all(r.dropped_fields == ["ignore_eos"] for r in run.results)
    lines = outcome_lines(run, "en")
    assert lines[0].tone == "ok" and "6 of 6 requests finished" in lines[0].text
    (dropped,) = [ln for ln in lines if "refuses vLLM's extension" in ln.text]
    assert dropped.tone == "warn" and "`ignore_eos`" in dropped.text and dropped.items == (REFUSED,)
    assert "tokens are counted as received" in dropped.text
    assert not any("end-of-sequence before their" in ln.text for ln in lines)  # not "ignored ignore_eos"
    zh = [ln.text for ln in outcome_lines(run, "zh") if ln.items == (REFUSED,)]
    assert zh and "vLLM 的扩展字段" in zh[0]
    back, _ = load_saved(dump_saved(Saved(f"{faulty}/strict", "m", None, [(run, MetricsWatch())]))).runs[0]
    assert [(r.dropped_fields, r.refusal) for r in back.results] == [(["ignore_eos"], REFUSED)] * 6
    assert back.dropped() == run.dropped()


def test_a_load_whose_requests_all_failed_says_so_with_the_servers_words(faulty):
    plan = LoadPlan("concurrent", [RemoteRequest("x", 8, ignore_eos=True)], max_requests=4, concurrency=2)
    run = asyncio.run(run_load(Endpoint(f"{faulty}/refuse", timeout_s=10), "m", plan))
    assert word(run.all_failed()) == "all 4 requests failed: 400 the model is still loading"
    assert word(run.all_failed(), "zh") == "全部 4 个请求都失败了：400 the model is still loading"
    assert all(r.status == 400 and r.reason == "the model is still loading" for r in run.results)
    assert run.results[0].error.endswith("answered 400: the model is still loading"), run.results[0].error
    back, _ = load_saved(dump_saved(Saved(f"{faulty}/refuse", "m", None, [(run, MetricsWatch())]))).runs[0]
    assert word(back.all_failed()) == word(run.all_failed())  # the saved run keeps the server's words
    one = LoadPlan("synchronous", [RemoteRequest("x", 8)], max_requests=1)
    alone = asyncio.run(run_load(Endpoint(f"{faulty}/refuse", timeout_s=10), "m", one))
    assert word(alone.all_failed()).startswith("its only request failed (1 sent): 400")


def test_the_servers_words_are_kept_whatever_the_shape_of_its_error_body():
    from types import SimpleNamespace

    def refusal(status: int, body) -> openai.APIStatusError:  # as the SDK raises it: "Error code: N" alone
        response = SimpleNamespace(status_code=status, headers={}, request=None, text="")
        return openai.APIStatusError(f"Error code: {status}", response=response, body=body)

    shapes = [
        ({"detail": "Unexpected fields in the request: {'ignore_eos'}"}, "Unexpected fields in the request"),
        ({"detail": [{"loc": ["body", "ignore_eos"], "msg": "Extra inputs are not permitted"}]}, "Extra inputs"),
        ({"error": {"code": 400, "message": "unknown field `min_tokens`"}}, "unknown field `min_tokens`"),
        ({"error": "Input validation error: unknown field `ignore_eos`", "error_type": "validation"}, "Input valid"),
        ({"object": "error", "message": "Unrecognized request argument supplied: ignore_eos"}, "Unrecognized"),
    ]
    for body, said in shapes:
        assert said in server_message(refusal(422, body)), body
    assert refused_extensions(refusal(422, shapes[0][0]), ["ignore_eos"]) == ["ignore_eos"]
    assert refused_extensions(refusal(400, shapes[2][0]), ["ignore_eos", "min_tokens"]) == ["min_tokens"]
    assert refused_extensions(refusal(401, shapes[0][0]), ["ignore_eos"]) == []  # a key, not a field
    assert refused_extensions(refusal(422, {"detail": "prompt too long"}), ["ignore_eos"]) == []


def test_the_capacity_command_on_a_strict_server_says_what_it_dropped(faulty, tmp_path, capsys):
    out = tmp_path / "strict.json"
    argv = ["--url", f"{faulty}/strict", "--slo", "e2e=600000", "--max-load", "2", "--max-tokens", "8"]
    assert capacity_cli.main([*argv, "--out", str(out)]) == 0
    said = capsys.readouterr().out
    assert "The server refuses vLLM's extension `ignore_eos`" in said and REFUSED in said
    assert "load   1: 10/10 met the SLO" in said and "Holds a concurrency of 2 with E2E ≤ 600000 ms" in said
    saved = load_saved(out.read_bytes())
    assert {(r.refusal, tuple(r.dropped_fields)) for run, _ in saved.runs for r in run.results} == {
        (REFUSED, ("ignore_eos",))
    }


def test_the_capacity_command_gives_no_verdict_when_every_request_failed(faulty, tmp_path, capsys):
    out = tmp_path / "refused.json"
    argv = ["--url", f"{faulty}/refuse", "--slo", "ttft=500", "--max-tokens", "8", "--out", str(out)]
    assert capacity_cli.main(argv) == 1
    said = capsys.readouterr().out
    assert "load   1: all 10 requests failed: 400 the model is still loading" in said
    assert "No SLO verdict: at a concurrency of 1, all 10 requests failed: 400 the model is still loading." in said, (
        said
    )
    assert "Not even" not in said and "breaks first" not in said and "met the SLO" not in said
    ((run, _),) = load_saved(out.read_bytes()).runs  # the failed load is saved, the server's words with it
    assert {r.reason for r in run.results} == {"the model is still loading"}
    assert all("Error code" not in r.error for r in run.results)


def test_replies_that_all_came_back_empty_get_no_verdict_either(faulty, capsys):
    """A server that ends every reply at EOS at once (`transformers serve`'s completions API does for
    some prompts once `ignore_eos` is dropped): nothing was timed, so nothing is judged."""
    argv = ["--url", f"{faulty}/empty", "--slo", "ttft=500", "--max-tokens", "8", "--chat"]
    assert capacity_cli.main(argv) == 1
    said = capsys.readouterr().out
    assert (
        "No SLO verdict: at a concurrency of 1, none of its 10 requests got a token to time "
        "(10 answered with 0 tokens, finish reason: stop)." in said
    ), said
    assert "Not even" not in said and "breaks first" not in said


def test_a_capacity_search_ends_within_its_budget_against_a_slow_server(faulty):
    """Each request here takes 6 s: a load of 10 at concurrency 1 would run a minute. A 2 s budget ends
    the first load where it ends, and a load cut short is not judged."""
    slo = SLO(ttft_ms=100)
    endpoint = Endpoint(f"{faulty}/slow", timeout_s=10)
    measure = server_measure(endpoint, "m", [RemoteRequest("x", 20, ignore_eos=True)], slo, budget_s=2.0)
    t0 = time.perf_counter()
    result = search(measure, slo, budget_s=2.0, max_load=4)
    took = time.perf_counter() - t0
    assert took < 4.5, took
    assert result.points == {} and result.stopped == "budget" and result.failed is None
    assert word(result.message()) == "Nothing was measured (the time budget ran out)."
