"""The parts of bench/decode.py past the HF comparison: what the memory pass costs the timings, where
a decode step's time goes, the kernel each layer runs, the detokenizer's cost per token, where a long
prefill's time goes run after run."""

from __future__ import annotations

import statistics
import time

import torch

from engine import Engine, EngineConfig, SamplingParams
from engine.core.detokenizer import Detokenizer
from engine.core.memory_pass import replay_engine, timed_config
from engine.layers.kernel_plan import PREFILL_ROWS
from lab.precision_formats import timed_request

TEXT = (
    "The history of computing is a story of ideas meeting machines. Early calculators were mechanical, "
    "then electrical relays and vacuum tubes made programmable computers possible. "
)
MIXED = "Hello 世界! 今天天气很好 🌞🚀 café naïve — 日本語のテキスト and code: def f(x): return x**2\n"


def prompt_ids(tokenizer, length: int) -> list[int]:
    ids = tokenizer(TEXT * (length // 20 + 2)).input_ids
    return ids[:length]


def ours(bundle, ids: list[int], new_tokens: int, **cfg) -> tuple[float, float]:
    """(prefill ms, TPOT ms) from the engine's own step records and vLLM-style metrics."""
    return timed_request(bundle.model, bundle.tokenizer, ids, new_tokens, **cfg)


def memory_pass_overhead(bundle, repeats: int, new_tokens: int) -> None:
    """TPOT of the same request: bare, as the app runs it (timed bare, then a replay with the probe),
    and with the probe on the clock as before. The app's figure must be the bare one."""
    ids = prompt_ids(bundle.tokenizer, 16)
    params = SamplingParams(max_new_tokens=new_tokens, ignore_eos=True)
    probed = EngineConfig(probe_memory=True)

    def tpot(config: EngineConfig, replay: bool) -> float:
        engine = Engine(bundle.model, bundle.tokenizer, config)
        engine.add_request(ids, params)
        for _ in engine.stream():
            pass
        request = engine.trace.requests[0]
        if replay:  # the second pass: after the timed one, off its clock
            for _ in replay_engine(engine, ids, request.output_token_ids, params, probed).stream():
                pass
        return request.metrics.tpot_ms

    runs = {
        "trace off, no memory": (EngineConfig(trace=False, probe_memory=False), False),
        "app default: memory on a 2nd pass": (timed_config(probed), True),
        "memory probe on the clock (before)": (probed, False),
    }
    tpots: dict[str, list[float]] = {k: [] for k in runs}
    for _ in range(repeats):
        for name, (config, replay) in runs.items():
            tpots[name].append(tpot(config, replay))
    base = statistics.median(tpots["trace off, no memory"])
    print("\n| decode TPOT, L=16 (ms)                | median | vs no memory |\n|---|---|---|")
    for name, values in tpots.items():
        med = statistics.median(values)
        print(f"| {name:<37} | {med:6.1f} | {med / base:5.2f} |")


CATEGORIES = {  # profiler op name -> where a decode step's time goes
    "every layer in one C call (products, attention, norms)": ("pdlab::decode_layers",),
    "weights streamed (linear layers)": (
        "pdlab::gemv",  # our C kernel (engine/kernels/native.py names its calls for the profiler)
        "mkldnn::_linear_pointwise",
        "aten::mm",
        "aten::addmm",
        "aten::linear",
        "aten::matmul",
        "aten::mv",
    ),
    "attention": (
        "aten::_scaled_dot_product",
        "aten::scaled_dot_product",
        "aten::bmm",
        "aten::softmax",
        "aten::_softmax",
        "aten::masked_fill",
        "pdlab::attention",
    ),
    "norms, RoPE, elementwise": (
        "pdlab::rms_norm",
        "pdlab::rope",
        "pdlab::silu_mul",
        "aten::rms_norm",
        "aten::_fused_rms_norm",
        "aten::mul",
        "aten::add",
        "aten::cat",
        "aten::neg",
        "aten::silu",
        "aten::pow",
        "aten::mean",
        "aten::rsqrt",
        "aten::sub",
        "aten::div",
        "aten::exp",
    ),
    "KV cache writes and reads": (
        "aten::copy_",
        "aten::index_copy",
        "aten::index_put",
        "aten::index_select",
        "aten::index",
    ),
    "sampling": ("aten::argmax", "aten::topk", "aten::sort", "aten::multinomial", "aten::cumsum"),
}


def categorise(op_name: str) -> str:
    for category, prefixes in CATEGORIES.items():
        if op_name.startswith(prefixes):
            return category
    return "other ops (views, empty, embedding, ...)"


def profiled_step(bundle, new_tokens: int) -> tuple[dict[str, float], float, float]:
    """(ms per category, profiled ms per step, uninstrumented TPOT) of a decode after a 16-token prompt."""
    from torch.profiler import ProfilerActivity, profile

    ids = prompt_ids(bundle.tokenizer, 16)
    tpot = statistics.median(ours(bundle, ids, new_tokens)[1] for _ in range(3))
    engine = Engine(bundle.model, bundle.tokenizer, EngineConfig(probe_memory=False))
    engine.add_request(ids, SamplingParams(max_new_tokens=new_tokens, ignore_eos=True))
    engine.step()  # the prefill, not profiled
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        start = time.perf_counter()
        steps = sum(1 for _ in engine.stream())
        wall = (time.perf_counter() - start) * 1e3 / steps
    totals: dict[str, float] = {}
    for e in prof.key_averages():
        totals[categorise(e.key)] = totals.get(categorise(e.key), 0.0) + e.self_cpu_time_total / 1e3 / steps
    totals["Python and dispatch (no op)"] = max(0.0, wall - sum(totals.values()))
    return totals, wall, tpot


def decode_linears(model) -> list:
    """Every matrix product of a decode step, in order: each layer's four, then the LM head."""
    return [layer[k] for layer in model.layers for k in ("qkv", "o", "gate_up", "down")] + [model.lm_head]


def products_alone_ms(model) -> float:
    """One decode step's matrix products called back to back with nothing between them: the floor the
    step's other work sits on."""
    linears = decode_linears(model)
    xs = {lin.in_features: torch.randn(1, lin.in_features, dtype=model.dtype) for lin in linears}
    times = []
    with torch.inference_mode():
        for _ in range(20):
            start = time.perf_counter()
            for lin in linears:
                lin(xs[lin.in_features])
            times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e3


def step_breakdown(bundle, new_tokens: int) -> None:
    """Where a decode step's time goes, on the torch forward and on the one-call C step
    (engine/models/fused_decode.py): the profiler's self time per category, scaled to the uninstrumented TPOT
    of the same run shape; what no op accounts for is Python and dispatch."""
    model, fused = bundle.model, bundle.model.fused
    paths = {"torch forward": None}
    if fused is not None:
        paths["one C call"] = fused
    results = {}
    try:
        for name, path in paths.items():
            model.fused = path
            results[name] = profiled_step(bundle, new_tokens)
    finally:
        model.fused = fused
    names = list(results)
    header = " | ".join(f"{n}: ms (share)" for n in names)
    print(f"\n| decode step, L=16, ms scaled to the uninstrumented TPOT | {header} |\n|---" + "|---" * len(names) + "|")
    rows = sorted(
        {k for totals, _, _ in results.values() for k in totals}, key=lambda k: -results[names[0]][0].get(k, 0)
    )
    for row_name in rows:
        cells = []
        for n in names:
            totals, wall, tpot = results[n]
            ms = totals.get(row_name, 0.0)
            cells.append(f"{ms / wall * tpot:.1f} ({ms / wall:.0%})" if ms else "-")
        print(f"| {row_name} | {' | '.join(cells)} |")
    print("| **TPOT, uninstrumented** | " + " | ".join(f"**{results[n][2]:.1f}**" for n in names) + " |")
    weights = sum(lin.num_bytes for lin in decode_linears(model))
    alone = products_alone_ms(model)
    print(
        f"# the same step's matrix products alone, back to back: {alone:.1f} ms "
        f"({weights / alone / 1e6:.1f} GB/s over {weights / 1e6:.0f} MB)"
    )


def step_path_line(model) -> str:
    """Which path an all-decode step takes and why: both whole-step timings where they were measured."""
    step, plan = model.kernel_plan.step, model.kernel_plan
    runs = "one C call" if model.fused is not None else "the torch forward"
    if step is None:
        why = f"kernels {plan.source}{' (' + plan.forced + ')' if plan.forced else ''}: no choice of path"
        return f"# decode step: {runs} ({why})"
    return (
        f"# decode step: {runs}, chosen by timing whole steps both ways ({step.source}; {step.n} steps each, "
        f"interleaved, context {step.context}): one C call {step.fused_ms:.2f} ms, torch forward with each "
        f"layer's own kernel {step.layers_ms:.2f} ms"
    )


def kernel_table(bundle) -> None:
    """engine/loader/kernel_timing.py's choice for the loaded model, with what each candidate measured,
    and the path of an all-decode step (engine/loader/step_timing.py)."""
    model, plan = bundle.model, bundle.model.kernel_plan
    print(step_path_line(model))
    print(
        f"\n| layer (kernels: {plan.source}) | out x in | decode kernel | 1 row, us per call | prefill kernel "
        f"| {PREFILL_ROWS} rows, ms per call |\n|---|---|---|---|---|---|"
    )
    for name, lin in model.linears().items():
        c = plan.choices.get((lin.out_features, lin.in_features))
        dec = " / ".join(f"{k} {v * 1e3:.0f}" for k, v in c.decode_ms.items()) if c else "-"
        pre = " / ".join(f"{k} {v:.2f}" for k, v in c.prefill_ms.items()) if c else "-"
        print(
            f"| {name} | {lin.out_features} x {lin.in_features} | {lin.decode_kernel} | {dec} | "
            f"{lin.prefill_kernel} | {pre} |"
        )


def detokenizer_cost(tokenizer) -> None:
    """Microseconds per token of the incremental detokenizer after 100 and after 4,000 tokens: flat."""
    ids = tokenizer(MIXED * 200).input_ids[:4100]
    d = Detokenizer(tokenizer)
    times = []
    for token in ids:
        start = time.perf_counter()
        d.add(token)
        times.append(time.perf_counter() - start)
    early, late = statistics.median(times[:100]) * 1e6, statistics.median(times[4000:4100]) * 1e6
    print(
        f"\n# detokenizer ({'DecodeStream' if d._fast else 'windowed decode'}): {early:.1f} us per token "
        f"over tokens 1-100, {late:.1f} us over tokens 4,001-4,100 (ratio {late / early:.2f})"
    )


PREFILL_PARTS = {  # the forward's own functions (engine/models/llama.py), whichever kernel runs them
    "products": "q/k/v, output and down products (and the LM head)",
    "swiglu": "gate/up product with SiLU × up",
    "prefill_attention": "attention",
    "rms_norm": "RMSNorm",
    "apply_rope": "RoPE",
}


def _timed_parts(spent: dict[str, float]) -> dict[tuple[object, str], object]:
    """Wrap each part's function so its calls are timed (the outermost only: a product inside SwiGLU
    counts as SwiGLU's); returns what to put back."""
    from engine.layers import gguf_weights, linear, quant
    from engine.models import llama

    depth = [0]

    def timed(name, fn):
        def call(*args, **kwargs):
            if depth[0]:
                return fn(*args, **kwargs)
            depth[0] += 1
            start = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                depth[0] -= 1
                spent[name] = spent.get(name, 0.0) + (time.perf_counter() - start) * 1e3

        return call

    originals = {(llama, n): getattr(llama, n) for n in PREFILL_PARTS if n != "products"}
    classes = (linear.Linear, quant.QuantLinear, gguf_weights.GGUFLinear)
    originals |= {(cls, "__call__"): cls.__call__ for cls in classes}
    for (owner, attr), fn in originals.items():
        setattr(owner, attr, timed("products" if attr == "__call__" else attr, fn))
    return originals


def prefill_parts(bundle, length: int, repeats: int) -> None:
    """Where a prefill's time goes, run after run: each part of the forward timed around its calls,
    whichever kernel runs it (our C kernels, oneDNN, MKL; a clock read per call, ~200 calls a run), the
    rest (residual adds, embedding, KV writes, Python) by difference; the fastest and slowest run of each
    part show which parts a busy host slows (the runs' spread)."""
    ids, spent, threads = prompt_ids(bundle.tokenizer, length), {}, torch.get_num_threads()
    runs: list[dict[str, float]] = []
    originals = _timed_parts(spent)
    try:
        ours(bundle, ids, 1)  # warm
        for _ in range(repeats):
            spent.clear()
            total = ours(bundle, ids, 1)[0]
            runs.append({**spent, "everything else": total - sum(spent.values()), "prefill": total})
    finally:
        for (owner, attr), fn in originals.items():
            setattr(owner, attr, fn)
    print(
        f"\n| prefill L={length}, {threads} thread{'s' * (threads > 1)}, {repeats} runs | median ms | fastest | slowest "
        f"| share |\n|---|---|---|---|---|"
    )
    total = statistics.median(r["prefill"] for r in runs)
    for key in [*PREFILL_PARTS, "everything else", "prefill"]:
        values = [r.get(key, 0.0) for r in runs]
        label = PREFILL_PARTS.get(key, key)
        print(
            f"| {label} | {statistics.median(values):.1f} | {min(values):.1f} | {max(values):.1f} "
            f"| {statistics.median(values) / total:.0%} |"
        )
