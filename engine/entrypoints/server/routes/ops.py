"""What probes and scrapers read, open even when the server has an API key: GET /health (503 once
the engine loop has stopped or the server is stopping, so a load balancer and a supervisor see it)
and Prometheus GET /metrics (prometheus.py, in vLLM's names)."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import Response

from engine.entrypoints.server.errors import error_response
from engine.entrypoints.server.state import State

router = APIRouter()


@router.get("/health")
async def health(server: State):
    loop = server.loop
    if loop.dead is not None:
        return error_response(f"The engine loop stopped ({loop.dead}); the server is exiting.", 503)
    if not loop.is_serving:
        return error_response("The server is stopping.", 503)
    return {"status": "ok"}


@router.get("/metrics")
async def prometheus(server: State) -> Response:
    return Response(server.metrics.exposition(), media_type="text/plain; version=0.0.4; charset=utf-8")
