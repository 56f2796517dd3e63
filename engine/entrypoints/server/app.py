"""The server put together: one Engine stepped by the engine loop, the routes (routes/: OpenAI's
/v1, the lab's /pdlab, /health and /metrics) and the layers every request passes first. A request is
checked before any work (its key and body size in limits.py, its fields in protocol.py, its text in
inputs.py); every error is in OpenAI's shape (errors.py)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI

from engine.core.llm_engine import Engine, EngineConfig
from engine.entrypoints.server import errors
from engine.entrypoints.server.errors import CatchAll
from engine.entrypoints.server.limits import ApiKey, BodyLimit
from engine.entrypoints.server.loop import EngineLoop
from engine.entrypoints.server.prometheus import ServerMetrics
from engine.entrypoints.server.routes import openai_api, ops, pdlab
from engine.entrypoints.server.state import ServerOptions, ServerState


@asynccontextmanager
async def lifespan(app: FastAPI) -> AsyncIterator[None]:
    loop = app.state.server.loop
    loop.start()
    yield
    loop.stop()


def create_app(
    bundle, config: EngineConfig | None = None, served_name: str | None = None, options: ServerOptions | None = None
) -> FastAPI:
    name, options = served_name or bundle.name, options or ServerOptions()
    engine = Engine(bundle.model, bundle.tokenizer, config or EngineConfig(), name=name)
    metrics = ServerMetrics(name, speculative=engine.config.speculative is not None)
    app = FastAPI(title="pdlab engine", lifespan=lifespan)
    app.state.server = ServerState(bundle.tokenizer, engine, EngineLoop(engine, metrics), metrics, name, options)
    errors.install(app)
    for routes in (ops.router, openai_api.router, pdlab.router):
        app.include_router(routes)
    # A decode worker takes a whole prompt's KV: up to the context's worth, plus its JSON header.
    handoff_max = engine.max_model_len * engine.kv_bytes_per_token + 64 * engine.max_model_len + (1 << 20)
    app.add_middleware(BodyLimit, max_bytes=options.max_body_bytes, paths={"/pdlab/decode": handoff_max})
    if options.api_key:
        app.add_middleware(ApiKey, key=options.api_key, handoff=options.handoff_token)
    app.add_middleware(CatchAll)  # added last: the outermost
    return app
