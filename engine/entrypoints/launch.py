"""Start `python -m engine serve` in a subprocess on a free loopback port, wait until /health answers,
and stop it by its own handle (never by name). For tests and benches that need a real server, and
for `serve --disaggregate`'s workers.

Workers and routers started here share one hand-off token per launching process (in their
environment, unless the caller's environment already has one), so a pair and its router started
from one process trust each other and nobody else. `die_with_parent` has the Linux kernel send the
child SIGTERM when the thread that started it exits (PR_SET_PDEATHSIG): a worker never outlives a
parent killed outright (SIGKILL). Only for a parent whose starting thread lives as long as it
does (a command's main thread); a thread of an app that ends would take its servers with it."""

from __future__ import annotations

import os
import secrets
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path

from engine.entrypoints.server.defaults import HANDOFF_TOKEN_ENV

ROOT = Path(__file__).resolve().parent.parent.parent
PR_SET_PDEATHSIG = 1  # linux/prctl.h
_TOKEN = secrets.token_urlsafe(32)  # this process's pairs' hand-off token


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def stop(proc: subprocess.Popen) -> None:
    """Stop the server we started, by its own handle."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)


@contextmanager
def engine_server(model: str, log_path: Path, *extra: str, timeout: float = 240.0):
    """Yields the base URL (http://127.0.0.1:PORT) of a running server on `model`."""
    with engine_process(model, log_path, *extra, timeout=timeout) as (url, _):
        yield url


def child_env(env: dict[str, str] | None = None) -> dict[str, str]:
    """This process's environment for a server, with the launching process's hand-off token, and `env` on top."""
    return {HANDOFF_TOKEN_ENV: _TOKEN, **os.environ, **(env or {})}


def _pdeathsig(parent: int):
    """A preexec_fn: SIGTERM this child when its parent's starting thread exits (Linux; elsewhere nothing)."""

    def arm() -> None:
        try:
            import ctypes

            ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
        except (OSError, AttributeError):
            return
        if os.getppid() != parent:  # the parent died before the request took hold
            os._exit(1)

    return arm


@contextmanager
def engine_process(
    model: str,
    log_path: Path,
    *extra: str,
    timeout: float = 240.0,
    env: dict[str, str] | None = None,
    die_with_parent: bool = False,
):
    """Yields (base URL, process) of a running server on `model`: a test may stop it by its handle.
    env: added to the server's environment; die_with_parent: the module's docstring."""
    port = free_port()
    with open(log_path, "w") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "engine", "serve", "--model", model, "--port", str(port), *extra],
            cwd=ROOT,
            stdout=log,
            stderr=subprocess.STDOUT,
            env=child_env(env),
            preexec_fn=_pdeathsig(os.getpid()) if die_with_parent and sys.platform == "linux" else None,
        )
    try:
        wait_for(f"http://127.0.0.1:{port}/health", proc, timeout, log_path)
        yield f"http://127.0.0.1:{port}", proc
    finally:
        stop(proc)


@contextmanager
def router_server(prefill_url: str, decode_url: str, log_path: Path, *extra: str, timeout: float = 60.0):
    """`python -m engine router` over a prefill and a decode worker: yields its base URL."""
    with router_process(prefill_url, decode_url, log_path, *extra, timeout=timeout) as (url, _):
        yield url


@contextmanager
def router_process(prefill_url: str, decode_url: str, log_path: Path, *extra: str, timeout: float = 60.0):
    """Yields (base URL, process) of a running router (`extra`: more of its options)."""
    port = free_port()
    argv = ["router", "--prefill-url", prefill_url, "--decode-url", decode_url, "--port", str(port), *extra]
    with open(log_path, "w") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "engine", *argv], cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, env=child_env()
        )
    try:
        wait_for(f"http://127.0.0.1:{port}/docs", proc, timeout, log_path)  # /health waits for both workers
        yield f"http://127.0.0.1:{port}", proc
    finally:
        stop(proc)


def wait_for(url: str, proc: subprocess.Popen, timeout: float, log_path: Path | None = None) -> None:
    """Poll `url` until it answers 200; fail at once if the process exits (with its log's tail)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            tail = log_path.read_text()[-2000:] if log_path and log_path.is_file() else ""
            raise RuntimeError(f"the server exited with code {proc.returncode}: {tail}")
        try:
            with urllib.request.urlopen(url, timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.3)
    raise TimeoutError(f"the server did not answer {url} within {timeout:.0f} s")
