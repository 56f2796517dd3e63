"""A router in front of a disaggregated pair: one prefill worker and one decode worker, each a
`python -m engine serve --role prefill|decode` on the same model. Each OpenAI request goes to the
prefill worker, which answers with the prompt's KV hand-off (engine/core/kv_transfer.py) and its first
token; the router hands those bytes to the decode worker and streams the rest from there, in
OpenAI's shape, applying stop strings itself (relay.py). A worker that does not answer, or dies
mid-stream, is named in an OpenAI-shaped error (502/503, typed server_error); the router keeps
serving.

The router is as careful as the server: the same layers first (the body limit, the API key when it
has one, every error in OpenAI's shape, an unexpected one logged and answered 500), and it parses
and checks each request once: the prefill worker is sent the router's parsed request (its known
fields as JSON, unknown ones dropped), so router and worker cannot read one body two ways. Its
calls to the workers carry the pair's hand-off token: the workers take hand-offs from it alone. A
whole (non-streamed) request whose client leaves is cancelled, as a stream is.

GET /pdlab/requests lists the last requests' hand-off records, stamped on one wall clock (the
workers share the machine's): arrived at the router, arrived at / started / packed on the prefill
worker, received / admitted on the decode worker, first token and last token at the router, and the
hand-off's bytes.
"""

from __future__ import annotations

import asyncio
import collections
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Annotated

import httpx2
from fastapi import APIRouter, Depends, FastAPI, Request
from fastapi.responses import JSONResponse, Response, StreamingResponse
from pydantic import ValidationError

from engine.entrypoints.relay import Relay, WorkerDown, worker_refusal
from engine.entrypoints.server import errors
from engine.entrypoints.server.defaults import MAX_BODY_BYTES
from engine.entrypoints.server.errors import CatchAll, error_response
from engine.entrypoints.server.limits import HANDOFF_HEADER, ApiKey, BodyLimit
from engine.entrypoints.server.protocol import ChatRequest, CompletionRequest, ResponseIds
from engine.entrypoints.server.reply import until_disconnected
from engine.entrypoints.server.sse import openai_events
from engine.entrypoints.server.stops import stop_matcher
from engine.entrypoints.server.worker_protocol import HandoffHeader

RECENT_MAX = 1024  # hand-off records kept for GET /pdlab/requests
ROUTER_PATHS = "/v1/completions, /v1/chat/completions, /v1/models, /health and /pdlab/requests"


@dataclass
class Pair:
    """What a router is started with: its two workers, the pair's hand-off token, its own limits."""

    prefill_url: str
    decode_url: str
    handoff_token: str
    api_key: str | None = None
    max_body_bytes: int = MAX_BODY_BYTES


@dataclass
class RouterState:
    """What the routes share: the pair, one HTTP client to both workers, and the recent records."""

    pair: Pair
    timeout_s: float
    client: httpx2.AsyncClient | None = None  # opened and closed with the app (its lifespan)
    recent: collections.deque[dict] = field(default_factory=lambda: collections.deque(maxlen=RECENT_MAX))
    served: str | None = None  # the model's name, read once from the prefill worker
    closing: bool = False  # the router is stopping: new requests are refused

    @property
    def headers(self) -> dict[str, str]:
        """What every call to a worker carries: the pair's hand-off token."""
        return {HANDOFF_HEADER.decode(): self.pair.handoff_token}

    def url(self, role: str) -> str:
        return self.pair.prefill_url if role == "prefill" else self.pair.decode_url

    async def get(self, role: str, path: str) -> httpx2.Response:
        try:
            return await self.client.get(self.url(role) + path, headers=self.headers)
        except httpx2.HTTPError as e:
            raise WorkerDown(role, self.url(role), type(e).__name__) from None

    async def served_name(self) -> str:
        """The model id the pair serves (for a request that names none), as the prefill worker says it."""
        if self.served is None:
            r = await self.get("prefill", "/v1/models")
            if r.status_code != 200:
                raise WorkerDown("prefill", self.pair.prefill_url, f"/v1/models answered {r.status_code}")
            self.served = r.json()["data"][0]["id"]
        return self.served

    def close(self) -> None:
        self.closing = True


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


