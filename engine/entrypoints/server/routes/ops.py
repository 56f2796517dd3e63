"""What probes and scrapers read, open even when the server has an API key: GET /health and
Prometheus GET /metrics (prometheus.py, in vLLM's names)."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import Response

from engine.entrypoints.server.state import State

router = APIRouter()


@router.get("/health")
async def health() -> dict:
    return {"status": "ok"}


@router.get("/metrics")
async def prometheus(server: State) -> Response:
    return Response(server.metrics.exposition(), media_type="text/plain; version=0.0.4; charset=utf-8")
