"""The commands that serve over HTTP: `serve` (one server, or with --disaggregate a prefill worker
and a decode worker behind a router) and `router` (a router over a running pair). The port is
taken before the model loads, so a taken port is said at once; every mistake the user can fix is
a LabError (one line, exit code 2, from cli.main). A server whose engine loop dies exits with code
1 (one line), so a supervisor restarts it; SIGTERM stops either within a deadline
(server/http_server.py)."""

from __future__ import annotations

import argparse
import os
import secrets
import sys
from collections.abc import Callable

from engine.entrypoints.server.defaults import API_KEY_ENV, HANDOFF_TOKEN_ENV
from engine.errors import LabError

STOPPING = "The server is shutting down: this request was stopped before its end; send it again."


def serve(args: argparse.Namespace, progress: Callable[[str, float], None]) -> int:
    """serve: the model behind an OpenAI-compatible server on --host/--port until it is stopped."""
    from engine import EngineConfig, load_model
    from engine.core.speculative import SpeculativeConfig
    from engine.entrypoints.server.app import create_app
    from engine.entrypoints.server.state import ServerOptions
    from engine.observe.costmodel import chunk_flops

    _check_port_and_body(args)
    speculative = SpeculativeConfig.from_json(args.speculative_config) if args.speculative_config else None
    if args.disaggregate:
        return serve_pair(args)
    if args.role != "both" and not args.handoff_token:
        raise LabError(
            f"--role {args.role} takes hand-offs only from its router: give it the pair's --handoff-token "
            f"(or ${HANDOFF_TOKEN_ENV}), the one the router is started with."
        )
    if args.cpus is not None:
        _pin(args.cpus)
    sock = _listen(args.host, args.port)  # before the model loads: a taken port is said at once
    bundle = load_model(args.model, dtype=args.dtype, device=args.device, weights=args.weights, progress=progress)
    if speculative is not None:
        from engine.core.draft_model import with_draft_model

        def load_draft(spec: str, weights: str):
            return load_model(spec, dtype=args.dtype, device=args.device, weights=weights, progress=progress)

        speculative = with_draft_model(speculative, bundle.tokenizer, load_draft)
    config = EngineConfig(
        probe_memory=False,
        max_num_seqs=args.max_num_seqs,
        kv_dtype=args.kv_dtype,
        max_num_batched_tokens=args.max_num_batched_tokens,
        chunked_prefill=args.chunked_prefill,
        # a chunk deep into a long prompt attends to all before it: its work, not its tokens, is capped at
        # a fresh prompt's max_num_batched_tokens, so running streams wait no longer late in a long prefill
        max_step_flops=chunk_flops(bundle.model.config, args.max_num_batched_tokens, 0)
        if args.chunked_prefill
        else None,
        prefix_caching=args.prefix_caching,
        speculative=speculative,
    )
    name = args.served_model_name or (bundle.path.name if bundle.source == "local" else bundle.name)
    options = ServerOptions(args.max_body_bytes, args.api_key, args.role, args.handoff_token)
    app = create_app(bundle, config, name, options)
    print(
        f"serving {name} on http://{args.host}:{args.port} (OpenAI-compatible /v1/completions, "
        f"/v1/chat/completions, /v1/models; /health; Prometheus /metrics)",
        file=sys.stderr,
        flush=True,
    )
    return _run_server(app, sock)


def _run_server(app, sock) -> int:
    """Serve until stopped; 1 (said in one line) when the engine loop died, so a supervisor restarts it."""
    from engine.entrypoints.server.http_server import HttpServer

    loop = app.state.server.loop
    server = HttpServer(app, on_stop=lambda: loop.close(STOPPING))
    loop.on_death = server.stop_soon
    server.run(sockets=[sock])
    if loop.dead is not None:
        print(
            f"error: the engine loop stopped ({loop.dead}; the log above has the traceback); the server exited "
            "so that it can be restarted",
            file=sys.stderr,
        )
        return 1
    return 0


def _check_port_and_body(args: argparse.Namespace) -> None:
    if not 0 < args.port < 65536:
        raise LabError(f"--port must be in 1..65535, got {args.port}.")
    if args.max_body_bytes < 1024:
        raise LabError(f"--max-body-bytes must be at least 1024, got {args.max_body_bytes}.")


