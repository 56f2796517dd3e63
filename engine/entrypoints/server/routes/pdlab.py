"""The lab's own routes under /pdlab. GET /pdlab/requests: the server's timing of its last finished
requests (arrival = the request parsed; the client's TTFT adds HTTP and its own parsing on top).
POST /pdlab/prefill (and /pdlab/prefill/chat) on a prefill worker: the prompt's prefill and first
token, answered with its KV hand-off; POST /pdlab/decode on a decode worker: continue from one,
answered in JSON lines (worker_protocol.py). A worker refuses the other role's route by name."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator

from fastapi import APIRouter, Request
from fastapi.responses import Response, StreamingResponse

from engine.core.kv_transfer import KVHandoff
from engine.entrypoints.server.errors import ApiError, error_response
from engine.entrypoints.server.inputs import chat_input, completion_input
from engine.entrypoints.server.loop import RECENT_MAX, Delta, Rejected, Submission
from engine.entrypoints.server.protocol import ChatRequest, CompletionRequest
from engine.entrypoints.server.state import ServerState, State
from engine.entrypoints.server.worker_protocol import Admitted, Failure, Finish, Token, encode_line
from engine.errors import LabError
from engine.sampling_params import SamplingParams

router = APIRouter()


@router.get("/pdlab/requests")
async def recent(server: State) -> dict:
    return {"object": "list", "data": server.loop.recent()}


@router.get("/pdlab/requests/{response_id}")
async def one_request(response_id: str, server: State):
    found = next((r for r in reversed(server.loop.recent()) if r["id"] == response_id), None)
    if found is None:
        return error_response(f"No finished request {response_id!r} among the last {RECENT_MAX}.", 404)
    return found


@router.post("/pdlab/prefill")
async def prefill_completion(body: CompletionRequest, server: State):
    """A prefill worker: the prompt's prefill and first token; the answer is the KV hand-off
    (engine/core/kv_transfer.py's bytes) for a decode worker."""
    takes_role(server, "prefill")
    return await hand_off(server, *(await completion_input(server, body)))


@router.post("/pdlab/prefill/chat")
async def prefill_chat(body: ChatRequest, server: State):
    takes_role(server, "prefill")
    return await hand_off(server, *(await chat_input(server, body)))


@router.post("/pdlab/decode")
async def decode(request: Request, server: State):
    """A decode worker: continue from a hand-off, answered in JSON lines: when it arrived and when
    its blocks were given (wall clock), then one per token's text, then the end."""
    takes_role(server, "decode")
    data = await request.body()
    received = time.time()
    try:
        handoff = KVHandoff.from_bytes(data)
    except LabError as e:
        return error_response(str(e), 400)
    packed = (handoff.timing or {}).get("p_end")
    server.metrics.observe_transfer("received", len(data), received - packed if packed else None)
    sub = server.loop.submit_handoff(handoff)
    first = await sub.events.get()
    if isinstance(first, Rejected):
        return error_response(first.message, 400)
    admission = Admitted(received=received, admitted=first.at)
    return StreamingResponse(decoded(server, sub, admission), media_type="application/x-ndjson")


def takes_role(server: ServerState, role: str) -> None:
    if server.options.role not in ("both", role):
        raise ApiError(f"This server's role is {server.options.role}: it does not take /pdlab/{role} requests.", 400)


async def hand_off(server: ServerState, ids: list[int], params: SamplingParams) -> Response:
    sub = server.loop.submit_prefill(ids, params)
    answer = await sub.events.get()
    if isinstance(answer, Rejected):
        return error_response(answer.message, 400)
    data = await asyncio.to_thread(answer.handoff.to_bytes)
    server.metrics.observe_transfer("sent", len(data))
    return Response(data, media_type="application/octet-stream")


async def decoded(server: ServerState, sub: Submission, admission: Admitted) -> AsyncIterator[str]:
    done = False
    try:
        yield encode_line(admission)
        while True:
            item = await sub.events.get()
            if isinstance(item, Delta):
                yield encode_line(Token(text=item.text, token_id=item.token_id))
                continue
            done = True
            if isinstance(item, Rejected):
                yield encode_line(Failure(message=item.message))
            else:
                yield encode_line(Finish(finish_reason=item.finish_reason, completion_tokens=item.num_output_tokens))
            return
    finally:
        if not done:  # the router went away: free the slot
            server.loop.cancel(sub)
