"""Serving: many requests through the engine under each scheduling policy, beside Hugging Face's
sequential `generate` and its own continuous batching, on the same workload, in one run.

    .venv/bin/python bench/serving.py [--requests 32] [--batch 8] [--budget 128] [--repeats 3] [--device cuda]

1. Throughput: N requests (prompts 32-512 tokens, outputs 16-128) all queued at t = 0.
2. Head-of-line: 8 chats decoding when a 2048-token prompt arrives; chunked prefill vs whole, raced a
   step each in turn (lab/serving_race.py), chunked ÷ whole paired round by round with its interval.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench.pair_words import ratio_text, verdict_text  # noqa: E402
from bench.record import recorded  # noqa: E402
from engine import EngineConfig, load_model  # noqa: E402
from engine.loader.model_loader import convert_bundled  # noqa: E402
from engine.observe.machine import describe_cpu  # noqa: E402
from lab.pairing import ratio_interval  # noqa: E402
from lab.serving_race import race_rounds  # noqa: E402
from lab.workload import RequestSpec, head_of_line, random_mix, run_workload, summarize  # noqa: E402


def hf_sequential(hf_model, specs: list[RequestSpec], pad: int) -> float:
    """Output tokens per second of plain `generate`, one request after another."""
    start, tokens = time.perf_counter(), 0
    for s in specs:
        out = hf_model.generate(
            torch.tensor([s.prompt_ids], device=hf_model.device),
            max_new_tokens=s.max_new_tokens,
            do_sample=False,
            eos_token_id=None,
            pad_token_id=pad,
        )
        tokens += out.shape[1] - len(s.prompt_ids)
    return tokens / (time.perf_counter() - start)


def hf_static(hf_model, tokenizer, specs: list[RequestSpec], batch: int) -> float:
    """Output tokens per second of `generate` on batches of `batch` left-padded prompts: each batch
    runs until its longest request is done, finished rows keep computing padding (static batching
    as transformers does it); only each request's own tokens are counted."""
    start, tokens = time.perf_counter(), 0
    pad = tokenizer.eos_token_id
    for i in range(0, len(specs), batch):
        group = specs[i : i + batch]
        width = max(len(s.prompt_ids) for s in group)
        ids = torch.tensor([[pad] * (width - len(s.prompt_ids)) + s.prompt_ids for s in group])
        mask = torch.tensor([[0] * (width - len(s.prompt_ids)) + [1] * len(s.prompt_ids) for s in group])
        hf_model.generate(
            ids.to(hf_model.device),
            attention_mask=mask.to(hf_model.device),
            max_new_tokens=max(s.max_new_tokens for s in group),
            do_sample=False,
            eos_token_id=None,
            pad_token_id=pad,
        )
        tokens += sum(s.max_new_tokens for s in group)
    return tokens / (time.perf_counter() - start)


def hf_continuous(hf_model, specs: list[RequestSpec]) -> float | str:
    """Output tokens per second of transformers' own continuous batching manager."""
    from transformers import GenerationConfig

    try:
        config = GenerationConfig(
            do_sample=False, max_new_tokens=max(s.max_new_tokens for s in specs), eos_token_id=None, pad_token_id=0
        )
        manager = hf_model.init_continuous_batching(generation_config=config)
        manager.start()
        start = time.perf_counter()
        ids = [manager.add_request(s.prompt_ids, max_new_tokens=s.max_new_tokens) for s in specs]
        tokens, done = 0, set()
        while len(done) < len(ids):
            result = manager.get_result(timeout=600)
            if result is None:
                raise RuntimeError("the manager stopped early")
            if result.is_finished() and result.request_id not in done:
                done.add(result.request_id)
                tokens += len(result.generated_tokens)
        elapsed = time.perf_counter() - start
        manager.stop(block=True)
        return tokens / elapsed
    except Exception as e:  # report, do not hide: the table says why there is no number
        return f"failed: {type(e).__name__}: {str(e)[:80]}"


def ours(bundle, specs: list[RequestSpec], **cfg) -> dict:
    trace, labels = run_workload(bundle.model, bundle.tokenizer, specs, EngineConfig(probe_memory=False, **cfg))
    return {"trace": trace, "labels": labels, "summary": summarize(trace)}


