"""OpenAI's routes: POST /v1/completions and /v1/chat/completions (streamed as server-sent events,
or whole) and GET /v1/models. A body's fields are checked by protocol.py, its text by inputs.py,
and the answer comes from the engine loop through reply.py."""

from __future__ import annotations

from fastapi import APIRouter, Request

from engine.entrypoints.server.inputs import chat_input, completion_input
from engine.entrypoints.server.protocol import ChatRequest, CompletionRequest, ResponseIds
from engine.entrypoints.server.reply import respond
from engine.entrypoints.server.state import State

router = APIRouter()


@router.get("/v1/models")
async def models(server: State) -> dict:
    card = {
        "id": server.name,
        "object": "model",
        "created": 0,
        "owned_by": "pdlab",
        "max_model_len": server.engine.max_model_len,
    }
    return {"object": "list", "data": [card]}


@router.post("/v1/completions")
async def completions(body: CompletionRequest, request: Request, server: State):
    ids, params = await completion_input(server, body)
    return await respond(server.loop, ResponseIds(False, server.name), ids, body, params, request)


@router.post("/v1/chat/completions")
async def chat(body: ChatRequest, request: Request, server: State):
    ids, params = await chat_input(server, body)
    return await respond(server.loop, ResponseIds(True, server.name), ids, body, params, request)
