"""Our engine beside the engines a CPU user would pick instead, on the same weights, in one interleaved
run: Hugging Face `transformers` and llama.cpp (llama-cpp-python, the optional `peers` extra).

    .venv/bin/python bench/peers.py [--threads 1 2] [--lengths 16 256] [--new-tokens 64] [--repeats 5]

Weights: the bundled GGUF (Q4_1). Ours and HF run it de-quantised to float32; ours also with int8
weights (activations in the dtype measured fastest here, `--dtype auto`) and on the file's own Q4_1
blocks as stored (`--weights gguf`: the float32 numbers, 5 bits a weight read). llama.cpp runs an F32 copy
(the same float32 numbers as ours) and a Q8_0 copy, both made from the bundled file by llama.cpp's own
quantiser and cached, and the Q4_1 file as it is. For each thread count, prompt length L and
system: the prefill (TTFT) and the TPOT of `--new-tokens` greedy tokens, EOS ignored, medians of the
repeats, the systems taking turns; greedy agreement of ours (float32) with llama.cpp F32, token for
token. Without llama-cpp-python its rows are skipped, and the output says so.

Each llama.cpp system runs in a process of its own (`PeerProcess`): llama-cpp-python built with
-march=native has died with SIGILL on its Q8_0 and Q4_1 paths on a VM whose CPU advertises more
than it runs. A system that dies is named with the signal in the output and in its table rows (so
in the record), and the other rows still land.
"""

from __future__ import annotations

import argparse
import ctypes
import importlib.metadata
import importlib.util
import json
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench.decode import hf  # noqa: E402
from bench.decode_parts import ours, prompt_ids  # noqa: E402
from bench.record import recorded  # noqa: E402
from engine import Engine, EngineConfig, SamplingParams, load_model  # noqa: E402
from engine.loader.model_loader import bundled_gguf_path, convert_bundled
from engine.observe.costmodel import layer_weight_bytes  # noqa: E402
from engine.paths import cache_dir  # noqa: E402

INSTALL = ".venv/bin/pip install -e '.[peers]' (builds llama.cpp from source: ~25 min on 2 cores)"
GGUF_NAME = "ours, Q4_1 as stored (gguf)"
COPIES = {"F32": 0, "Q8_0": 7}  # llama.cpp's LLAMA_FTYPE_ALL_F32, LLAMA_FTYPE_MOSTLY_Q8_0
PEER_FLAG = "--peer"  # peers.py --peer NAME THREADS N_CTX NEW_TOKENS: one llama.cpp system's own process


def gguf_copy(llama_cpp, name: str) -> Path:
    """The bundled Q4_1 file, or an F32 or Q8_0 copy made by llama.cpp's quantiser (cached)."""
    source = bundled_gguf_path()
    if name == "Q4_1":
        return source
    folder = cache_dir() / "peers"
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / f"{source.stem.removesuffix('.Q4_1')}.{name}.gguf"
    if not target.is_file():
        params = llama_cpp.llama_model_quantize_default_params()
        params.ftype, params.allow_requantize = COPIES[name], True  # from Q4_1: F32 is its exact de-quantisation
        partial = target.with_suffix(".partial")
        if llama_cpp.llama_model_quantize(str(source).encode(), str(partial).encode(), ctypes.byref(params)):
            raise RuntimeError(f"llama.cpp could not write {name} from {source}")
        partial.rename(target)
    return target


def llama_run(llm, ids: list[int], new_tokens: int) -> tuple[float, float, list[int]]:
    """(prefill ms, TPOT ms, greedy tokens) of llama.cpp, EOS ignored: the argmax of the last logits
    its context computed (read through its C API: the Python object keeps them only with logits_all)."""
    import llama_cpp
    import numpy as np

    def argmax() -> int:
        logits = llama_cpp.llama_get_logits_ith(llm.ctx, -1)
        return int(np.argmax(np.ctypeslib.as_array(logits, shape=(llm.n_vocab(),))))

    llm.reset()
    start = time.perf_counter()
    llm.eval(ids)
    times = [time.perf_counter()]
    tokens = [argmax()]
    for _ in range(new_tokens - 1):
        llm.eval([tokens[-1]])
        times.append(time.perf_counter())
        tokens.append(argmax())
    return (times[0] - start) * 1e3, (times[-1] - times[0]) * 1e3 / (len(times) - 1), tokens


def greedy_ours(bundle, ids: list[int], new_tokens: int) -> list[int]:
    engine = Engine(bundle.model, bundle.tokenizer, EngineConfig(probe_memory=False, trace=False))
    params = SamplingParams(max_new_tokens=new_tokens, ignore_eos=True)
    return engine.generate(ids, params).requests[-1].output_token_ids


def agreement(a: list[int], b: list[int]) -> str:
    same = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    return f"{same} of {min(len(a), len(b))}"


