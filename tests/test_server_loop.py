"""The server's engine thread on its own (no HTTP): requests in, tokens out to each request's queue,
and an engine failure mid-run fails the requests in flight (its traceback logged) while the loop
keeps serving the next ones; a failure in one request fails it alone; a loop that dies answers
everyone and says so; closing answers the requests in flight. And the stop-string matcher the
replies run through: the definition, token by token, at a cost that does not grow with the stops."""

from __future__ import annotations

import asyncio

from hypothesis import given, settings
from hypothesis import strategies as st

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


def test_a_failure_in_one_request_fails_it_alone(tiny, caplog):
    """A request whose sampling raises is dropped with its own error; the other request in the same
    steps gets every token (no loop-wide "engine failed" for both)."""
    engine = Engine(tiny.model, tiny.tokenizer, EngineConfig(probe_memory=False))
    loop = EngineLoop(engine, ServerMetrics("tiny"))
    sample = engine.sampler._sample_one

    def broken_for_seed_7(logits, p, seq_id):
        if p.seed == 7:
            raise RuntimeError("probability tensor contains either inf, nan or element < 0")
        return sample(logits, p, seq_id)

    engine.sampler._sample_one = broken_for_seed_7

    async def both():
        good = loop.submit([5, 6, 7], SamplingParams(max_new_tokens=6, ignore_eos=True, temperature=1.0, seed=1))
        bad = loop.submit([8, 9], SamplingParams(max_new_tokens=6, ignore_eos=True, temperature=1.0, seed=7))
        return [await drain(sub) for sub in (good, bad)]

    loop.start()
    try:
        good, bad = asyncio.run(both())
    finally:
        loop.stop()
    assert isinstance(good[-1], Finished) and good[-1].num_output_tokens == 6
    assert (
        isinstance(bad[-1], Rejected)
        and bad[-1].status == 500
        and "The engine failed (RuntimeError)" in bad[-1].message
    )
    assert "probability tensor" in caplog.text and not engine.has_unfinished


async def drain(sub) -> list:
    items = []
    while not items or not isinstance(items[-1], (Finished, Rejected)):
        items.append(await asyncio.wait_for(sub.events.get(), 60))
    return items


def test_a_loop_that_dies_answers_everyone_503_and_says_so(tiny, caplog):
    """Anything that escapes the loop ends it: the request in flight and every later one get a 503
    naming it, the loop no longer says it serves, and on_death tells the server to exit."""
    engine = Engine(tiny.model, tiny.tokenizer, EngineConfig(probe_memory=False))
    deaths = []
    loop = EngineLoop(engine, ServerMetrics("tiny"), on_death=lambda: deaths.append(1))

    def broken():
        raise KeyError("a bug in the loop itself")

    async def scenario():
        running = loop.submit([5, 6, 7], SamplingParams(max_new_tokens=400, ignore_eos=True))
        assert isinstance(await running.events.get(), Accepted)
        loop._admit_parked = broken  # outside any step: nothing contains it
        first = await drain(running)
        later = await drain(loop.submit([8, 9], SamplingParams(max_new_tokens=2)))
        return first, later

    loop.start()
    try:
        first, later = asyncio.run(scenario())
    finally:
        loop.stop()
    for items in (first, later):
        assert isinstance(items[-1], Rejected) and items[-1].status == 503
        assert "The engine stopped (KeyError)" in items[-1].message, items[-1].message
    assert deaths == [1] and not loop.is_serving and loop.dead == "KeyError"
    assert "a bug in the loop itself" in caplog.text


def test_closing_ends_the_requests_in_flight_and_counts_their_tokens(tiny):
    """The server stopping: each request in flight ends with a 503 at once; the tokens it made are
    counted as generated (as a cancelled request's are)."""
    engine = Engine(tiny.model, tiny.tokenizer, EngineConfig(probe_memory=False))
    metrics = ServerMetrics("tiny")
    loop = EngineLoop(engine, metrics)

    async def scenario():
        sub = loop.submit([5, 6, 7], SamplingParams(max_new_tokens=400, ignore_eos=True))
        items = [await sub.events.get() for _ in range(6)]  # accepted, then five tokens
        loop.close("The server is shutting down.")
        return items + await drain(sub)

    loop.start()
    try:
        items = asyncio.run(scenario())
    finally:
        loop.stop()
    assert isinstance(items[-1], Rejected) and items[-1].status == 503 and "shutting down" in items[-1].message
    made = sum(isinstance(i, Delta) for i in items)
    counted = metrics.registry.get_sample_value("vllm:generation_tokens_total", {"model_name": "tiny"})
    assert counted >= made >= 5 and not engine.has_unfinished


# --- stop strings, matched incrementally ---------------------------------------------------------------


def reference_stop(text: str, stops: list[str]) -> tuple[str, bool]:
    """Where a stream of `text` ends: at the first character where some stop string ends (the longest
    of those, if several end there), without it."""
    for end in range(1, len(text) + 1):
        ended = [s for s in stops if s and text[:end].endswith(s)]
        if ended:
            return text[: end - max(map(len, ended))], True
    return text, False


@settings(max_examples=300, deadline=None)
@given(
    pieces=st.lists(st.text("ab\u00e9", max_size=4), max_size=12),
    stops=st.lists(st.text("ab\u00e9", min_size=1, max_size=5), min_size=1, max_size=3),
)
def test_stop_matching_is_the_definition_token_by_token(pieces, stops):
    from engine.entrypoints.server.stops import StopMatcher

    matcher, sent = StopMatcher(stops), []
    for piece in pieces:
        sent.append(matcher.feed(piece))
        so_far = "".join(sent)
        assert not any(s in so_far for s in stops)  # never a whole stop string sent...
        if matcher.stopped:
            break
    else:
        sent.append(matcher.flush())
    assert ("".join(sent), matcher.stopped) == reference_stop("".join(pieces), stops)


def test_a_token_costs_its_own_characters_however_long_the_stops():
    """16 stop strings at the cap, each one character short of matching all along: 2,000 tokens in
    well under a second (the old matcher compared every prefix of every stop string each token)."""
    import time

    from engine.entrypoints.server.protocol import MAX_STOP_CHARS, MAX_STOPS
    from engine.entrypoints.server.stops import StopMatcher

    stops = ["a" * (MAX_STOP_CHARS - 1) + str(i % 10) for i in range(MAX_STOPS)]
    matcher = StopMatcher(stops)
    start = time.perf_counter()
    sent = "".join(matcher.feed("aaaa") for _ in range(2000))
    assert time.perf_counter() - start < 1.0
    assert len(sent) == 8000 - (MAX_STOP_CHARS - 1) and len(matcher.held) == MAX_STOP_CHARS - 1
    assert matcher.feed("a3") == "a" and matcher.stopped  # the stop string is the last 1,000 characters
