"""The HTTP routes: OpenAI's /v1/completions and /v1/chat/completions (streamed as server-sent
events, or whole), /v1/models, /health, and Prometheus /metrics. A request is checked before any
work (its key and body size in engine/entrypoints/server/limits.py, its fields in protocol.py) and tokenised off
the event loop, so no request stalls another; every error is in OpenAI's shape (errors.py). A client
that goes away, streaming or not, has its request dropped before the engine's next step."""

from __future__ import annotations

import asyncio
import json
import time
from contextlib import asynccontextmanager
from dataclasses import dataclass

from fastapi import FastAPI, Request
from fastapi.responses import Response, StreamingResponse

from engine.core.kv_transfer import KVHandoff
from engine.core.llm_engine import Engine, EngineConfig, check_utf8
from engine.entrypoints.server import errors
from engine.entrypoints.server.defaults import MAX_BODY_BYTES
from engine.entrypoints.server.errors import ApiError, CatchAll, error_body, error_response
from engine.entrypoints.server.limits import ApiKey, BodyLimit, max_prompt_chars
from engine.entrypoints.server.loop import RECENT_MAX, Accepted, Delta, EngineLoop, Finished, Rejected, Submission
from engine.entrypoints.server.prometheus import ServerMetrics
from engine.entrypoints.server.protocol import ChatRequest, CompletionRequest, ResponseIds
from engine.entrypoints.server.stops import StopMatcher
from engine.errors import LabError

COMPLETION_DEFAULT_MAX_TOKENS = 16  # OpenAI's default for /v1/completions
DISCONNECT_POLL_S = 0.25


@dataclass
class ServerOptions:
    max_body_bytes: int = MAX_BODY_BYTES
    api_key: str | None = None
    role: str = "both"  # prefill / decode: a disaggregated worker (POST /pdlab/prefill, /pdlab/decode)


