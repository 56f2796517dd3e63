"""OpenAI's stream framing, written once for the server (routes/openai_api.py) and the router
(engine/entrypoints/router.py): each chunk a server-sent event `data: <json>\\n\\n`; a chat stream
opens with the assistant's role, ends with the finish reason, the usage when asked and
`data: [DONE]`. A stream that fails part-way sends the error in OpenAI's shape and no [DONE]."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Protocol

from engine.entrypoints.server.errors import error_body
from engine.entrypoints.server.protocol import ResponseIds

DONE = "data: [DONE]\n\n"


class Answer(Protocol):
    """How a streamed answer ended, read once its texts are spent (server's Reply, router's Relay)."""

    failure: str | None
    failure_status: int  # the status a failure is answered with (500 our engine, 502 a router's worker, 503 stopping)
    finish_reason: str
    num_prompt_tokens: int
    num_output_tokens: int


def sse(payload: dict) -> str:
    return f"data: {json.dumps(payload, ensure_ascii=False)}\n\n"


async def openai_events(
    names: ResponseIds,
    texts: AsyncIterator[str],
    answer: Answer,
    include_usage: bool,
    failure_status: int | None = None,
) -> AsyncIterator[str]:
    """The whole stream of one response: `texts` as chunks, then how `answer` ended (a failure as an
    error event, and no [DONE]; its status `failure_status`, or by default the answer's own)."""
    if names.chat:
        yield sse(names.chunk(role=True))
    async for text in texts:
        yield sse(names.chunk(text))
    if answer.failure:
        yield sse(error_body(answer.failure, failure_status or answer.failure_status))
        return
    yield sse(names.chunk(finish=answer.finish_reason))
    if include_usage:
        yield sse(names.usage_chunk(answer.num_prompt_tokens, answer.num_output_tokens))
    yield DONE
