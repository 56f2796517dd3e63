"""Command line: `python -m engine generate --prompt TEXT ...`, `python -m engine serve` (an
OpenAI-compatible server) and `python -m engine prepare`; installed with the package
(`pip install -e .`) the same command is `pdlab`."""

from __future__ import annotations

import argparse
import json
import os
import sys
from dataclasses import replace

from engine.entrypoints.server.defaults import MAX_BODY_BYTES
from engine.errors import LabError

API_KEY_ENV = "PDLAB_API_KEY"
SERVE_STEP_TOKENS = 512  # a long prompt is prefilled 512 tokens a step, so running decodes step between chunks


def _parser() -> argparse.ArgumentParser:
    from engine.config import DTYPES  # these load torch: main() is already listening for Ctrl-C
    from engine.layers.kv_cache import KV_DTYPES
    from engine.layers.quant import WEIGHT_FORMATS

    DTYPE_HELP = (  # noqa: N806 - one help for both commands
        f"auto (default), or one of {', '.join(DTYPES)} (or fp32/bf16/fp16). auto: float32; with --weights "
        "int8, the activation dtype measured fastest here (bfloat16 where the CPU computes in it natively)"
    )
    WEIGHTS_HELP = (  # noqa: N806
        "native (the dtype's own), int8 (weight-only), w8a8 (int8 weights and activations) or gguf (the "
        "bundled GGUF's own 4-bit blocks: float32's numbers on the C kernels, 5 bits a weight instead of 32)"
    )
    prog = "pdlab" if sys.argv[0].endswith("pdlab") else "python -m engine"  # as the user typed it
    p = argparse.ArgumentParser(
        prog=prog, description="A KV-cached inference engine that shows its prefill and decode phases."
    )
    sub = p.add_subparsers(dest="command", required=True)
    sub.add_parser("prepare", help="convert the bundled model once (de-quantise the GGUF to safetensors)")
    g = sub.add_parser("generate", help="generate from a prompt, streaming tokens tagged with their phase")
    g.add_argument("--prompt", required=True)
    g.add_argument("--model", default=None, help="a local folder, a hub id (online only), or 'bundled' (default)")
    g.add_argument("--max-new-tokens", type=int, default=32)
    g.add_argument("--no-kv-cache", action="store_true", help="recompute the whole context every step")
    g.add_argument("--attention", choices=["eager", "sdpa"], default="sdpa")
    g.add_argument("--dtype", default="auto", help=DTYPE_HELP)
    g.add_argument("--device", default="cpu", help="cpu, cuda or auto")
    g.add_argument(
        "--weights",
        choices=WEIGHT_FORMATS,
        default="native",
        help=WEIGHTS_HELP,
    )
    g.add_argument("--kv-dtype", choices=KV_DTYPES, default="auto", help="how the KV cache stores K and V")
    g.add_argument("--seed", type=int, default=None)
    g.add_argument("--temperature", type=float, default=0.0, help="0 (the default) is greedy")
    g.add_argument("--top-k", type=int, default=0)
    g.add_argument("--top-p", type=float, default=1.0)
    g.add_argument("--chat", action="store_true", help="apply the model's chat template")
    g.add_argument("--json", action="store_true", help="print one JSON object instead of streaming")
    g.add_argument(
        "--probe-memory",
        action="store_true",
        help="measure each step's peak memory on a second, "
        "untimed pass over the same tokens (the timings never include the probe)",
    )
    v = sub.add_parser("serve", help="serve the engine over an OpenAI-compatible HTTP API, with Prometheus /metrics")
    v.add_argument("--model", default=None, help="a local folder, a hub id (online only), or 'bundled' (default)")
    v.add_argument("--host", default="127.0.0.1", help="127.0.0.1 (default) serves this machine only")
    v.add_argument("--port", type=int, default=8000)
    v.add_argument("--dtype", default="auto", help=DTYPE_HELP)
    v.add_argument("--device", default="cpu", help="cpu, cuda or auto")
    v.add_argument(
        "--weights",
        choices=WEIGHT_FORMATS,
        default="native",
        help=WEIGHTS_HELP,
    )
    v.add_argument("--kv-dtype", choices=KV_DTYPES, default="auto", help="how the KV cache stores K and V")
    v.add_argument("--max-num-seqs", type=int, default=16, help="requests decoded together in one step")
    v.add_argument(
        "--max-num-batched-tokens",
        type=int,
        default=SERVE_STEP_TOKENS,
        help=f"token budget of one step (default {SERVE_STEP_TOKENS}: a long prompt's chunks leave room for decodes)",
    )
    v.add_argument(
        "--chunked-prefill",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="split long prompts over several steps, beside the running decodes (on by default, as in vLLM)",
    )
    v.add_argument(
        "--max-body-bytes",
        type=int,
        default=MAX_BODY_BYTES,
        help=f"refuse request bodies larger than this, before reading them (default {MAX_BODY_BYTES >> 20} MiB)",
    )
    v.add_argument(
        "--api-key",
        default=os.environ.get(API_KEY_ENV) or None,
        help=f"require 'Authorization: Bearer <key>' on /v1 (default: ${API_KEY_ENV}; /health and /metrics stay open)",
    )
    v.add_argument("--prefix-caching", action="store_true", help="reuse the KV of prompt prefixes seen before")
    v.add_argument(
        "--cpus",
        default=None,
        help="pin the server to these CPUs, e.g. 0 or 0,1 (one torch thread each): a disaggregated pair on "
        "one machine gives each worker its own cores",
    )
    v.add_argument(
        "--role",
        choices=["both", "prefill", "decode"],
        default="both",
        help="a disaggregated worker: prefill answers POST /pdlab/prefill with a KV hand-off, decode continues "
        "one on POST /pdlab/decode; put `python -m engine router` in front of a pair (default: both, one server)",
    )
    v.add_argument(
        "--disaggregate",
        action="store_true",
        help="start a prefill worker and a decode worker on loopback, each pinned to half of this process's "
        "CPUs, and serve the router in front of them on --host/--port (the workers stop with it)",
    )
    v.add_argument(
        "--speculative-config",
        default=None,
        help='speculative decoding, as vLLM takes it: \'{"method": "ngram", "num_speculative_tokens": 4, '
        '"prompt_lookup_max": 3}\' (prompt lookup), or \'{"method": "draft_model", "model": "bundled", '
        '"quantization": "int8", "num_speculative_tokens": 4}\' (a draft model with the same tokenizer); '
        "vLLM's spec-decode counters on /metrics",
    )
    v.add_argument(
        "--served-model-name",
        default=None,
        help="the model id clients see (default: the model's name; a local folder's own name, never its path)",
    )
    r = sub.add_parser("router", help="an OpenAI-compatible router over one prefill and one decode worker")
    r.add_argument("--prefill-url", required=True, help="a `serve --role prefill` worker, e.g. http://127.0.0.1:8001")
    r.add_argument("--decode-url", required=True, help="a `serve --role decode` worker on the same model")
    r.add_argument("--host", default="127.0.0.1")
    r.add_argument("--port", type=int, default=8000)
    for sp in (g, sub.choices["prepare"], v, r):
        sp.add_argument("--debug", action="store_true", help="print the traceback of an unexpected error")
    return p


