"""What a request must pass before any work is done on it: the API key (when the server has one)
and the body's size. Both are ASGI middleware, so a refused request is answered before its body is
read: a 10 MB body is a 413 at once, not 10 MB parsed and tokenised while every stream waits."""

from __future__ import annotations

import hmac

from engine.entrypoints.server.errors import BodyTooLarge, error_body, send_json, too_large

CHARS_PER_TOKEN_MAX = 32  # a prompt longer than this many characters per context token cannot fit


def max_prompt_chars(max_model_len: int) -> int:
    """Text longer than this cannot fit the context whatever it holds (no token of a BPE vocabulary
    covers more characters than this on average), so it is refused before tokenising."""
    return max_model_len * CHARS_PER_TOKEN_MAX


class BodyLimit:
    """Refuse a body over `max_bytes` (or its path's own limit in `paths`): by its Content-Length before
    reading it, or while it streams."""

    def __init__(self, app, max_bytes: int, paths: dict[str, int] | None = None):
        self.app, self.default, self.paths = app, max_bytes, paths or {}

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        limit = self.paths.get(scope.get("path", ""), self.default)  # a KV hand-off is far larger than a prompt
        length = dict(scope.get("headers") or []).get(b"content-length")
        if length is not None and length.isdigit() and int(length) > limit:
            return await send_json(send, 413, error_body(too_large(f"{int(length):,} bytes", limit), 413))
        seen, started = 0, False

        async def counted():
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > limit:
                    raise BodyTooLarge(limit)
            return message

        async def noting(message):
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, counted, noting)
        except BodyTooLarge:  # read outside a route; inside one, errors.install answers it
            if not started:
                await send_json(send, 413, error_body(too_large(f"over {limit:,} bytes", limit), 413))


class ApiKey:
    """With a key, every /v1 request needs `Authorization: Bearer <key>` (vLLM's rule: /health and
    /metrics stay open, for probes and scrapers)."""

    def __init__(self, app, key: str):
        self.app, self.key = app, key.encode()

    async def __call__(self, scope, receive, send):
        if scope["type"] == "http" and scope.get("path", "").startswith("/v1"):
            auth = dict(scope.get("headers") or []).get(b"authorization", b"")
            scheme, _, given = auth.partition(b" ")
            if scheme.lower() != b"bearer" or not hmac.compare_digest(given.strip(), self.key):
                body = error_body(
                    "Missing or wrong API key: send it as 'Authorization: Bearer <key>'.", 401, code="invalid_api_key"
                )
                return await send_json(send, 401, body)
        return await self.app(scope, receive, send)
