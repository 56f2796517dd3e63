"""Command line: `python -m engine generate --prompt TEXT ...`, `python -m engine serve` (an
OpenAI-compatible server; serve_commands.py), `python -m engine router` and `python -m engine
prepare`; installed with the package (`pip install -e .`) the same command is `pdlab`. The options
`generate` and `serve` share (the model and how it is stored) are declared once, as a parent parser."""

from __future__ import annotations

import argparse
import json
import os
import sys
from dataclasses import replace

from engine.entrypoints.server.defaults import API_KEY_ENV, HANDOFF_TOKEN_ENV, MAX_BODY_BYTES
from engine.errors import LabError

SERVE_STEP_TOKENS = 256  # prefill chunks of 256 tokens: ~0.35 s a step on 2 cores, no stream waits 1 s


def _parser() -> argparse.ArgumentParser:
    prog = "pdlab" if sys.argv[0].endswith("pdlab") else "python -m engine"  # as the user typed it
    p = argparse.ArgumentParser(
        prog=prog, description="A KV-cached inference engine that shows its prefill and decode phases."
    )
    sub = p.add_subparsers(dest="command", required=True)
    sub.add_parser("prepare", help="convert the bundled model once (de-quantise the GGUF to safetensors)")
    model = _model_options()
    g = sub.add_parser(
        "generate", parents=[model], help="generate from a prompt, streaming tokens tagged with their phase"
    )
    _generate_options(g)
    v = sub.add_parser(
        "serve", parents=[model], help="serve the engine over an OpenAI-compatible HTTP API, with Prometheus /metrics"
    )
    _serve_options(v)
    _router_options(sub.add_parser("router", help="an OpenAI-compatible router over one prefill and one decode worker"))
    for command in sub.choices.values():
        command.add_argument("--debug", action="store_true", help="print the traceback of an unexpected error")
    return p


def _model_options() -> argparse.ArgumentParser:
    """The options `generate` and `serve` share (argparse's parents=): which model, where, and how its
    weights and KV cache are stored."""
    from engine.config import DTYPES  # these load torch: main() is already listening for Ctrl-C
    from engine.layers.kv_cache import KV_DTYPES
    from engine.layers.quant import WEIGHT_FORMATS

    shared = argparse.ArgumentParser(add_help=False)
    g = shared.add_argument_group("the model")
    g.add_argument("--model", default=None, help="a local folder, a hub id (online only), or 'bundled' (default)")
    g.add_argument(
        "--dtype",
        default="auto",
        help=f"auto (default), or one of {', '.join(DTYPES)} (or fp32/bf16/fp16). auto: float32; with --weights "
        "int8, the activation dtype measured fastest here (bfloat16 where the CPU computes in it natively)",
    )
    g.add_argument("--device", default="cpu", help="cpu, cuda or auto")
    g.add_argument(
        "--weights",
        choices=WEIGHT_FORMATS,
        default="native",
        help="native (the dtype's own), int8 (weight-only), w8a8 (int8 weights and activations) or gguf (the "
        "bundled GGUF's own 4-bit blocks: float32's numbers on the C kernels, 5 bits a weight instead of 32)",
    )
    g.add_argument("--kv-dtype", choices=KV_DTYPES, default="auto", help="how the KV cache stores K and V")
    return shared


def _generate_options(g: argparse.ArgumentParser) -> None:
    g.add_argument("--prompt", required=True)
    g.add_argument("--max-new-tokens", type=int, default=32)
    g.add_argument("--no-kv-cache", action="store_true", help="recompute the whole context every step")
    g.add_argument("--attention", choices=["eager", "sdpa"], default="sdpa")
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


def _serve_options(v: argparse.ArgumentParser) -> None:
    v.add_argument("--host", default="127.0.0.1", help="127.0.0.1 (default) serves this machine only")
    v.add_argument("--port", type=int, default=8000)
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
    _limit_options(v)
    v.add_argument("--prefix-caching", action="store_true", help="reuse the KV of prompt prefixes seen before")
    _serve_worker_options(v)


def _limit_options(v: argparse.ArgumentParser) -> None:
    """What `serve` and `router` check before any work: the body's size, the API key, and the pair's
    hand-off token (secrets default to the environment: a command line is visible to `ps`)."""
    v.add_argument(
        "--max-body-bytes",
        type=int,
        default=MAX_BODY_BYTES,
        help=f"refuse request bodies larger than this, before reading them (default {MAX_BODY_BYTES >> 20} MiB)",
    )
    v.add_argument(
        "--api-key",
        default=os.environ.get(API_KEY_ENV) or None,
        help=f"require 'Authorization: Bearer <key>' on every route but /health and /metrics (default: ${API_KEY_ENV})",
    )
    v.add_argument(
        "--handoff-token",
        default=os.environ.get(HANDOFF_TOKEN_ENV) or None,
        help=f"a disaggregated pair's shared secret: workers take hand-offs only from a router that shows it "
        f"(default: ${HANDOFF_TOKEN_ENV}; serve --disaggregate makes its own)",
    )


def _serve_worker_options(v: argparse.ArgumentParser) -> None:
    """serve's options for disaggregation, speculative decoding and the name clients see."""
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


def _router_options(r: argparse.ArgumentParser) -> None:
    r.add_argument("--prefill-url", required=True, help="a `serve --role prefill` worker, e.g. http://127.0.0.1:8001")
    r.add_argument("--decode-url", required=True, help="a `serve --role decode` worker on the same model")
    r.add_argument("--host", default="127.0.0.1")
    r.add_argument("--port", type=int, default=8000)
    _limit_options(r)


def _progress(stage: str, fraction: float) -> None:
    print(f"[{fraction:4.0%}] {stage}", file=sys.stderr)


def generate(args: argparse.Namespace) -> dict | None:
    from jinja2 import TemplateError

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
    try:
        engine.add_request(args.prompt, params, chat=args.chat)
    except TemplateError as e:  # the model's own template refused (its raise_exception) or broke
        raise LabError(f"The model's chat template failed on this prompt ({type(e).__name__}: {e}).") from None
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
        return _as_json(bundle, engine, request)
    tpot = f"{m.tpot_ms:.1f} ms" if m.tpot_ms is not None else "n/a (one token)"
    print(
        f"\n{request.text}\n\nprompt {len(request.prompt_token_ids)} tokens, generated {m.num_output_tokens} "
        f"({request.finish_reason}); TTFT {m.ttft_ms:.1f} ms, TPOT {tpot}, E2E {m.e2e_ms:.1f} ms"
    )
    return None


def _as_json(bundle, engine, request) -> dict:
    """generate --json: the run as one object (tokens, text, metrics, and each step's shapes and sizes)."""
    m = request.metrics
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


def measure_memory(engine, request, params, config) -> None:
    """The second pass: the same tokens again with the probe on; its peaks go on the timed steps."""
    from engine.core.memory_pass import copy_memory, decode_drafts, replay_engine

    drafts = decode_drafts(engine.trace.steps) if config.speculative else None
    replay = replay_engine(engine, request.prompt_token_ids, request.output_token_ids, params, config, drafts)
    for _ in replay.stream():
        pass
    copy_memory(engine.trace.steps, replay.trace.steps)


def run(args: argparse.Namespace) -> int:
    if args.command == "serve":
        from engine.entrypoints.serve_commands import serve

        return serve(args, _progress)
    if args.command == "router":
        from engine.entrypoints.serve_commands import router

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
