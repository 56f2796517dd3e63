"""A router in front of a disaggregated pair: one prefill worker and one decode worker, each a
`python -m engine serve --role prefill|decode` on the same model. Each OpenAI request goes to the
prefill worker, which answers with the prompt's KV hand-off (engine/core/kv_transfer.py) and its first
token; the router hands those bytes to the decode worker and streams the rest from there, in
OpenAI's shape, applying stop strings itself. A worker that does not answer, or dies mid-stream, is
named in an OpenAI-shaped error; the router keeps serving.

GET /pdlab/requests lists the last requests' hand-off records, stamped on one wall clock (the
workers share the machine's): arrived at the router, arrived at / started / packed on the prefill
worker, received / admitted on the decode worker, first token and last token at the router, and the
hand-off's bytes.
"""

from __future__ import annotations

import collections
import json
import logging
import time
from contextlib import asynccontextmanager

import httpx2
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, StreamingResponse

from engine.entrypoints.server.app import sse
from engine.entrypoints.server.errors import error_body, error_response
from engine.entrypoints.server.protocol import ChatRequest, CompletionRequest, ResponseIds
from engine.entrypoints.server.stops import StopMatcher

log = logging.getLogger("pdlab.router")
RECENT_MAX = 1024  # hand-off records kept for GET /pdlab/requests


class WorkerDown(Exception):
    def __init__(self, role: str, url: str, why: str):
        super().__init__(f"The {role} worker at {url} is not answering ({why}); the router keeps serving.")


def create_router(prefill_url: str, decode_url: str, timeout_s: float = 600.0) -> FastAPI:
    state: dict = {}
    recent: collections.deque[dict] = collections.deque(maxlen=RECENT_MAX)

    @asynccontextmanager
    async def lifespan(_app: FastAPI):
        state["client"] = httpx2.AsyncClient(timeout=httpx2.Timeout(timeout_s, connect=5.0))
        yield
        await state["client"].aclose()

    app = FastAPI(title="pdlab router", lifespan=lifespan)

    async def get(role: str, url: str, path: str):
        try:
            r = await state["client"].get(url + path)
        except httpx2.HTTPError as e:
            raise WorkerDown(role, url, type(e).__name__) from None
        return r

    @app.get("/health")
    async def health():
        down = []
        for role, url in (("prefill", prefill_url), ("decode", decode_url)):
            try:
                if (await get(role, url, "/health")).status_code != 200:
                    down.append(f"the {role} worker at {url} is unhealthy")
            except WorkerDown as e:
                down.append(str(e))
        if down:
            return error_response("; ".join(down), 503)
        return {"status": "ok", "prefill": prefill_url, "decode": decode_url}

    @app.get("/pdlab/requests")
    async def records() -> dict:
        return {"object": "list", "data": list(recent)}

    @app.get("/v1/models")
    async def models():
        try:
            r = await get("prefill", prefill_url, "/v1/models")
        except WorkerDown as e:
            return error_response(str(e), 503)
        return JSONResponse(r.json(), status_code=r.status_code)

    @app.post("/v1/completions")
    async def completions(request: Request):
        return await route(request, chat=False)

    @app.post("/v1/chat/completions")
    async def chat(request: Request):
        return await route(request, chat=True)

    async def route(request: Request, chat: bool):
        raw = await request.body()
        try:
            body = (ChatRequest if chat else CompletionRequest).model_validate_json(raw)
        except ValueError:
            body = None  # the prefill worker names what is wrong, in its own words
        start, arrived = time.perf_counter(), time.time()
        try:
            r = await state["client"].post(
                prefill_url + ("/pdlab/prefill/chat" if chat else "/pdlab/prefill"),
                content=raw,
                headers={"content-type": "application/json"},
            )
        except httpx2.HTTPError as e:
            return error_response(str(WorkerDown("prefill", prefill_url, type(e).__name__)), 503)
        if r.status_code != 200:
            return JSONResponse(r.json(), status_code=r.status_code)
        handoff = r.content
        header = json.loads(handoff.partition(b"\n")[0])
        model = (body.model if body is not None else None) or "pdlab"
        names = ResponseIds(chat, model)
        stops = StopMatcher(body.stops, body.stop_token_ids, body.min_tokens) if body else StopMatcher([])
        reply = Relay(handoff, header, stops, decode_url, state["client"], start)
        reply.record.update(id=names.id, arrived=arrived, handoff_bytes=len(handoff), **header.get("timing", {}))
        if body is not None and body.stream:
            return StreamingResponse(streamed(reply, names, body.include_usage), media_type="text/event-stream")
        text = "".join([t async for t in kept(reply)])
        if reply.failure:
            return error_response(reply.failure, 502)
        return names.whole(text, reply.finish_reason, reply.num_prompt_tokens, reply.num_output_tokens)

    async def kept(reply: Relay):
        """The reply's texts; its record is kept once it ends, however it ends."""
        try:
            async for text in reply.texts():
                reply.record.setdefault("first_token", time.time())
                yield text
        finally:
            reply.record.update(
                done=time.time(),
                prompt_tokens=reply.num_prompt_tokens,
                output_tokens=reply.num_output_tokens,
                error=reply.failure,
            )
            recent.append(reply.record)

    async def streamed(reply: Relay, names: ResponseIds, include_usage: bool):
        if names.chat:
            yield sse(names.chunk(role=True))
        async for text in kept(reply):
            yield sse(names.chunk(text))
        if reply.failure:
            yield sse(error_body(reply.failure, 502))
            return
        yield sse(names.chunk(finish=reply.finish_reason))
        if include_usage:
            yield sse(names.usage_chunk(reply.num_prompt_tokens, reply.num_output_tokens))
        yield "data: [DONE]\n\n"

    return app