def create_app(
    bundle, config: EngineConfig | None = None, served_name: str | None = None, options: ServerOptions | None = None
) -> FastAPI:
    name, options = served_name or bundle.name, options or ServerOptions()
    engine = Engine(bundle.model, bundle.tokenizer, config or EngineConfig(), name=name)
    metrics = ServerMetrics(name, speculative=engine.config.speculative is not None)
    loop = EngineLoop(engine, metrics)
    max_chars = max_prompt_chars(engine.max_model_len)

    @asynccontextmanager
    async def lifespan(_app: FastAPI):
        loop.start()
        yield
        loop.stop()

    app = FastAPI(title="pdlab engine", lifespan=lifespan)
    errors.install(app)
    # A decode worker takes a whole prompt's KV: up to the context's worth, plus its JSON header.
    handoff_max = engine.max_model_len * engine.kv_bytes_per_token + 64 * engine.max_model_len + (1 << 20)
    app.add_middleware(BodyLimit, max_bytes=options.max_body_bytes, paths={"/pdlab/decode": handoff_max})
    if options.api_key:
        app.add_middleware(ApiKey, key=options.api_key)
    app.add_middleware(CatchAll)  # added last: the outermost

    @app.get("/health")
    async def health() -> dict:
        return {"status": "ok"}

    @app.get("/v1/models")
    async def models() -> dict:
        card = {"id": name, "object": "model", "created": 0, "owned_by": "pdlab", "max_model_len": engine.max_model_len}
        return {"object": "list", "data": [card]}

    @app.get("/metrics")
    async def prometheus() -> Response:
        return Response(metrics.exposition(), media_type="text/plain; version=0.0.4; charset=utf-8")

    @app.get("/pdlab/requests")
    async def recent() -> dict:
        """Our own extension: the server's timing of its last finished requests (arrival = the
        request parsed; the client's TTFT adds HTTP and its own parsing on top)."""
        return {"object": "list", "data": loop.recent()}

    @app.get("/pdlab/requests/{response_id}")
    async def one_request(response_id: str):
        found = next((r for r in reversed(loop.recent()) if r["id"] == response_id), None)
        if found is None:
            return error_response(f"No finished request {response_id!r} among the last {RECENT_MAX}.", 404)
        return found

    def text_length(text: str, what: str, param: str) -> None:
        try:
            check_utf8(text, what)
        except LabError as e:
            raise ApiError(str(e), 400, param) from None
        if len(text) > max_chars:
            raise ApiError(
                f"{what} has {len(text):,} characters; this server takes at most {max_chars:,} (its context is "
                f"{engine.max_model_len:,} tokens), so it was not tokenised.",
                400,
                param,
            )

    async def completion_input(body: CompletionRequest):
        body.check(name)
        if isinstance(body.prompt, list):
            ids = list(body.prompt)
        else:
            text_length(body.prompt, "The prompt", "prompt")
            ids = await asyncio.to_thread(refusing(engine.encode), body.prompt)
        return ids, refusing(body.sampling)(COMPLETION_DEFAULT_MAX_TOKENS)

    async def chat_input(body: ChatRequest):
        body.check(name)
        messages = [m.as_template_input(i) for i, m in enumerate(body.messages)]
        for i, m in enumerate(messages):
            text_length(m["content"], f"messages[{i}].content", f"messages[{i}].content")
        ids = await asyncio.to_thread(refusing(chat_ids), bundle.tokenizer, messages)
        body.max_tokens = body.max_tokens or body.max_completion_tokens
        return ids, refusing(body.sampling)(max(1, engine.max_model_len - len(ids)))

    @app.post("/v1/completions")
    async def completions(body: CompletionRequest, request: Request):
        ids, params = await completion_input(body)
        return await respond(ResponseIds(False, name), ids, body, params, request)

    @app.post("/v1/chat/completions")
    async def chat(body: ChatRequest, request: Request):
        ids, params = await chat_input(body)
        return await respond(ResponseIds(True, name), ids, body, params, request)

    def worker(role: str) -> None:
        if options.role not in ("both", role):
            raise ApiError(f"This server's role is {options.role}: it does not take /pdlab/{role} requests.", 400)

    @app.post("/pdlab/prefill")
    async def prefill_completion(body: CompletionRequest):
        """A prefill worker: the prompt's prefill and first token; the answer is the KV hand-off
        (engine/core/kv_transfer.py's bytes) for a decode worker."""
        worker("prefill")
        return await hand_off(*(await completion_input(body)))

    @app.post("/pdlab/prefill/chat")
    async def prefill_chat(body: ChatRequest):
        worker("prefill")
        return await hand_off(*(await chat_input(body)))

    async def hand_off(ids: list[int], params) -> Response:
        sub = loop.submit_prefill(ids, params)
        answer = await sub.events.get()
        if isinstance(answer, Rejected):
            return error_response(answer.message, 400)
        data = await asyncio.to_thread(answer.handoff.to_bytes)
        metrics.observe_transfer("sent", len(data))
        return Response(data, media_type="application/octet-stream")

    @app.post("/pdlab/decode")
    async def decode(request: Request):
        """A decode worker: continue from a hand-off. JSON lines: when it arrived and when its blocks
        were given (wall clock), then one per token's text, then the end."""
        worker("decode")
        data = await request.body()
        received = time.time()
        try:
            handoff = KVHandoff.from_bytes(data)
        except LabError as e:
            return error_response(str(e), 400)
        packed = (handoff.timing or {}).get("p_end")
        metrics.observe_transfer("received", len(data), received - packed if packed else None)
        sub = loop.submit_handoff(handoff)
        first = await sub.events.get()
        if isinstance(first, Rejected):
            return error_response(first.message, 400)
        return StreamingResponse(
            decoded(sub, {"received": received, "admitted": first.at}), media_type="application/x-ndjson"
        )

    async def decoded(sub: Submission, admission: dict):
        done = False
        try:
            yield json.dumps(admission) + "\n"  # when the hand-off arrived and when its blocks were given
            while True:
                item = await sub.events.get()
                if isinstance(item, Delta):
                    yield json.dumps({"text": item.text, "token_id": item.token_id}) + "\n"
                    continue
                done = True
                if isinstance(item, Rejected):
                    yield json.dumps({"error": item.message}) + "\n"
                else:
                    yield (
                        json.dumps({"finish_reason": item.finish_reason, "completion_tokens": item.num_output_tokens})
                        + "\n"
                    )
                return
        finally:
            if not done:  # the router went away: free the slot
                loop.cancel(sub)

    async def respond(names: ResponseIds, ids: list[int], body, params, request: Request):
        sub = loop.submit(ids, params, names.id)
        first = await sub.events.get()
        if isinstance(first, Rejected):
            return error_response(first.message, 400)
        assert isinstance(first, Accepted)
        reply = Reply(sub, StopMatcher(body.stops, body.stop_token_ids, body.min_tokens), first.num_prompt_tokens)
        if body.stream:
            return StreamingResponse(stream(reply, names, body.include_usage), media_type="text/event-stream")
        return await whole(reply, names, request)

    async def stream(reply: Reply, names: ResponseIds, include_usage: bool):
        try:
            if names.chat:
                yield sse(names.chunk(role=True))
            async for text in reply.texts():
                yield sse(names.chunk(text))
            if reply.failure:  # the engine failed mid-stream: say so, then end
                yield sse(error_body(reply.failure, 500))
                return
            yield sse(names.chunk(finish=reply.finish_reason))
            if include_usage:
                yield sse(names.usage_chunk(reply.num_prompt_tokens, reply.num_output_tokens))
            yield "data: [DONE]\n\n"
        finally:
            if not reply.done:  # the client went away (or the server is stopping): free the engine's slot
                loop.cancel(reply.sub)

    async def whole(reply: Reply, names: ResponseIds, request: Request):
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
                return error_response(reply.failure, 500)
            return names.whole("".join(parts), reply.finish_reason, reply.num_prompt_tokens, reply.num_output_tokens)
        finally:
            gone.cancel()
            if not reply.done:
                loop.cancel(reply.sub)

    async def collect(reply: Reply, parts: list[str]) -> None:
        async for text in reply.texts():
            parts.append(text)

    app.state.engine_loop = loop
    return app


