"""The commands that serve over HTTP: `serve` (one server, or with --disaggregate a prefill worker
and a decode worker behind a router) and `router` (a router over a running pair). The port is
taken before the model loads, so a taken port is said at once; every mistake the user can fix is
a LabError (one line, exit code 2, from cli.main)."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable

from engine.errors import LabError


def serve(args: argparse.Namespace, progress: Callable[[str, float], None]) -> int:
    """serve: the model behind an OpenAI-compatible server on --host/--port until it is stopped."""
    import uvicorn

    from engine import EngineConfig, load_model
    from engine.core.speculative import SpeculativeConfig
    from engine.entrypoints.server.app import create_app
    from engine.entrypoints.server.state import ServerOptions
    from engine.observe.costmodel import chunk_flops

    if not 0 < args.port < 65536:
        raise LabError(f"--port must be in 1..65535, got {args.port}.")
    if args.max_body_bytes < 1024:
        raise LabError(f"--max-body-bytes must be at least 1024, got {args.max_body_bytes}.")
    speculative = SpeculativeConfig.from_json(args.speculative_config) if args.speculative_config else None
    if args.disaggregate:
        return serve_pair(args)
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
    app = create_app(bundle, config, name, ServerOptions(args.max_body_bytes, args.api_key, args.role))
    print(
        f"serving {name} on http://{args.host}:{args.port} (OpenAI-compatible /v1/completions, "
        f"/v1/chat/completions, /v1/models; /health; Prometheus /metrics)",
        file=sys.stderr,
        flush=True,
    )
    uvicorn.Server(uvicorn.Config(app, log_level="warning")).run(sockets=[sock])
    return 0


def serve_pair(args: argparse.Namespace) -> int:
    """serve --disaggregate: `serve --role prefill` and `serve --role decode` started here on loopback
    ports, each pinned to half of this process's CPUs, and the router in front on --host/--port; the
    workers are stopped by their handles when the router stops."""
    import signal
    from contextlib import ExitStack

    from engine.entrypoints.launch import engine_process
    from engine.paths import cache_dir

    for flag, given in (
        ("--role", args.role != "both"),
        ("--cpus", args.cpus),
        ("--speculative-config", args.speculative_config),
        ("--api-key", args.api_key),  # the router checks no key: refused rather than open
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
    with ExitStack() as stack:
        urls = {}
        for role, mine in sets.items():
            print(f"starting the {role} worker on CPUs {mine} (log: {logs / role}.log)", file=sys.stderr, flush=True)
            flags = ["--role", role, "--cpus", ",".join(map(str, mine)), *own[role], *shared]
            urls[role], _ = stack.enter_context(engine_process(args.model or "bundled", logs / f"{role}.log", *flags))
        # uvicorn raises the signal that stopped it again once it has shut down: ending here by an
        # exception, not by the default handler, lets the workers be stopped on the way out
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
        return _route(urls["prefill"], urls["decode"], args.host, args.port, sock)


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
    if not 0 < args.port < 65536:
        raise LabError(f"--port must be in 1..65535, got {args.port}.")
    for flag, url in (("--prefill-url", args.prefill_url), ("--decode-url", args.decode_url)):
        if not url.startswith(("http://", "https://")):
            raise LabError(f"{flag} must be an http(s) URL, got {url!r}.")
    sock = _listen(args.host, args.port)
    return _route(args.prefill_url.rstrip("/"), args.decode_url.rstrip("/"), args.host, args.port, sock)


def _route(prefill_url: str, decode_url: str, host: str, port: int, sock) -> int:
    """Serve the router over this pair on `sock` (listening on host:port) until it is stopped."""
    import uvicorn

    from engine.entrypoints.router import create_router

    app = create_router(prefill_url, decode_url)
    print(f"routing on http://{host}:{port}: prefill {prefill_url}, decode {decode_url}", file=sys.stderr, flush=True)
    uvicorn.Server(uvicorn.Config(app, log_level="warning")).run(sockets=[sock])
    return 0
