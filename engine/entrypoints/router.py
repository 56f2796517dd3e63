"""A router in front of a disaggregated pair: one prefill worker and one decode worker, each a
`python -m engine serve --role prefill|decode` on the same model. Each OpenAI request goes to the
prefill worker, which answers with the prompt's KV hand-off (engine/core/kv_transfer.py) and its first
token; the router hands those bytes to the decode worker and streams the rest from there, in
OpenAI's shape, applying stop strings itself (relay.py). A worker that does not answer, or dies
mid-stream, is named in an OpenAI-shaped error; the router keeps serving.

GET /pdlab/requests lists the last requests' hand-off records, stamped on one wall clock (the
workers share the machine's): arrived at the router, arrived at / started / packed on the prefill
worker, received / admitted on the decode worker, first token and last token at the router, and the
hand-off's bytes.
"""

from __future__ import annotations

import collections
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Annotated

import httpx2
from fastapi import APIRouter, Depends, FastAPI, Request
from fastapi.responses import JSONResponse, StreamingResponse

from engine.entrypoints.relay import Relay, WorkerDown
from engine.entrypoints.server.errors import error_response
from engine.entrypoints.server.protocol import ChatRequest, CompletionRequest, ResponseIds
from engine.entrypoints.server.sse import openai_events
from engine.entrypoints.server.stops import StopMatcher
from engine.entrypoints.server.worker_protocol import HandoffHeader

RECENT_MAX = 1024  # hand-off records kept for GET /pdlab/requests


@dataclass
class RouterState:
    """What the routes share: the pair's URLs, one HTTP client to both, and the recent records."""

    prefill_url: str
    decode_url: str
    timeout_s: float
    client: httpx2.AsyncClient | None = None  # opened and closed with the app (its lifespan)
    recent: collections.deque[dict] = field(default_factory=lambda: collections.deque(maxlen=RECENT_MAX))

    async def get(self, role: str, path: str) -> httpx2.Response:
        url = self.prefill_url if role == "prefill" else self.decode_url
        try:
            return await self.client.get(url + path)
        except httpx2.HTTPError as e:
            raise WorkerDown(role, url, type(e).__name__) from None


def router_state(request: Request) -> RouterState:
    return request.app.state.router


Routing = Annotated[RouterState, Depends(router_state)]
routes = APIRouter()


@asynccontextmanager
async def lifespan(app: FastAPI) -> AsyncIterator[None]:
    state = app.state.router
    state.client = httpx2.AsyncClient(timeout=httpx2.Timeout(state.timeout_s, connect=5.0))
    yield
    await state.client.aclose()


def create_router(prefill_url: str, decode_url: str, timeout_s: float = 600.0) -> FastAPI:
    app = FastAPI(title="pdlab router", lifespan=lifespan)
    app.state.router = RouterState(prefill_url, decode_url, timeout_s)
    app.include_router(routes)
    return app


@routes.get("/health")
async def health(state: Routing):
    down = []
    for role, url in (("prefill", state.prefill_url), ("decode", state.decode_url)):
        try:
            if (await state.get(role, "/health")).status_code != 200:
                down.append(f"the {role} worker at {url} is unhealthy")
        except WorkerDown as e:
            down.append(str(e))
    if down:
        return error_response("; ".join(down), 503)
    return {"status": "ok", "prefill": state.prefill_url, "decode": state.decode_url}


@routes.get("/pdlab/requests")
async def records(state: Routing) -> dict:
    return {"object": "list", "data": list(state.recent)}


@routes.get("/v1/models")
async def models(state: Routing):
    try:
        r = await state.get("prefill", "/v1/models")
    except WorkerDown as e:
        return error_response(str(e), 503)
    return JSONResponse(r.json(), status_code=r.status_code)


@routes.post("/v1/completions")
async def completions(request: Request, state: Routing):
    return await route(state, request, chat=False)


@routes.post("/v1/chat/completions")
async def chat(request: Request, state: Routing):
    return await route(state, request, chat=True)


async def route(state: RouterState, request: Request, chat: bool):
    """The request's prefill on the prefill worker, then its answer from the decode worker."""
    raw = await request.body()
    try:
        body = (ChatRequest if chat else CompletionRequest).model_validate_json(raw)
    except ValueError:
        body = None  # the prefill worker names what is wrong, in its own words
    arrived = time.time()
    try:
        r = await state.client.post(
            state.prefill_url + ("/pdlab/prefill/chat" if chat else "/pdlab/prefill"),
            content=raw,
            headers={"content-type": "application/json"},
        )
    except httpx2.HTTPError as e:
        return error_response(str(WorkerDown("prefill", state.prefill_url, type(e).__name__)), 503)
    if r.status_code != 200:
        return JSONResponse(r.json(), status_code=r.status_code)
    handoff = r.content
    header = HandoffHeader.of(handoff)
    names = ResponseIds(chat, (body.model if body is not None else None) or "pdlab")
    stops = StopMatcher(body.stops, body.stop_token_ids, body.min_tokens) if body else StopMatcher([])
    reply = Relay(handoff, header, stops, state.decode_url, state.client)
    reply.record.update(id=names.id, arrived=arrived, handoff_bytes=len(handoff), **header.timing)
    texts = kept(reply, state.recent)
    if body is not None and body.stream:
        events = openai_events(names, texts, reply, body.include_usage, failure_status=502)
        return StreamingResponse(events, media_type="text/event-stream")
    text = "".join([t async for t in texts])
    if reply.failure:
        return error_response(reply.failure, 502)
    return names.whole(text, reply.finish_reason, reply.num_prompt_tokens, reply.num_output_tokens)


async def kept(reply: Relay, recent: collections.deque[dict]) -> AsyncIterator[str]:
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
