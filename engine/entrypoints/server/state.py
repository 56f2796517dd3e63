"""What every route of one server reaches: the engine loop, the metrics, the served name and the
options. create_app keeps one ServerState on `app.state.server`; a route takes it as a parameter
typed `State` (a FastAPI dependency), so the routes are plain module functions, not closures."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Request

from engine.core.llm_engine import Engine
from engine.entrypoints.server.defaults import MAX_BODY_BYTES
from engine.entrypoints.server.limits import max_prompt_chars
from engine.entrypoints.server.loop import EngineLoop
from engine.entrypoints.server.prometheus import ServerMetrics


@dataclass
class ServerOptions:
    max_body_bytes: int = MAX_BODY_BYTES
    api_key: str | None = None
    role: str = "both"  # prefill / decode: a disaggregated worker (POST /pdlab/prefill, /pdlab/decode)
    handoff_token: str | None = None  # a worker's: the secret its router shows on every hand-off


@dataclass
class ServerState:
    tokenizer: object  # the model's: the chat template is applied with it
    engine: Engine
    loop: EngineLoop
    metrics: ServerMetrics
    name: str  # the model id clients see
    options: ServerOptions

    @property
    def max_prompt_chars(self) -> int:
        return max_prompt_chars(self.engine.max_model_len)


def server_state(request: Request) -> ServerState:
    return request.app.state.server


State = Annotated[ServerState, Depends(server_state)]