def throughput_table(bundle, hf_model, args) -> None:
    specs = random_mix(bundle.tokenizer, num_requests=args.requests, seed=args.seed)
    print(
        f"## Throughput: {args.requests} requests, prompts 32-512 tokens, outputs 16-128, all at t=0, "
        f"batch limit {args.batch}\n"
    )
    results = {
        "HF generate, one request at a time": hf_sequential(hf_model, specs, bundle.tokenizer.eos_token_id),
        f"HF generate, static batches of {args.batch} (left-padded)": hf_static(
            hf_model, bundle.tokenizer, specs, args.batch
        ),
        "HF continuous batching (init_continuous_batching)": hf_continuous(hf_model, specs),
    }
    steps = {}
    for name, cfg in [
        ("ours: sequential", dict(policy="sequential")),
        ("ours: static batching", dict(policy="static", max_num_seqs=args.batch)),
        ("ours: continuous batching", dict(policy="continuous", max_num_seqs=args.batch)),
        (
            "ours: continuous + chunked prefill",
            dict(
                policy="continuous", max_num_seqs=args.batch, chunked_prefill=True, max_num_batched_tokens=args.budget
            ),
        ),
    ]:
        r = ours(bundle, specs, **cfg)
        results[name] = r["summary"]["throughput_tok_s"]
        steps[name] = step_counts(r["trace"])
    base = results["HF generate, one request at a time"]
    static = results["ours: static batching"]
    print(
        "| system | output tokens/s | vs HF sequential | vs our static | engine steps | decode rows per step "
        "| time in steps with prefill |"
    )
    print("|---|---|---|---|---|---|---|")
    for name, value in results.items():
        n, rows, share = steps.get(name, ("–", None, None))
        extra = f"{n} | – | –" if rows is None else f"{n} | {rows:.1f} | {share:.0%}"
        if isinstance(value, str):
            print(f"| {name} | {value} | – | – | {extra} |")
        else:
            print(f"| {name} | {value:.1f} | {value / base:.2f} | {value / static:.2f} | {extra} |")
    print(
        "\nEngine steps: forwards run. Where a step costs the same whatever its batch (a GPU's weight-bound "
        "decode), throughput goes as 1 / steps; on this CPU a step's cost grows with its batch."
    )


def step_counts(trace) -> tuple[int, float, float]:
    """Forwards run; the mean number of decoding sequences in the steps that decode; the share of
    step time spent in steps that carry prefill tokens (the same work under every policy)."""
    rows = [sum(1 for s in step.seqs if s.phase == "decode") for step in trace.steps]
    decoding = [r for r in rows if r]
    prefill_ms = sum(step.ms for step in trace.steps if any(s.phase == "prefill" for s in step.seqs))
    total_ms = sum(step.ms for step in trace.steps)
    return len(rows), sum(decoding) / max(len(decoding), 1), prefill_ms / max(total_ms, 1e-9)


def head_of_line_table(bundle, args) -> None:
    """Whole prompts against chunked prefill, raced a step each in turn over the same workload (each on
    its own clock, lab/serving_race.py), round after round: chunked ÷ whole paired round by round."""
    specs = head_of_line(bundle.tokenizer)
    print(
        f"\n## Head-of-line: 8 chats decoding, a 2048-token prompt arrives at 0.4 s; budget {args.budget}; "
        f"the two raced a step each in turn, {args.repeats} rounds\n"
    )
    print("| prefill | short streams ITL P50 / P99 (ms) | long prompt TTFT (ms) | throughput (tok/s) |")
    print("|---|---|---|---|")
    base = dict(probe_memory=False)
    configs = {
        "whole (no chunking)": EngineConfig(**base),
        f"chunked, {args.budget}-token budget": EngineConfig(
            **base, chunked_prefill=True, max_num_batched_tokens=args.budget
        ),
    }
    stats: dict[str, list[tuple[float, float, float]]] = {name: [] for name in configs}

    def landed(race) -> None:
        for name in configs:
            run = race.runs[name][-1]
            short = {sid for sid, label in run.labels.items() if label.startswith("chat")}
            longest = {sid for sid, label in run.labels.items() if label == "long prompt"}
            s_short, s_long, s_all = summarize(run.trace, short), summarize(run.trace, longest), summarize(run.trace)
            stats[name].append((s_short["itl_ms"]["p99"], s_long["ttft_ms"]["p50"], s_all["throughput_tok_s"]))
            print(
                f"| {name} | {s_short['itl_ms']['p50']:.0f} / {s_short['itl_ms']['p99']:.0f} | "
                f"{s_long['ttft_ms']['p50']:.0f} | {s_all['throughput_tok_s']:.1f} |",
                flush=True,
            )

    race = race_rounds(bundle.model, bundle.tokenizer, specs, configs, args.repeats, on_round=landed)
    whole, chunked = stats.values()
    print(f"\n| chunked ÷ whole, paired over {race.num_rounds} rounds ({race.retaken} raced again) | ratio | verdict |")
    print("|---|---|---|")
    for i, label in enumerate(("short streams' P99 ITL", "long prompt's TTFT", "throughput")):
        r = ratio_interval([c[i] for c in chunked], [w[i] for w in whole], race.retaken, race.load)
        print(f"| {label} | {ratio_text(r)} | {verdict_text(r, 'chunked higher', 'chunked lower')} |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--requests", type=int, default=32)
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--budget", type=int, default=128)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--repeats", type=int, default=5, help="head-of-line rounds (5: the fewest pairs to judge by)")
    ap.add_argument("--device", default="cpu", help="cpu or cuda: our engine and the HF model both run there")
    ap.add_argument("--skip", choices=["throughput", "hol"], default=None)
    args = ap.parse_args()
    from transformers import AutoModelForCausalLM

    bundle = load_model(device=args.device)
    hf_model = AutoModelForCausalLM.from_pretrained(convert_bundled(), dtype=torch.float32).to(args.device).eval()
    print(f"# {describe_cpu()}")
    print(
        f"# {bundle.name}, fp32, greedy, torch {torch.__version__}, {args.device}, "
        f"{torch.get_num_threads()} CPU threads\n"
    )
    if args.skip != "throughput":
        throughput_table(bundle, hf_model, args)
    if args.skip != "hol":
        head_of_line_table(bundle, args)


if __name__ == "__main__":
    with recorded("serving"):
        main()
