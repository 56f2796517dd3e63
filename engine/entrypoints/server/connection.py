"""The HTTP/1.1 connection the server and the router speak: uvicorn's h11 protocol with two rules of
ours on top.

- Read deadlines. A request's headers must arrive whole within HEADER_TIMEOUT_S of the connection
  (or of a new request's first byte on a kept-alive one), and its body must keep coming, with no gap
  over BODY_IDLE_S. A client that stalls is answered 408 and dropped: uvicorn alone waits for it
  forever, so connections left half-sent (slowloris) would pile up.
- A request that is not HTTP/1.1 at all (a negative Content-Length, a garbled request line) gets
  its 400 in OpenAI's JSON shape, as every other error, instead of uvicorn's text/plain.

A client that half-closes its side (shutdown(SHUT_WR)) is taken as gone, as uvicorn and nginx
take it: TCP cannot tell that from a closed socket until a write fails, and a whole (non-streamed)
request whose client closed must be cancelled, not computed for nobody."""

from __future__ import annotations

import asyncio
import json

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from engine.entrypoints.server.errors import error_body

HEADER_TIMEOUT_S = 10.0
BODY_IDLE_S = 10.0
NOT_HTTP = (
    "This request is not valid HTTP/1.1: its request line or headers cannot be read (a negative or "
    "malformed Content-Length, say)."
)


class GuardedH11Protocol(H11Protocol):
    """uvicorn's HTTP/1.1 connection with read deadlines and JSON 400s (the module's docstring)."""

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._read_timer: asyncio.TimerHandle | None = None
        self._waiting_for = ""
        self._watch()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        self._watch()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._watch()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def send_400_response(self, msg: str) -> None:
        self._answer(400, NOT_HTTP)
        self.transport.close()

    def _watch(self) -> None:
        """Arm, keep or drop the read deadline for what the connection waits for now."""
        if self.transport.is_closing():
            self._disarm()
        elif self.conn.their_state is h11.SEND_BODY:
            self._arm("body", BODY_IDLE_S, restart=True)  # a gap between pieces, not the whole body
        elif self.conn.their_state is h11.IDLE and (self.cycle is None or self.conn.trailing_data[0]):
            self._arm("headers", HEADER_TIMEOUT_S, restart=False)  # the whole head, from its first byte
        else:  # a request read whole (its answer is the app's), or a kept-alive idle one (uvicorn's timer)
            self._disarm()

    def _arm(self, what: str, seconds: float, restart: bool) -> None:
        if self._read_timer is not None:
            if self._waiting_for == what and not restart:
                return
            self._read_timer.cancel()
        self._waiting_for = what
        self._read_timer = self.loop.call_later(seconds, self._too_slow)

    def _disarm(self) -> None:
        if getattr(self, "_read_timer", None) is not None:
            self._read_timer.cancel()
            self._read_timer = None

    def _too_slow(self) -> None:
        self._read_timer = None
        if self.transport.is_closing():
            return
        if self._waiting_for == "body" and self.flow.read_paused:  # we stopped reading (the app is behind),
            self._arm("body", BODY_IDLE_S, restart=True)  # not the client: no fault of its
            return
        if self._waiting_for == "headers":
            self._answer(408, f"The request's headers did not arrive within {HEADER_TIMEOUT_S:g} s.")
        elif self.cycle is not None and not self.cycle.response_started:
            self._answer(408, f"The request's body stopped arriving for {BODY_IDLE_S:g} s.")
        self.transport.close()  # the app, waiting for the body, hears the client has gone

    def _answer(self, status: int, message: str) -> None:
        """A whole JSON error, written as bytes: outside any request the app sees."""
        body = json.dumps(error_body(message, status)).encode()
        reason = {400: b"Bad Request", 408: b"Request Timeout"}[status]
        head = b"HTTP/1.1 %d %s\r\ncontent-type: application/json\r\ncontent-length: %d\r\nconnection: close\r\n\r\n"
        self.transport.write(head % (status, reason, len(body)) + body)