@dataclass
class Reply:
    """One request's answer as it arrives: its text with stop strings applied, and how it ended."""

    sub: Submission
    stops: StopMatcher
    num_prompt_tokens: int
    num_output_tokens: int = 0
    finish_reason: str = ""
    failure: str | None = None
    done: bool = False

    async def texts(self):
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
                self.failure = item.message
                return
            assert isinstance(item, Finished)
            rest = self.stops.flush()
            if rest:
                yield rest
            self.finish_reason, self.num_output_tokens = item.finish_reason, item.num_output_tokens
            return


async def until_disconnected(request: Request) -> None:
    while not await request.is_disconnected():
        await asyncio.sleep(DISCONNECT_POLL_S)


def refusing(fn):
    """fn, with the engine's ValueError (a bad request, in its own words) raised as a 400."""

    def call(*args):
        try:
            return fn(*args)
        except LabError as e:
            raise ApiError(str(e)) from None

    return call


def sse(payload: dict) -> str:
    return f"data: {json.dumps(payload, ensure_ascii=False)}\n\n"


def chat_ids(tokenizer, messages: list[dict]) -> list[int]:
    if not getattr(tokenizer, "chat_template", None):
        raise LabError("This model has no chat template: use /v1/completions.")
    text = tokenizer.apply_chat_template(messages, add_generation_prompt=True, tokenize=False)
    return tokenizer(text, add_special_tokens=False).input_ids
