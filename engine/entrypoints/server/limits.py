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


# Open with a key: what probes and scrapers read (health, and /metrics' counts and histograms, which
# name no request and no text), and FastAPI's description of the API, which holds no data.
OPEN_PATHS = frozenset({"/health", "/metrics", "/docs", "/docs/oauth2-redirect", "/redoc", "/openapi.json"})
HANDOFF_HEADER = b"x-pdlab-handoff-token"  # a router's credential to its workers (defaults.HANDOFF_TOKEN_ENV)


def same_secret(given: bytes, secret: str | None) -> bool:
    """`given` is `secret`, compared in constant time (no secret: nothing matches)."""
    return secret is not None and hmac.compare_digest(given, secret.encode())


def handoff_token(scope) -> bytes:
    return dict(scope.get("headers") or []).get(HANDOFF_HEADER, b"")


class ApiKey:
    """With a key, every request but OPEN_PATHS needs `Authorization: Bearer <key>`: the routes that
    compute (/v1, a worker's /pdlab hand-offs) and those that reveal requests (/pdlab/requests).
    A worker's router may show its hand-off token instead (it is the one client the worker trusts)."""

    def __init__(self, app, key: str, handoff: str | None = None):
        self.app, self.key, self.handoff = app, key, handoff

    async def __call__(self, scope, receive, send):
        if scope["type"] == "http" and scope.get("path", "") not in OPEN_PATHS:
            auth = dict(scope.get("headers") or []).get(b"authorization", b"")
            scheme, _, given = auth.partition(b" ")
            keyed = scheme.lower() == b"bearer" and same_secret(given.strip(), self.key)
            if not (keyed or same_secret(handoff_token(scope), self.handoff)):
                body = error_body(
                    "Missing or wrong API key: send it as 'Authorization: Bearer <key>'.", 401, code="invalid_api_key"
                )
                return await send_json(send, 401, body)
        return await self.app(scope, receive, send)
