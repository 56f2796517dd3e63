"""One OpenAI request answered from the engine loop: streamed as server-sent events (sse.py) or
whole. A client that goes away, streaming or not, has its request dropped before the engine's
next step."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass

from fastapi import Request
from fastapi.responses import Response, StreamingResponse

from engine.entrypoints.server.errors import error_response
from engine.entrypoints.server.loop import Accepted, Delta, EngineLoop, Finished, Rejected, Submission
from engine.entrypoints.server.protocol import ResponseIds
from engine.entrypoints.server.sse import openai_events
from engine.entrypoints.server.stops import StopMatcher, stop_matcher
from engine.sampling_params import SamplingParams

DISCONNECT_POLL_S = 0.25


@dataclass
class Reply:
    """One request's answer as it arrives: its text with stop strings applied, and how it ended."""

    sub: Submission
    stops: StopMatcher
    num_prompt_tokens: int
    num_output_tokens: int = 0
    finish_reason: str = ""
    failure: str | None = None
    failure_status: int = 500
    done: bool = False

    async def texts(self) -> AsyncIterator[str]:
        """The text to send, piece by piece, until the request ends (or a stop string ends it)."""
        while True:
            item = await self.sub.events.get()
            if isinstance(item, Delta):
                self.num_output_tokens += 1
                text = self.stops.feed(item.text, item.token_id)
                if text:
                    yield text
                if self.stops.stopped:  # ours to end: the engine is told to drop it (done stays False)
                    self.finish_reason = "stop"
                    return
                continue
            self.done = True
            if isinstance(item, Rejected):
                self.failure, self.failure_status = item.message, item.status
                return
            assert isinstance(item, Finished)
            rest = self.stops.flush()
            if rest:
                yield rest
            self.finish_reason, self.num_output_tokens = item.finish_reason, item.num_output_tokens
            return


async def respond(
    loop: EngineLoop, names: ResponseIds, ids: list[int], body, params: SamplingParams, request: Request
) -> Response | dict:
    """Submit the request and answer it as the body asks: a stream, or the whole text at the end."""
    stops = await stop_matcher(body)
    sub = loop.submit(ids, params, names.id)
    first = await sub.events.get()
    if isinstance(first, Rejected):
        return error_response(first.message, first.status)
    assert isinstance(first, Accepted)
    reply = Reply(sub, stops, first.num_prompt_tokens)
    if body.stream:
        return StreamingResponse(stream(loop, reply, names, body.include_usage), media_type="text/event-stream")
    return await whole(loop, reply, names, request)


async def stream(loop: EngineLoop, reply: Reply, names: ResponseIds, include_usage: bool) -> AsyncIterator[str]:
    try:
        async for event in openai_events(names, reply.texts(), reply, include_usage):
            yield event
    finally:
        if not reply.done:  # the client went away (or the server is stopping): free the engine's slot
            loop.cancel(reply.sub)


async def whole(loop: EngineLoop, reply: Reply, names: ResponseIds, request: Request) -> Response | dict:
    gone = asyncio.create_task(until_disconnected(request))
    try:
        parts = []
        reading = asyncio.ensure_future(collect(reply, parts))
        done, _ = await asyncio.wait({reading, gone}, return_when=asyncio.FIRST_COMPLETED)
        if reading not in done:  # nobody is waiting for the answer: stop computing it
            reading.cancel()
            return Response(status_code=499)
        reading.result()  # raises what collecting raised (CatchAll logs it and answers 500)
        if reply.failure:
            return error_response(reply.failure, reply.failure_status)
        return names.whole("".join(parts), reply.finish_reason, reply.num_prompt_tokens, reply.num_output_tokens)
    finally:
        gone.cancel()
        if not reply.done:
            loop.cancel(reply.sub)


async def collect(reply: Reply, parts: list[str]) -> None:
    async for text in reply.texts():
        parts.append(text)


async def until_disconnected(request: Request) -> None:
    while not await request.is_disconnected():
        await asyncio.sleep(DISCONNECT_POLL_S)
