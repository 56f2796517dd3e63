"""The parts of bench/decode.py past the HF comparison: what the memory pass costs the timings, where
a decode step's time goes, the kernel each layer runs, the detokenizer's cost per token."""

from __future__ import annotations

import statistics
import time

from engine import Engine, EngineConfig, SamplingParams
from engine.detokenizer import Detokenizer
from engine.kernels import PREFILL_ROWS
from engine.memory_pass import replay_engine, timed_config
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
    "weights streamed (linear layers)": (
        "pdlab::gemv",  # our C kernel (engine/native.py names its calls for the profiler)
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
    ),
    "norms, RoPE, elementwise": (
        "pdlab::rms_norm",
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


def step_breakdown(bundle, new_tokens: int) -> None:
    """Where a decode step's time goes: the profiler's self time per category, scaled to the
    uninstrumented TPOT of the same run shape; what no op accounts for is Python and dispatch."""
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
    weights = (
        sum(
            lin.num_bytes
            for layer in bundle.model.layers
            for lin in (layer["qkv"], layer["o"], layer["gate_up"], layer["down"])
        )
        + bundle.model.lm_head.num_bytes
    )
    print(
        f"\n| decode step, L=16 (profiled {wall:.1f} ms, uninstrumented TPOT {tpot:.1f} ms) | ms (profiled) "
        f"| share | ms, scaled to TPOT |\n|---|---|---|---|"
    )
    for name, ms in sorted(totals.items(), key=lambda kv: -kv[1]):
        print(f"| {name} | {ms:.1f} | {ms / wall:.0%} | {ms / wall * tpot:.1f} |")
    linear_ms = totals.get("weights streamed (linear layers)", 0.0) / wall * tpot
    print(f"# linear layers read {weights / 1e6:.0f} MB per step: {weights / linear_ms / 1e6:.1f} GB/s achieved")


def kernel_table(bundle) -> None:
    """engine/kernels.py's choice for the loaded model, with what each candidate measured."""
    model, plan = bundle.model, bundle.model.kernel_plan
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
