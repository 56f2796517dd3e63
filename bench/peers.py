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
"""

from __future__ import annotations

import argparse
import ctypes
import statistics
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


def llama_cpp_module():
    try:
        import llama_cpp
    except ImportError:
        return None
    return llama_cpp


def gguf_copies(llama_cpp) -> dict[str, Path]:
    """The bundled Q4_1 file, and F32 and Q8_0 copies made by llama.cpp's quantiser (cached)."""
    source = bundled_gguf_path()
    folder = cache_dir() / "peers"
    folder.mkdir(parents=True, exist_ok=True)
    files = {"Q4_1": source}
    for name, ftype in COPIES.items():
        target = folder / f"{source.stem.removesuffix('.Q4_1')}.{name}.gguf"
        if not target.is_file():
            params = llama_cpp.llama_model_quantize_default_params()
            params.ftype, params.allow_requantize = ftype, True  # from Q4_1: F32 is its exact de-quantisation
            partial = target.with_suffix(".partial")
            if llama_cpp.llama_model_quantize(str(source).encode(), str(partial).encode(), ctypes.byref(params)):
                raise RuntimeError(f"llama.cpp could not write {name} from {source}")
            partial.rename(target)
        files[name] = target
    return files


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


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--lengths", type=int, nargs="+", default=[16, 256])
    ap.add_argument("--new-tokens", type=int, default=64)
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    llama_cpp = llama_cpp_module()
    if llama_cpp is None:
        print(f"# llama.cpp: llama-cpp-python is not installed, so its rows are skipped; {INSTALL}")
    else:
        print(f"# llama.cpp: llama-cpp-python {llama_cpp.__version__}, prompt and decode on the same thread count")
    from transformers import AutoModelForCausalLM

    fp32, int8 = load_model(dtype="float32"), load_model(dtype="auto", weights="int8")
    gguf = load_model(weights="gguf")
    int8_name = f"ours, int8 weights + {str(int8.model.dtype).removeprefix('torch.')} activations"
    hf_model = AutoModelForCausalLM.from_pretrained(convert_bundled(), dtype=torch.float32).eval()
    pad = fp32.tokenizer.eos_token_id
    prompts = {L: prompt_ids(fp32.tokenizer, L) for L in args.lengths}
    files = gguf_copies(llama_cpp) if llama_cpp else {}
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
        llms = {}
        for name, path in files.items():
            ctx = max(args.lengths) + n + 8
            # n_threads_batch too: llama-cpp-python would run prompts on every core otherwise
            llms[name] = llama_cpp.Llama(
                str(path), n_ctx=ctx, n_threads=threads, n_threads_batch=threads, n_batch=512, verbose=False
            )
            systems[f"llama.cpp {name}"] = lambda ids, llm=llms[name]: llama_run(llm, ids, n)[:2]
        times = {(s, L): [] for s in systems for L in args.lengths}
        for ids in prompts.values():  # a warm-up each: kernels chosen, caches filled
            for run in systems.values():
                run(ids)
        for _ in range(args.repeats):
            for L, ids in prompts.items():
                for name, run in systems.items():
                    times[(name, L)].append(run(ids))
        header = " | ".join(f"prefill L={L} | TPOT after {L}" for L in args.lengths)
        print(f"## {threads} thread{'s' if threads > 1 else ''}\n")
        print(f"| ms | {header} |")
        print("|---" * (1 + 2 * len(args.lengths)) + "|")
        med = {k: (statistics.median(v[0] for v in t), statistics.median(v[1] for v in t)) for k, t in times.items()}
        for name in systems:
            cells = " | ".join(f"{med[(name, L)][0]:.1f} | {med[(name, L)][1]:.1f}" for L in args.lengths)
            print(f"| {name} | {cells} |")
        print()
        same = all(greedy_ours(gguf, ids, n) == greedy_ours(fp32, ids, n) for ids in prompts.values())
        print(
            f"Greedy tokens, ours on the Q4_1 blocks as stored against ours float32: {'the same' if same else 'DIFFERENT'}.\n"
        )
        if llms:
            pairs = [("ours, float32", "llama.cpp F32"), (int8_name, "llama.cpp Q8_0"), (GGUF_NAME, "llama.cpp Q4_1")]
            print("| TPOT ratio | " + " | ".join(f"after {L}" for L in args.lengths) + " |")
            print("|---" * (1 + len(args.lengths)) + "|")
            for a, b in pairs:
                cells = " | ".join(f"{med[(a, L)][1] / med[(b, L)][1]:.2f}" for L in args.lengths)
                print(f"| {a} ÷ {b} | {cells} |")
            agree = ", ".join(
                f"L={L}: {agreement(greedy_ours(fp32, ids, n), llama_run(llms['F32'], ids, n)[2])} tokens"
                for L, ids in prompts.items()
            )
            print(f"\nGreedy agreement, ours float32 against llama.cpp F32 (same numbers): {agree}.\n")
            weights = layer_weight_bytes(fp32.model.config, 4)  # float32: what each decode token reads
            rates = ", ".join(
                f"{name} {weights / med[(name, L)][1] / 1e6:.1f} GB/s at L={L}"
                for name in ("ours, float32", "llama.cpp F32")
                for L in args.lengths
            )
            print(f"Float32 weights streamed per decode token: {weights / 1e6:.0f} MB; over the TPOT: {rates}.\n")
    return 0


if __name__ == "__main__":
    with recorded("peers"):
        sys.exit(main())