def create_router(pair: Pair, timeout_s: float = 600.0) -> FastAPI:
    app = FastAPI(title="pdlab router", lifespan=lifespan)
    app.state.router = RouterState(pair, timeout_s)
    errors.install(app, ROUTER_PATHS)
    app.include_router(routes)
    app.add_middleware(BodyLimit, max_bytes=pair.max_body_bytes)
    if pair.api_key:
        app.add_middleware(ApiKey, key=pair.api_key)
    app.add_middleware(CatchAll)  # added last: the outermost
    return app


@routes.get("/health")
async def health(state: Routing):
    if state.closing:
        return error_response("The router is stopping.", 503)
    down = []
    for role in ("prefill", "decode"):
        try:
            if (await state.get(role, "/health")).status_code != 200:
                down.append(f"the {role} worker at {state.url(role)} is unhealthy")
        except WorkerDown as e:
            down.append(str(e))
    if down:
        return error_response("; ".join(down), 503)
    return {"status": "ok", "prefill": state.pair.prefill_url, "decode": state.pair.decode_url}


@routes.get("/pdlab/requests")
async def records(state: Routing) -> dict:
    return {"object": "list", "data": list(state.recent)}


@routes.get("/v1/models")
async def models(state: Routing):
    try:
        r = await state.get("prefill", "/v1/models")
    except WorkerDown as e:
        return error_response(str(e), 503)
    if r.status_code != 200:
        return worker_refusal(r, "prefill", state.pair.prefill_url)
    return JSONResponse(r.json())


@routes.post("/v1/completions")
async def completions(body: CompletionRequest, request: Request, state: Routing):
    return await route(state, body, request, chat=False)


@routes.post("/v1/chat/completions")
async def chat(body: ChatRequest, request: Request, state: Routing):
    return await route(state, body, request, chat=True)


async def route(state: RouterState, body: CompletionRequest | ChatRequest, request: Request, chat: bool):
    """The request's prefill on the prefill worker, then its answer from the decode worker."""
    if state.closing:
        return error_response("The router is stopping: send the request again.", 503)
    body.check(None)  # the fields it refuses; the model is the prefill worker's to check
    arrived, url = time.time(), state.pair.prefill_url
    try:
        r = await state.client.post(
            url + ("/pdlab/prefill/chat" if chat else "/pdlab/prefill"),
            content=body.forwarded(),
            headers={"content-type": "application/json", **state.headers},
        )
        if r.status_code == 200:
            names = ResponseIds(chat, body.model or await state.served_name())
    except (httpx2.HTTPError, WorkerDown) as e:
        why = e if isinstance(e, WorkerDown) else WorkerDown("prefill", url, type(e).__name__)
        return error_response(str(why), 503)
    if r.status_code != 200:
        return worker_refusal(r, "prefill", url)
    try:
        header = HandoffHeader.of(r.content)
    except ValidationError:
        return error_response(f"The prefill worker at {url} answered with no hand-off.", 502)
    reply = Relay(r.content, header, await stop_matcher(body), state.pair.decode_url, state.client, state.headers)
    reply.record.update(id=names.id, arrived=arrived, handoff_bytes=len(r.content), **header.timing)
    texts = kept(reply, state.recent)
    if body.stream:
        events = openai_events(names, texts, reply, body.include_usage)
        return StreamingResponse(events, media_type="text/event-stream")
    return await whole(reply, texts, names, request)


async def whole(reply: Relay, texts: AsyncIterator[str], names: ResponseIds, request: Request) -> Response | dict:
    """The whole answer at its end; a client that leaves first has its request cancelled (closing the
    decode worker's stream frees its slot there)."""
    parts: list[str] = []

    async def collect() -> None:
        async for text in texts:
            parts.append(text)

    reading, gone = asyncio.ensure_future(collect()), asyncio.ensure_future(until_disconnected(request))
    try:
        done, _ = await asyncio.wait({reading, gone}, return_when=asyncio.FIRST_COMPLETED)
        if reading not in done:  # nobody is waiting for the answer: stop computing it
            reading.cancel()
            await asyncio.gather(reading, return_exceptions=True)
            return Response(status_code=499)
        reading.result()
    finally:
        gone.cancel()
    if reply.failure:
        return error_response(reply.failure, reply.failure_status)
    return names.whole("".join(parts), reply.finish_reason, reply.num_prompt_tokens, reply.num_output_tokens)


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