def _progress(stage: str, fraction: float) -> None:
    print(f"[{fraction:4.0%}] {stage}", file=sys.stderr)


def generate(args: argparse.Namespace) -> dict | None:
    from engine import Engine, EngineConfig, SamplingParams, load_model

    params = SamplingParams(
        max_new_tokens=args.max_new_tokens,
        temperature=args.temperature,
        top_k=args.top_k,
        top_p=args.top_p,
        seed=args.seed,
    )
    config = EngineConfig(
        attention=args.attention, kv_cache=not args.no_kv_cache, probe_memory=False, kv_dtype=args.kv_dtype
    )
    bundle = load_model(
        args.model,
        dtype=args.dtype,
        device=args.device,
        weights=args.weights,
        progress=(lambda *a: None) if args.json else _progress,
    )
    engine = Engine(bundle.model, bundle.tokenizer, config, name=bundle.name)
    engine.add_request(args.prompt, params, chat=args.chat)
    color = {"prefill": "\033[1;35m", "decode": "\033[1;36m"} if sys.stdout.isatty() else {}
    reset = "\033[0m" if color else ""
    for event in engine.stream():
        if args.json:
            continue
        for tok in event.tokens:
            print(f"{color.get(tok.phase, '')}[{tok.phase} step {tok.step}]{reset} {tok.text!r}", flush=True)
    request = engine.trace.requests[0]
    if args.probe_memory:
        measure_memory(engine, request, params, replace(config, probe_memory=True))
    m = request.metrics
    if args.json:
        return {
            "model": bundle.name,
            "dtype": str(bundle.model.dtype).removeprefix("torch."),
            "weights": bundle.model.weight_format,
            "prompt_tokens": request.prompt_token_ids,
            "output_tokens": request.output_token_ids,
            "text": request.text,
            "metrics": {"ttft_ms": m.ttft_ms, "tpot_ms": m.tpot_ms, "itl_ms": m.itl_ms, "e2e_ms": m.e2e_ms},
            "steps": [
                {
                    "phase": s.phase,
                    "num_tokens": s.num_tokens,
                    "kv_tokens": s.kv_tokens,
                    "kv_bytes": s.kv_bytes,
                    "score_shape": s.seqs[0].shapes.scores,
                    "ms": s.ms,
                    "peak_bytes": s.peak_bytes,
                }
                for s in engine.trace.steps
            ],
        }
    tpot = f"{m.tpot_ms:.1f} ms" if m.tpot_ms is not None else "n/a (one token)"
    print(
        f"\n{request.text}\n\nprompt {len(request.prompt_token_ids)} tokens, generated {m.num_output_tokens} "
        f"({request.finish_reason}); TTFT {m.ttft_ms:.1f} ms, TPOT {tpot}, E2E {m.e2e_ms:.1f} ms"
    )
    return None


