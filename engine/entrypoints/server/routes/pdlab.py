"""The lab's own routes under /pdlab. GET /pdlab/requests: the server's timing of its last finished
requests (arrival = the request parsed; the client's TTFT adds HTTP and its own parsing on top).
POST /pdlab/prefill (and /pdlab/prefill/chat) on a prefill worker: the prompt's prefill and first
token, answered with its KV hand-off; POST /pdlab/decode on a decode worker: continue from one,
answered in JSON lines (worker_protocol.py). A worker refuses the other role's route by name, and
takes a hand-off only from its router: the request must carry the pair's hand-off token (a secret
made when the pair starts), so nobody else posts one straight to a worker's port."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator

from fastapi import APIRouter, Depends, Request
from fastapi.responses import Response, StreamingResponse

from engine.core.kv_transfer import KVHandoff
from engine.entrypoints.server.errors import ApiError, error_response
from engine.entrypoints.server.inputs import chat_input, completion_input
from engine.entrypoints.server.limits import HANDOFF_HEADER, same_secret
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


def from_router(role: str):
    """The hand-off routes' guard, before the body is used: this worker's role, then its router's token."""

    def check(request: Request, server: State) -> None:
        takes_role(server, role)
        token = server.options.handoff_token
        if token is None:
            raise ApiError(
                "This server takes no hand-offs: a worker is started with --role prefill or decode and the "
                "hand-off token its router shows (--handoff-token).",
                400,
            )
        if not same_secret(request.headers.get(HANDOFF_HEADER.decode(), "").encode(), token):
            raise ApiError(
                "This worker takes hand-offs only from its router: the request lacks the pair's hand-off token.",
                401,
                code="invalid_handoff_token",
            )

    return Depends(check)


@router.post("/pdlab/prefill", dependencies=[from_router("prefill")])
async def prefill_completion(body: CompletionRequest, server: State):
    """A prefill worker: the prompt's prefill and first token; the answer is the KV hand-off
    (engine/core/kv_transfer.py's bytes) for a decode worker."""
    return await hand_off(server, *(await completion_input(server, body)))


@router.post("/pdlab/prefill/chat", dependencies=[from_router("prefill")])
async def prefill_chat(body: ChatRequest, server: State):
    return await hand_off(server, *(await chat_input(server, body)))


@router.post("/pdlab/decode", dependencies=[from_router("decode")])
async def decode(request: Request, server: State):
    """A decode worker: continue from a hand-off, answered in JSON lines: when it arrived and when
    its blocks were given (wall clock), then one per token's text, then the end."""
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
        return error_response(first.message, first.status)
    admission = Admitted(received=received, admitted=first.at)
    return StreamingResponse(decoded(server, sub, admission), media_type="application/x-ndjson")


def takes_role(server: ServerState, role: str) -> None:
    if server.options.role not in ("both", role):
        raise ApiError(f"This server's role is {server.options.role}: it does not take /pdlab/{role} requests.", 400)


async def hand_off(server: ServerState, ids: list[int], params: SamplingParams) -> Response:
    sub = server.loop.submit_prefill(ids, params)
    answer = await sub.events.get()
    if isinstance(answer, Rejected):
        return error_response(answer.message, answer.status)
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