class Relay:
    """One request's text: the prefill worker's first token, then the decode worker's stream."""

    def __init__(self, handoff: bytes, header: dict, stops: StopMatcher, decode_url: str, client, start: float):
        self.handoff, self.header, self.stops = handoff, header, stops
        self.decode_url, self.client, self.start = decode_url, client, start
        self.num_prompt_tokens = len(header["prompt_ids"])
        self.num_output_tokens = 1
        self.finish_reason = ""
        self.failure: str | None = None
        self.record: dict = {}  # the hand-off's stamps (the router's docstring)

    async def texts(self):
        first = self.stops.feed(self.header.get("first_text", ""), self.header["first_token"])
        if first:
            yield first
        if self.stops.stopped:
            self.finish_reason = "stop"
            return
        if self.header["finished"]:
            params = self.header["params"]
            self.finish_reason = "length" if params["max_new_tokens"] == 1 else "stop"
            rest = self.stops.flush()
            if rest:
                yield rest
            return
        try:
            async with self.client.stream("POST", self.decode_url + "/pdlab/decode", content=self.handoff) as r:
                if r.status_code != 200:
                    self.failure = json.loads(await r.aread()).get("error", {}).get("message", f"HTTP {r.status_code}")
                    return
                async for line in r.aiter_lines():
                    if not line:
                        continue
                    item = json.loads(line)
                    if "admitted" in item:
                        self.record.update(d_received=item["received"], d_admitted=item["admitted"])
                        continue
                    if "error" in item:
                        self.failure = item["error"]
                        return
                    if "finish_reason" in item:
                        self.finish_reason, self.num_output_tokens = item["finish_reason"], item["completion_tokens"]
                        rest = self.stops.flush()
                        if rest:
                            yield rest
                        return
                    self.num_output_tokens += 1
                    text = self.stops.feed(item["text"], item["token_id"])
                    if text:
                        yield text
                    if self.stops.stopped:  # closing the stream frees the decode worker's slot
                        self.finish_reason = "stop"
                        return
        except httpx2.HTTPError as e:
            log.warning("the decode worker at %s failed mid-request: %r", self.decode_url, e)
            self.failure = str(WorkerDown("decode", self.decode_url, type(e).__name__))
            return
        if not self.finish_reason:  # the stream ended without its last line: the worker went away
            self.failure = str(WorkerDown("decode", self.decode_url, "its stream ended early"))
