"""One request's text through a disaggregated pair, as the router reads it: the first token from the
prefill worker's hand-off header, then the decode worker's JSON lines (worker_protocol.py), with
the client's stop strings applied here. A decode worker that refuses, fails or goes away ends the
text with `failure` set, naming it (answered 502: the worker's failure, not the client's)."""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator
from contextlib import aclosing

import httpx2
from fastapi.responses import JSONResponse

from engine.entrypoints.server.errors import error_response
from engine.entrypoints.server.stops import StopMatcher
from engine.entrypoints.server.worker_protocol import Admitted, Failure, Finish, HandoffHeader, decode_line

log = logging.getLogger("pdlab.router")


class WorkerDown(Exception):
    def __init__(self, role: str, url: str, why: str):
        super().__init__(f"The {role} worker at {url} is not answering ({why}); the router keeps serving.")


class Relay:
    """One request's text: the prefill worker's first token, then the decode worker's stream."""

    def __init__(
        self, handoff: bytes, header: HandoffHeader, stops: StopMatcher, decode_url: str, client, headers: dict
    ):
        self.handoff, self.header, self.stops = handoff, header, stops
        self.decode_url, self.client, self.headers = decode_url, client, headers  # headers: the pair's token
        self.num_prompt_tokens = len(header.prompt_ids)
        self.num_output_tokens = 1
        self.finish_reason = ""
        self.failure: str | None = None
        self.failure_status = 502
        self.record: dict = {}  # the hand-off's stamps (the router's docstring)

    async def texts(self) -> AsyncIterator[str]:
        first = self.stops.feed(self.header.first_text, self.header.first_token)
        if first:
            yield first
        if self.stops.stopped:
            self.finish_reason = "stop"
            return
        if self.header.finished:
            self.finish_reason = "length" if self.header.params.max_new_tokens == 1 else "stop"
            rest = self.stops.flush()
            if rest:
                yield rest
            return
        try:
            async with aclosing(self._decoded()) as texts:  # closed with the reply: the HTTP stream too
                async for text in texts:
                    yield text
        except httpx2.HTTPError as e:
            log.warning("the decode worker at %s failed mid-request: %r", self.decode_url, e)
            self.failure = str(WorkerDown("decode", self.decode_url, type(e).__name__))
            return
        if not self.finish_reason and not self.failure:  # the stream ended without its last line
            self.failure = str(WorkerDown("decode", self.decode_url, "its stream ended early"))

    async def _decoded(self) -> AsyncIterator[str]:
        """The decode worker's tokens as text to send; sets how the request ended."""
        url = self.decode_url + "/pdlab/decode"
        async with self.client.stream("POST", url, content=self.handoff, headers=self.headers) as r:
            if r.status_code != 200:
                self.failure = worker_error(await r.aread(), r.status_code)
                return
            async for raw in r.aiter_lines():
                if not raw:
                    continue
                line = decode_line(raw)
                if isinstance(line, Admitted):
                    self.record.update(d_received=line.received, d_admitted=line.admitted)
                elif isinstance(line, Failure):
                    self.failure = line.message
                    return
                elif isinstance(line, Finish):
                    self.finish_reason, self.num_output_tokens = line.finish_reason, line.completion_tokens
                    rest = self.stops.flush()
                    if rest:
                        yield rest
                    return
                else:
                    self.num_output_tokens += 1
                    text = self.stops.feed(line.text, line.token_id)
                    if text:
                        yield text
                    if self.stops.stopped:  # closing the stream frees the decode worker's slot
                        self.finish_reason = "stop"
                        return


def worker_error(body: bytes, status: int) -> str:
    """A worker's refusal (an OpenAI-shaped error body) in its own words."""
    try:
        return json.loads(body)["error"]["message"]
    except (ValueError, KeyError, TypeError):
        return f"HTTP {status}"


def worker_refusal(r: httpx2.Response, role: str, url: str) -> JSONResponse:
    """A worker's error answer passed on as it is when it is OpenAI's shape (a 4xx names the client's
    mistake); anything else is the worker's failure, a 502 naming it."""
    try:
        body = r.json()
        if isinstance(body, dict) and isinstance(body.get("error"), dict) and "message" in body["error"]:
            return JSONResponse(body, status_code=r.status_code)
    except ValueError:
        pass
    return error_response(f"The {role} worker at {url} answered {r.status_code} with no error in OpenAI's shape.", 502)
