"""Every error the server answers, in OpenAI's shape: {"error": {"message", "type", "param", "code"}},
with the HTTP status OpenAI's clients map to their error classes (400 BadRequestError, 401
AuthenticationError, 404 NotFoundError, 413, 500 InternalServerError; every 5xx is typed
`server_error`, so a client retries it rather than fixing its request). FastAPI's own errors (an
unknown path, a wrong method, an unreadable body) are put in that shape here, and an unexpected
exception is logged with its traceback and answered 500 with the request's id, never as text. The
server and the router both install these (`install`, `CatchAll`)."""

from __future__ import annotations

import json
import logging
import uuid

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect

log = logging.getLogger("pdlab.server")

KINDS = {
    400: "invalid_request_error",
    401: "authentication_error",
    404: "not_found_error",
    405: "invalid_request_error",
    413: "invalid_request_error",
}
SERVER_PATHS = "/v1/completions, /v1/chat/completions, /v1/models, /health and /metrics"


class BodyTooLarge(Exception):
    """A body that grew past the server's limit while it was read (args: the limit in bytes)."""


class ApiError(Exception):
    """A request this server refuses: raised anywhere in a route, answered in OpenAI's shape."""

    def __init__(self, message: str, status: int = 400, param: str | None = None, code: str | int | None = None):
        super().__init__(message)
        self.message, self.status, self.param = message, status, param
        self.code = code if code is not None else status


def too_large(size: str, max_bytes: int) -> str:
    return f"The request body is {size}; this server takes at most {max_bytes:,} bytes (--max-body-bytes)."


def error_body(message: str, status: int = 400, param: str | None = None, code: str | int | None = None) -> dict:
    kind = "server_error" if status >= 500 else KINDS.get(status, "invalid_request_error")
    return {"error": {"message": message, "type": kind, "param": param, "code": code if code is not None else status}}


def error_response(message: str, status: int = 400, param: str | None = None, code=None) -> JSONResponse:
    return JSONResponse(error_body(message, status, param, code), status)


def install(app: FastAPI, paths: str = SERVER_PATHS) -> None:
    """Answer FastAPI's own errors and ApiError in OpenAI's shape (`paths`: what a 404 says is here)."""

    @app.exception_handler(ApiError)
    async def refused(_request: Request, exc: ApiError) -> JSONResponse:
        return error_response(exc.message, exc.status, exc.param, exc.code)

    @app.exception_handler(RequestValidationError)
    async def bad_body(_request: Request, exc: RequestValidationError) -> JSONResponse:
        first = exc.errors()[0] if exc.errors() else {"loc": (), "msg": "invalid request", "type": ""}
        if first.get("type") == "json_invalid":
            return error_response(f"The body is not valid JSON: {first.get('ctx', {}).get('error', first['msg'])}.")
        where = ".".join(str(p) for p in first.get("loc", ()) if p != "body")
        message = f"{where}: {first.get('msg')}" if where else str(first.get("msg"))
        return error_response(message, 400, where or None)

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, exc: HTTPException) -> JSONResponse:
        if isinstance(exc.__cause__, BodyTooLarge):  # FastAPI wraps what reading the body raised
            limit = exc.__cause__.args[0]
            return error_response(too_large(f"over {limit:,} bytes", limit), 413)
        if exc.status_code == 404:
            message = f"There is no {request.url.path}: this server has {paths}."
        elif exc.status_code == 405:
            message = f"{request.method} is not allowed on {request.url.path}."
        else:
            message = str(exc.detail)
        return error_response(message, exc.status_code)


class CatchAll:
    """The outermost layer: gives each request an id (the x-request-id header), and turns an
    unexpected exception into a logged traceback and a 500 in OpenAI's shape."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        request_id = f"req-{uuid.uuid4().hex[:16]}"
        started = False

        async def send_with_id(message):
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                message.setdefault("headers", [])
                message["headers"] = [*message["headers"], (b"x-request-id", request_id.encode())]
            await send(message)

        try:
            await self.app(scope, receive, send_with_id)
        except ClientDisconnect:  # the client left (or was dropped as too slow) while its body was read
            log.info(
                "request %s (%s %s): the client left before its body arrived",
                request_id,
                scope.get("method"),
                scope.get("path"),
            )
        except Exception:  # noqa: BLE001 - every unexpected error: logged whole, answered in shape
            log.exception("request %s (%s %s) failed", request_id, scope.get("method"), scope.get("path"))
            if not started:
                message = f"The server failed on this request (request id {request_id}); its log has the details."
                await send_json(send, 500, error_body(message, 500), request_id)


async def send_json(send, status: int, body: dict, request_id: str | None = None) -> None:
    """A whole JSON response, from ASGI middleware (before any route runs)."""
    data = json.dumps(body).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(data)).encode())]
    if request_id:
        headers.append((b"x-request-id", request_id.encode()))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": data})