# --- each llama.cpp system in a process of its own ----------------------------------------------------
class PeerCrashed(Exception):
    """A system's process died: `how` names the signal ("SIGILL (signal 4)") or the exit code."""

    def __init__(self, name: str, how: str):
        super().__init__(f"{name}: its process died with {how}")
        self.name, self.how = name, how


def died_how(returncode: int | None) -> str:
    if returncode is not None and returncode < 0:
        number = -returncode
        try:
            return f"{signal.Signals(number).name} (signal {number})"
        except ValueError:
            return f"signal {number}"
    return f"exit code {returncode}"


class PeerProcess:
    """One system in a child process, asked one line of JSON at a time ({"op": "time" | "greedy",
    "ids": [...]}) and answering one line; the child says "ready" once loaded. llama.cpp built with
    -march=native dies with SIGILL on some VMs' Q8_0 and Q4_1 paths: here that ends its own rows."""

    def __init__(self, name: str, argv: list[str]):
        self.name = name
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
        self._answer()  # "ready", or the crash of its loading

    def _answer(self):
        line = self.proc.stdout.readline()
        if not line:
            raise PeerCrashed(self.name, died_how(self.proc.wait()))
        return json.loads(line)

    def call(self, op: str, ids: list[int]):
        try:
            self.proc.stdin.write(json.dumps({"op": op, "ids": ids}) + "\n")
        except BrokenPipeError:
            raise PeerCrashed(self.name, died_how(self.proc.wait())) from None
        return self._answer()

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.stdin.close()
            self.proc.wait(30)


def peer_argv(name: str, threads: int, n_ctx: int, new_tokens: int) -> list[str]:
    return [sys.executable, __file__, PEER_FLAG, name, str(threads), str(n_ctx), str(new_tokens)]


def serve_peer(name: str, threads: int, n_ctx: int, new_tokens: int) -> None:
    """The child's side: load llama.cpp's `name` copy, say ready, answer until stdin closes."""
    import llama_cpp

    path = gguf_copy(llama_cpp, name)
    # n_threads_batch too: llama-cpp-python would run prompts on every core otherwise
    llm = llama_cpp.Llama(
        str(path), n_ctx=n_ctx, n_threads=threads, n_threads_batch=threads, n_batch=512, verbose=False
    )
    print(json.dumps("ready"), flush=True)
    for line in sys.stdin:
        ask = json.loads(line)
        prefill, tpot, tokens = llama_run(llm, ask["ids"], new_tokens)
        print(json.dumps([prefill, tpot] if ask["op"] == "time" else tokens), flush=True)


def time_systems(systems: dict, prompts: dict[int, list[int]], repeats: int) -> tuple[dict, dict[str, str]]:
    """A warm-up each (kernels chosen, caches filled), then `repeats` rounds with the systems in turn:
    every (system, L)'s (prefill ms, TPOT ms). A system whose process dies is named with how, and the
    others go on."""
    crashed: dict[str, str] = {}
    times = {(s, L): [] for s in systems for L in prompts}

    def run(name: str, ids: list[int]):
        if name in crashed:
            return None
        try:
            return systems[name](ids)
        except PeerCrashed as e:
            crashed[name] = e.how
            print(f"# {name} crashed: its process died with {e.how}; its rows say so, the others go on", flush=True)
            return None

    for ids in prompts.values():
        for name in systems:
            run(name, ids)
    for _ in range(repeats):
        for L, ids in prompts.items():
            for name in systems:
                got = run(name, ids)
                if got is not None:
                    times[(name, L)].append(got)
    return times, crashed


