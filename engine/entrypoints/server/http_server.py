"""How the server and the router are served: uvicorn on a socket opened beforehand, speaking our
HTTP/1.1 connection (connection.py: read deadlines, JSON 400s), with a stop that has a deadline.

On SIGTERM or SIGINT (or `stop_soon`, from any thread: the engine loop died) the server stops
taking connections, calls `on_stop` (the OpenAI server ends every request in flight with a 503
error there), waits at most SHUTDOWN_GRACE_S for the answers under way to finish, cancels what is
left, and returns; a request that never ends cannot hold the process (uvicorn alone waits for it
as long as it takes)."""

from __future__ import annotations

import socket
from collections.abc import Callable

import uvicorn

from engine.entrypoints.server.connection import GuardedH11Protocol

SHUTDOWN_GRACE_S = 5


class HttpServer(uvicorn.Server):
    def __init__(self, app, on_stop: Callable[[], None] | None = None):
        config = uvicorn.Config(
            app, log_level="warning", http=GuardedH11Protocol, timeout_graceful_shutdown=SHUTDOWN_GRACE_S
        )
        super().__init__(config)
        self.on_stop = on_stop

    def stop_soon(self) -> None:
        """Stop as SIGTERM would; safe from any thread (uvicorn's main loop reads the flag every 0.1 s)."""
        self.should_exit = True

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        if self.on_stop is not None:
            self.on_stop()
        await super().shutdown(sockets)
