"""The four server processes of the three set-ups (lab/disaggregation.py), started on the loaded model
at the first run and kept for the next ones, shared by every session; started again when the model
or the chunk budget changes or a server stopped answering, and stopped by their own handles (the
page's button, or when the app exits)."""

from __future__ import annotations

import atexit
import threading
import urllib.request
from contextlib import ExitStack

import streamlit as st

from engine.paths import cache_dir
from lab.disaggregation import Servers, served_model, start_setups


class SetupServers:
    def __init__(self) -> None:
        self._stack: ExitStack | None = None
        self._key: tuple[str, int] | None = None
        self.servers: Servers | None = None
        self.model = ""  # the name the servers answer to
        self.lock = threading.Lock()  # one session starts, stops or runs them at a time

    def running(self, spec: str, chunk: int) -> bool:
        return self.servers is not None and self._key == (spec, chunk) and self._all_answer()

    def _all_answer(self) -> bool:
        for url in self.servers.urls.values():
            try:
                with urllib.request.urlopen(f"{url}/health", timeout=5) as r:
                    if r.status != 200:
                        return False
            except OSError:
                return False
        return True

    def ensure(self, spec: str, chunk: int) -> Servers:
        """The servers for this model and budget: these if they run and answer, else started anew."""
        if self.running(spec, chunk):
            return self.servers
        self.stop()
        stack = ExitStack()
        try:
            servers = start_setups(stack, spec, chunk, cache_dir() / "disaggregation-logs")
            self.model = served_model(servers.urls["whole"])
        except BaseException:
            stack.close()
            raise
        self._stack, self._key, self.servers = stack, (spec, chunk), servers
        return servers

    def stop(self) -> None:
        if self._stack is not None:
            self._stack.close()
        self._stack, self._key, self.servers = None, None, None


@st.cache_resource(show_spinner=False)
def setup_servers() -> SetupServers:
    servers = SetupServers()
    atexit.register(servers.stop)
    return servers