def print_times(systems: dict, lengths: list[int], times: dict, crashed: dict[str, str]) -> dict:
    """The table of medians, a crashed system's row saying how it died; the medians it printed."""
    header = " | ".join(f"prefill L={L} | TPOT after {L}" for L in lengths)
    print(f"| ms | {header} |")
    print("|---" * (1 + 2 * len(lengths)) + "|")
    med = {k: tuple(statistics.median(v[i] for v in t) for i in (0, 1)) for k, t in times.items() if t}
    for name in systems:
        if name in crashed:
            cells = " | ".join([f"crashed: {crashed[name]}"] * 2 * len(lengths))
        else:
            cells = " | ".join(f"{med[(name, L)][0]:.1f} | {med[(name, L)][1]:.1f}" for L in lengths)
        print(f"| {name} | {cells} |")
    print()
    return med


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--lengths", type=int, nargs="+", default=[16, 256])
    ap.add_argument("--new-tokens", type=int, default=64)
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    have_llama = importlib.util.find_spec("llama_cpp") is not None  # never loaded here: each child loads it
    if not have_llama:
        print(f"# llama.cpp: llama-cpp-python is not installed, so its rows are skipped; {INSTALL}")
    else:
        version = importlib.metadata.version("llama-cpp-python")
        print(f"# llama.cpp: llama-cpp-python {version}, each system in its own process, same thread count")
    from transformers import AutoModelForCausalLM

    fp32, int8 = load_model(dtype="float32"), load_model(dtype="auto", weights="int8")
    gguf = load_model(weights="gguf")
    int8_name = f"ours, int8 weights + {str(int8.model.dtype).removeprefix('torch.')} activations"
    hf_model = AutoModelForCausalLM.from_pretrained(convert_bundled(), dtype=torch.float32).eval()
    pad = fp32.tokenizer.eos_token_id
    prompts = {L: prompt_ids(fp32.tokenizer, L) for L in args.lengths}
    n = args.new_tokens
    print(f"# greedy, batch 1, {n} new tokens, EOS ignored, median of {args.repeats}, systems in turn\n")
    for threads in args.threads:
        torch.set_num_threads(threads)
        systems = {
            "ours, float32": lambda ids: ours(fp32, ids, n),
            int8_name: lambda ids: ours(int8, ids, n),
            GGUF_NAME: lambda ids: ours(gguf, ids, n),
            "HF transformers, float32": lambda ids: hf(hf_model, ids, n, pad),
        }
        peers, crashed = start_peers(have_llama, threads, max(args.lengths) + n + 8, n)
        for name, peer in peers.items():
            systems[f"llama.cpp {name}"] = lambda ids, p=peer: tuple(p.call("time", ids))
        for name, how in crashed.items():
            systems[f"llama.cpp {name}"] = lambda ids, name=name, how=how: _raise(PeerCrashed(name, how))
        times, died = time_systems(systems, prompts, args.repeats)
        print(f"## {threads} thread{'s' if threads > 1 else ''}\n")
        med = print_times(systems, args.lengths, times, died)
        same = all(greedy_ours(gguf, ids, n) == greedy_ours(fp32, ids, n) for ids in prompts.values())
        print(
            f"Greedy tokens, ours on the Q4_1 blocks as stored against ours float32: {'the same' if same else 'DIFFERENT'}.\n"
        )
        if peers or crashed:
            print_against_llama(fp32, int8_name, prompts, n, med, died, peers)
        for peer in peers.values():
            peer.close()
    return 0


def _raise(exc: Exception):
    raise exc


def start_peers(have_llama: bool, threads: int, n_ctx: int, n: int) -> tuple[dict, dict[str, str]]:
    """A process per llama.cpp system (loaded and ready), and those whose process died on the way."""
    peers, crashed = {}, {}
    for name in ("Q4_1", *COPIES) if have_llama else ():
        try:
            peers[name] = PeerProcess(f"llama.cpp {name}", peer_argv(name, threads, n_ctx, n))
        except PeerCrashed as e:
            crashed[name] = e.how
    return peers, crashed


def print_against_llama(fp32, int8_name: str, prompts: dict, n: int, med: dict, died: dict, peers: dict) -> None:
    """Our TPOT over llama.cpp's, greedy agreement with its F32 copy, weights streamed per token."""
    lengths = list(prompts)
    pairs = [("ours, float32", "llama.cpp F32"), (int8_name, "llama.cpp Q8_0"), (GGUF_NAME, "llama.cpp Q4_1")]
    print("| TPOT ratio | " + " | ".join(f"after {L}" for L in lengths) + " |")
    print("|---" * (1 + len(lengths)) + "|")
    for a, b in pairs:
        cells = " | ".join(
            f"crashed: {died[b]}" if b in died else f"{med[(a, L)][1] / med[(b, L)][1]:.2f}" for L in lengths
        )
        print(f"| {a} ÷ {b} | {cells} |")
    if "llama.cpp F32" in died or "F32" not in peers:
        print()
        return
    agree = ", ".join(
        f"L={L}: {agreement(greedy_ours(fp32, ids, n), peers['F32'].call('greedy', ids))} tokens"
        for L, ids in prompts.items()
    )
    print(f"\nGreedy agreement, ours float32 against llama.cpp F32 (same numbers): {agree}.\n")
    weights = layer_weight_bytes(fp32.model.config, 4)  # float32: what each decode token reads
    rates = ", ".join(
        f"{name} {weights / med[(name, L)][1] / 1e6:.1f} GB/s at L={L}"
        for name in ("ours, float32", "llama.cpp F32")
        for L in lengths
    )
    print(f"Float32 weights streamed per decode token: {weights / 1e6:.0f} MB; over the TPOT: {rates}.\n")


if __name__ == "__main__":
    if sys.argv[1:2] == [PEER_FLAG]:  # a llama.cpp system's own process: no record of its own
        serve_peer(sys.argv[2], *(int(a) for a in sys.argv[3:6]))
        sys.exit(0)
    with recorded("peers"):
        sys.exit(main())
