"""The server's engine thread on its own (no HTTP): requests in, tokens out to each request's queue,
and an engine failure mid-run fails the requests in flight (its traceback logged) while the loop
keeps serving the next ones."""

from __future__ import annotations

import asyncio

from engine import Engine, EngineConfig, SamplingParams
from engine.entrypoints.server.loop import Accepted, Delta, EngineLoop, Finished, Rejected
from engine.entrypoints.server.prometheus import ServerMetrics


async def collect(loop: EngineLoop, ids: list[int], n: int) -> list:
    sub = loop.submit(ids, SamplingParams(max_new_tokens=n, ignore_eos=True))
    items = []
    while True:
        item = await asyncio.wait_for(sub.events.get(), 60)
        items.append(item)
        if isinstance(item, (Finished, Rejected)):
            return items


def test_tokens_flow_and_a_failure_is_contained(tiny, caplog):
    engine = Engine(tiny.model, tiny.tokenizer, EngineConfig(probe_memory=False))
    loop = EngineLoop(engine, ServerMetrics("tiny"))
    loop.start()
    real_step, calls = engine.step, []

    def failing_step():
        calls.append(1)
        if len(calls) == 2:  # the first decode step
            raise RuntimeError("device lost")
        return real_step()

    async def scenario():
        ok = await collect(loop, [5, 6, 7], 4)
        engine.step = failing_step
        failed = await collect(loop, [5, 6, 7], 4)
        engine.step = real_step
        again = await collect(loop, [8, 9], 3)
        return ok, failed, again

    try:
        ok, failed, again = asyncio.run(scenario())
    finally:
        loop.stop()
    assert isinstance(ok[0], Accepted) and sum(isinstance(i, Delta) for i in ok) == 4
    assert ok[-1].finish_reason == "length" and ok[-1].num_output_tokens == 4
    assert isinstance(failed[-1], Rejected) and "The engine failed (RuntimeError)" in failed[-1].message
    logged = [r for r in caplog.records if r.name == "pdlab.server" and r.exc_info]
    assert logged and "device lost" in str(logged[0].exc_info[1])  # the traceback is in the log, not the reply
    assert isinstance(again[-1], Finished) and again[-1].num_output_tokens == 3
    assert not engine.has_unfinished


def test_a_request_the_engine_refuses_is_rejected_with_its_words(tiny):
    engine = Engine(tiny.model, tiny.tokenizer, EngineConfig(probe_memory=False))
    loop = EngineLoop(engine, ServerMetrics("tiny"))
    loop.start()
    try:
        items = asyncio.run(collect(loop, [], 3))
    finally:
        loop.stop()
    assert isinstance(items[0], Rejected) and "empty" in items[0].message


def test_metrics_are_current_before_a_client_hears_it_finished(tiny, monkeypatch):
    """A client that reads /metrics as soon as its stream ends must see its KV blocks freed and its
    request counted: the loop updates both before it sends the step's events."""
    from engine.entrypoints.server.loop import Submission

    metrics = ServerMetrics("tiny")
    loop = EngineLoop(Engine(tiny.model, tiny.tokenizer, EngineConfig(probe_memory=False)), metrics)
    seen, send = [], Submission.send

    def spy(self, item):
        if isinstance(item, Finished):
            labels = {"model_name": "tiny"}
            seen.append(
                (
                    metrics.registry.get_sample_value("vllm:kv_cache_usage_perc", labels),
                    metrics.registry.get_sample_value("vllm:time_to_first_token_seconds_count", labels),
                )
            )
        send(self, item)

    monkeypatch.setattr(Submission, "send", spy)
    loop.start()
    try:
        asyncio.run(collect(loop, [5, 6, 7], 3))
        asyncio.run(collect(loop, [8, 9], 2))
    finally:
        loop.stop()
    assert seen == [(0.0, 1.0), (0.0, 2.0)]


def test_an_unexpected_error_is_logged_and_answered_in_openai_s_shape(caplog):
    """The outermost layer: a route that raises gives a 500 JSON body with the request's id, and the
    traceback goes to the log, never to the client as text."""
    import asyncio
    import json

    from engine.entrypoints.server.errors import CatchAll

    async def broken(scope, receive, send):
        raise RuntimeError("something inside broke")

    sent = []

    async def send(message):
        sent.append(message)

    async def receive():
        return {"type": "http.request", "body": b""}

    scope = {"type": "http", "method": "POST", "path": "/v1/completions", "headers": []}
    with caplog.at_level("ERROR", logger="pdlab.server"):
        asyncio.run(CatchAll(broken)(scope, receive, send))
    start, body = sent
    assert start["status"] == 500 and (b"content-type", b"application/json") in start["headers"]
    error = json.loads(body["body"])["error"]
    request_id = dict(start["headers"])[b"x-request-id"].decode()
    assert error["type"] == "server_error" and request_id in error["message"] and "broke" not in error["message"]
    assert "RuntimeError: something inside broke" in caplog.text and request_id in caplog.text