def serve_pair(args: argparse.Namespace) -> int:
    """serve --disaggregate: `serve --role prefill` and `serve --role decode` started here on loopback
    ports, each pinned to half of this process's CPUs, and the router in front on --host/--port; the
    workers are stopped by their handles when the router stops."""
    import signal
    from contextlib import ExitStack

    from engine.entrypoints.launch import engine_process
    from engine.entrypoints.router import Pair
    from engine.paths import cache_dir

    for flag, given in (
        ("--role", args.role != "both"),
        ("--cpus", args.cpus),
        ("--speculative-config", args.speculative_config),
    ):
        if given:
            raise LabError(f"--disaggregate starts its own workers behind a router: it takes no {flag}.")
    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) < 2:
        raise LabError("--disaggregate gives each worker its own CPUs: this process may run on one only.")
    half = len(cpus) // 2
    sets = {"prefill": cpus[:half], "decode": cpus[half:]}
    sock = _listen(args.host, args.port)
    shared = ["--dtype", args.dtype, "--device", args.device, "--weights", args.weights, "--kv-dtype", args.kv_dtype]
    shared += ["--max-num-seqs", str(args.max_num_seqs), "--max-body-bytes", str(args.max_body_bytes)]
    if args.served_model_name:
        shared += ["--served-model-name", args.served_model_name]
    own = {"prefill": ["--no-chunked-prefill"], "decode": []}  # a prefill worker runs one prompt at a time, whole
    logs = cache_dir() / "disaggregate-logs"
    logs.mkdir(parents=True, exist_ok=True)
    # The pair's secrets go by environment, not argv (which `ps` shows): a fresh hand-off token, and
    # the API key, which the workers' /v1 and /pdlab routes ask for too.
    secrets_env = {HANDOFF_TOKEN_ENV: secrets.token_urlsafe(32), API_KEY_ENV: args.api_key or ""}
    with ExitStack() as stack:
        urls = {}
        for role, mine in sets.items():
            print(f"starting the {role} worker on CPUs {mine} (log: {logs / role}.log)", file=sys.stderr, flush=True)
            flags = ["--role", role, "--cpus", ",".join(map(str, mine)), *own[role], *shared]
            started = engine_process(
                args.model or "bundled", logs / f"{role}.log", *flags, env=secrets_env, die_with_parent=True
            )
            urls[role], _ = stack.enter_context(started)
        # uvicorn raises the signal that stopped it again once it has shut down: ending here by an
        # exception, not by the default handler, lets the workers be stopped on the way out
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
        pair = Pair(urls["prefill"], urls["decode"], secrets_env[HANDOFF_TOKEN_ENV], args.api_key, args.max_body_bytes)
        return _route(pair, args.host, args.port, sock)


def _pin(text: str) -> None:
    """Run on these CPUs only, one torch thread each (Linux: sched_setaffinity)."""
    import torch

    try:
        cpus = {int(c) for c in text.split(",") if c.strip()}
    except ValueError:
        raise LabError(f"--cpus takes CPU numbers separated by commas, e.g. 0 or 0,1; got {text!r}.") from None
    have = os.sched_getaffinity(0)
    if not cpus or not cpus <= have:
        raise LabError(f"--cpus {text}: this process may run on CPUs {sorted(have)}.")
    os.sched_setaffinity(0, cpus)
    torch.set_num_threads(len(cpus))


def _listen(host: str, port: int):
    import socket

    try:
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(2048)
    except OSError as e:
        raise LabError(f"Cannot listen on {host}:{port}: {e.strerror or e} (is another server there?).") from None
    return sock


def router(args: argparse.Namespace) -> int:
    from engine.entrypoints.router import Pair

    _check_port_and_body(args)
    for flag, url in (("--prefill-url", args.prefill_url), ("--decode-url", args.decode_url)):
        if not url.startswith(("http://", "https://")):
            raise LabError(f"{flag} must be an http(s) URL, got {url!r}.")
    if not args.handoff_token:
        raise LabError(
            f"The router shows its workers the pair's hand-off token: give it --handoff-token (or "
            f"${HANDOFF_TOKEN_ENV}), the one the workers were started with."
        )
    sock = _listen(args.host, args.port)
    pair = Pair(
        args.prefill_url.rstrip("/"), args.decode_url.rstrip("/"), args.handoff_token, args.api_key, args.max_body_bytes
    )
    return _route(pair, args.host, args.port, sock)


def _route(pair, host: str, port: int, sock) -> int:
    """Serve the router over this pair on `sock` (listening on host:port) until it is stopped."""
    from engine.entrypoints.router import create_router
    from engine.entrypoints.server.http_server import HttpServer

    app = create_router(pair)
    print(
        f"routing on http://{host}:{port}: prefill {pair.prefill_url}, decode {pair.decode_url}",
        file=sys.stderr,
        flush=True,
    )
    HttpServer(app, on_stop=app.state.router.close).run(sockets=[sock])
    return 0
