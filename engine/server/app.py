"""The HTTP routes: OpenAI's /v1/completions and /v1/chat/completions (streamed as server-sent
events, or whole), /v1/models, /health, and Prometheus /metrics. A request the engine refuses is a
400 with the engine's own message in OpenAI's error shape; a client that goes away mid-stream has
its request dropped before the engine's next step."""

from __future__ import annotations

import json
from contextlib import asynccontextmanager

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response, StreamingResponse

from engine.llm_engine import Engine, EngineConfig
from engine.server.loop import RECENT_MAX, Accepted, Delta, EngineLoop, Finished, Rejected, Submission
from engine.server.metrics import ServerMetrics
from engine.server.protocol import ChatRequest, CompletionRequest, ResponseIds, error_body

COMPLETION_DEFAULT_MAX_TOKENS = 16  # OpenAI's default for /v1/completions


def create_app(bundle, config: EngineConfig | None = None, served_name: str | None = None) -> FastAPI:
    name = served_name or bundle.name
    engine = Engine(bundle.model, bundle.tokenizer, config or EngineConfig(), name=name)
    metrics = ServerMetrics(name)
    loop = EngineLoop(engine, metrics)

    @asynccontextmanager
    async def lifespan(_app: FastAPI):
        loop.start()
        yield
        loop.stop()

    app = FastAPI(title="pdlab engine", lifespan=lifespan)

    @app.exception_handler(RequestValidationError)
    async def bad_body(_request: Request, exc: RequestValidationError) -> JSONResponse:
        first = exc.errors()[0] if exc.errors() else {"loc": (), "msg": "invalid request"}
        where = ".".join(str(p) for p in first.get("loc", ()) if p != "body")
        return JSONResponse(error_body(f"{where}: {first.get('msg')}" if where else str(first.get("msg"))), 400)

    @app.get("/health")
    async def health() -> dict:
        return {"status": "ok"}

    @app.get("/v1/models")
    async def models() -> dict:
        return {
            "object": "list",
            "data": [
                {
                    "id": name,
                    "object": "model",
                    "created": 0,
                    "owned_by": "pdlab",
                    "max_model_len": engine.max_model_len,
                }
            ],
        }

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
            return JSONResponse(
                error_body(f"No finished request {response_id!r} among the last {RECENT_MAX}.", "not_found_error", 404),
                404,
            )
        return found

    @app.post("/v1/completions")
    async def completions(body: CompletionRequest):
        try:
            ids = list(body.prompt) if isinstance(body.prompt, list) else engine.encode(body.prompt)
            params = body.sampling(COMPLETION_DEFAULT_MAX_TOKENS)
        except ValueError as e:
            return JSONResponse(error_body(str(e)), 400)
        return await respond(ResponseIds(False, name), ids, body, params)

    @app.post("/v1/chat/completions")
    async def chat(body: ChatRequest):
        try:
            ids = chat_ids(bundle.tokenizer, [m.model_dump() for m in body.messages])
            body.max_tokens = body.max_tokens or body.max_completion_tokens
            params = body.sampling(max(1, engine.max_model_len - len(ids)))
        except ValueError as e:
            return JSONResponse(error_body(str(e)), 400)
        return await respond(ResponseIds(True, name), ids, body, params)

    async def respond(names: ResponseIds, ids: list[int], body, params):
        sub = loop.submit(ids, params, names.id)
        first = await sub.events.get()
        if isinstance(first, Rejected):
            return JSONResponse(error_body(first.message), 400)
        assert isinstance(first, Accepted)
        if body.stream:
            return StreamingResponse(stream(sub, names, body.include_usage), media_type="text/event-stream")
        return await whole(sub, names)

    async def stream(sub: Submission, names: ResponseIds, include_usage: bool):
        done = False
        try:
            if names.chat:
                yield sse(names.chunk(role=True))
            while True:
                item = await sub.events.get()
                if isinstance(item, Delta):
                    if item.text:
                        yield sse(names.chunk(item.text))
                    continue
                if isinstance(item, Rejected):  # the engine failed mid-stream: say so, then end
                    done = True
                    yield sse(error_body(item.message, "server_error", 500))
                    return
                assert isinstance(item, Finished)
                done = True
                yield sse(names.chunk(finish=item.finish_reason))
                if include_usage:
                    yield sse(names.usage_chunk(item.num_prompt_tokens, item.num_output_tokens))
                yield "data: [DONE]\n\n"
                return
        finally:
            if not done:  # the client went away (or the server is stopping): free the engine's slot
                loop.cancel(sub)

    async def whole(sub: Submission, names: ResponseIds):
        parts = []
        try:
            while True:
                item = await sub.events.get()
                if isinstance(item, Delta):
                    parts.append(item.text)
                    continue
                if isinstance(item, Rejected):
                    return JSONResponse(error_body(item.message, "server_error", 500), 500)
                return names.whole("".join(parts), item.finish_reason, item.num_prompt_tokens, item.num_output_tokens)
        except BaseException:
            loop.cancel(sub)
            raise

    app.state.engine_loop = loop
    return app


def sse(payload: dict) -> str:
    return f"data: {json.dumps(payload, ensure_ascii=False)}\n\n"


def chat_ids(tokenizer, messages: list[dict]) -> list[int]:
    if not getattr(tokenizer, "chat_template", None):
        raise ValueError("This model has no chat template: use /v1/completions.")
    text = tokenizer.apply_chat_template(messages, add_generation_prompt=True, tokenize=False)
    return tokenizer(text, add_special_tokens=False).input_ids