def measure_memory(engine, request, params, config) -> None:
    """The second pass: the same tokens again with the probe on; its peaks go on the timed steps."""
    from engine.core.memory_pass import copy_memory, decode_drafts, replay_engine

    drafts = decode_drafts(engine.trace.steps) if config.speculative else None
    replay = replay_engine(engine, request.prompt_token_ids, request.output_token_ids, params, config, drafts)
    for _ in replay.stream():
        pass
    copy_memory(engine.trace.steps, replay.trace.steps)


def serve(args: argparse.Namespace) -> int:
    import uvicorn

    from engine import EngineConfig, load_model
    from engine.core.speculative import SpeculativeConfig
    from engine.entrypoints.server.app import ServerOptions, create_app

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
    bundle = load_model(args.model, dtype=args.dtype, device=args.device, weights=args.weights, progress=_progress)
    if speculative is not None:
        from engine.core.draft_model import with_draft_model

        def load_draft(spec: str, weights: str):
            return load_model(spec, dtype=args.dtype, device=args.device, weights=weights, progress=_progress)

        speculative = with_draft_model(speculative, bundle.tokenizer, load_draft)
    config = EngineConfig(
        probe_memory=False,
        max_num_seqs=args.max_num_seqs,
        kv_dtype=args.kv_dtype,
        max_num_batched_tokens=args.max_num_batched_tokens,
        chunked_prefill=args.chunked_prefill,
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


def run(args: argparse.Namespace) -> int:
    if args.command == "serve":
        return serve(args)
    if args.command == "router":
        return router(args)
    if args.command == "prepare":
        from engine.loader.model_loader import convert_bundled

        print(convert_bundled(_progress))
        return 0
    result = generate(args)
    if result is not None:
        print(json.dumps(result, ensure_ascii=False))
    return 0


def main(argv: list[str] | None = None) -> int:
    """Errors the user can fix (LabError) are one line and exit code 2; anything else is one line
    and code 1 (--debug shows the traceback); a closed pipe and Ctrl-C end quietly."""
    for name in ("stdout", "stderr"):  # started with the stream closed (`>&-`): Python gives None
        if getattr(sys, name) is None:
            setattr(sys, name, open(os.devnull, "w"))  # noqa: SIM115 - for the life of the process
    try:
        args = _parser().parse_args(argv)  # loads torch, a second or more
    except KeyboardInterrupt:
        return 130
    try:
        return run(args)
    except LabError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # `... | head -1`: the reader has what it wanted
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no second error at exit's flush
        return 0
    except KeyboardInterrupt:
        return 130
    except Exception as e:  # noqa: BLE001 - one line, never a traceback, unless asked for
        if args.debug:
            raise
        print(f"error: {type(e).__name__}: {e} (run with --debug for the traceback)", file=sys.stderr)
        return 1
