"""Speculative decoding by prompt lookup, beside plain decoding and Hugging Face's own prompt lookup
(`generate(prompt_lookup_num_tokens=k)`), on the bundled model in one run: greedy, batch 1, medians
of interleaved repeats.

    .venv/bin/python bench/speculative.py [--repeats 3] [--new-tokens 64] [--k 4 8] [--draft-k 4] [--device cuda]

Two prompts: one that asks the model to repeat a text it was given (prompt lookup finds most of the
output in the prompt) and a free question (little to find). For each: TTFT and TPOT of ours plain,
ours with prompt lookup for each k, ours with the model's own int8 copy as a draft model (--draft-k),
HF plain and HF with prompt lookup; the acceptance rate and the
tokens per decode step; whether every output equals our plain greedy output token for token.
Each repeat runs every system once, in an order that rotates and reverses from repeat to repeat
(lab/pairing.round_order), and "÷ ours plain" is the median of the repeats' paired TPOT ratios with
its 95 % interval and n; a verdict (faster, slower) only where the whole interval lies on one side
of 1, else "not separable here": the speculative lab's rule.
Then the verify-cost curve (lab/speculation.py): a verify step of k drafts against a plain decode
step, at two context lengths, the lanes stepped in turn; each ratio with its interval and n, judged
against 1.2×, and the acceptance rate at which drafting k breaks even.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench.record import recorded  # noqa: E402
from engine import Engine, EngineConfig, SamplingParams, load_model  # noqa: E402
from engine.core.draft_model import with_draft_model  # noqa: E402
from engine.core.speculative import SpeculativeConfig  # noqa: E402
from engine.loader.model_loader import convert_bundled  # noqa: E402
from engine.observe.machine import describe_cpu  # noqa: E402
from lab.pairing import GREATER, LESS, RatioInterval, compare, ratio_interval, round_order  # noqa: E402
from lab.speculation import FLAT_WITHIN, FREE_PROMPT, REPEAT_PROMPT, verify_costs  # noqa: E402

REPEAT, FREE = REPEAT_PROMPT, FREE_PROMPT  # lab/speculation.py: the page uses the same two


def ours(bundle, ids: list[int], new_tokens: int, spec: SpeculativeConfig | int | None) -> dict:
    """TTFT and TPOT from the engine's own request record (probe off), tokens per decode step, acceptance.
    spec: a drafter's config, or k for prompt lookup, or None for plain decoding."""
    spec = SpeculativeConfig(num_tokens=spec) if isinstance(spec, int) else spec
    engine = Engine(bundle.model, bundle.tokenizer, EngineConfig(probe_memory=False, speculative=spec))
    trace = engine.generate(ids, SamplingParams(max_new_tokens=new_tokens, ignore_eos=True))
    request = trace.requests[0]
    decode = [s.seqs[0] for s in trace.steps if s.seqs[0].phase == "decode"]
    drafted = sum(s.drafted for s in decode)
    return {
        "ttft": request.metrics.ttft_ms,
        "tpot": request.metrics.tpot_ms,
        "per_step": (len(request.output_token_ids) - 1) / max(1, len(decode)),
        "accepted": sum(s.accepted for s in decode) / drafted if drafted else None,
        "tokens": request.output_token_ids,
    }


def hf(model, ids: list[int], new_tokens: int, pad: int, k: int | None) -> dict:
    """TTFT and TPOT of HF generate, timed around the call (a streamer cannot take several tokens a
    step): TTFT from a 1-token call, TPOT from the rest of the full call."""
    common = dict(do_sample=False, eos_token_id=None, pad_token_id=pad)
    extra = {"prompt_lookup_num_tokens": k} if k else {}
    x = torch.tensor([ids], device=model.device)
    start = time.perf_counter()
    model.generate(x, max_new_tokens=1, **common).tolist()  # .tolist(): a GPU's work is done
    ttft = (time.perf_counter() - start) * 1e3
    start = time.perf_counter()
    tokens = model.generate(x, max_new_tokens=new_tokens, **common, **extra)[0, len(ids) :].tolist()
    total = (time.perf_counter() - start) * 1e3
    return {"ttft": ttft, "tpot": (total - ttft) / (new_tokens - 1), "tokens": tokens}


def median_of(runs: list[dict], key: str) -> float | None:
    values = [r[key] for r in runs if r.get(key) is not None]
    return statistics.median(values) if values else None


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--repeats", type=int, default=5, help="5 is the fewest an interval judges by")
    ap.add_argument("--new-tokens", type=int, default=64)
    ap.add_argument("--k", type=int, nargs="+", default=[4, 8], help="tokens drafted per step")
    ap.add_argument("--device", default="cpu", help="cpu or cuda: both models run there")
    ap.add_argument("--contexts", type=int, nargs="+", default=[64, 512], help="verify-cost curve: context lengths")
    ap.add_argument("--verify-k", type=int, nargs="+", default=[1, 2, 4, 8, 16, 32], help="verify-cost curve: k")
    ap.add_argument("--draft-k", type=int, default=4, help="the int8 draft model's k (0: leave the draft model out)")
    args = ap.parse_args()
    from transformers import AutoModelForCausalLM

    bundle = load_model(device=args.device)
    hf_model = AutoModelForCausalLM.from_pretrained(convert_bundled(), dtype=torch.float32).to(args.device).eval()
    pad = bundle.tokenizer.eos_token_id
    print(f"# {describe_cpu()}")
    print(
        f"# {bundle.name}, fp32, {args.device}, greedy, batch 1, {args.new_tokens} new tokens, median of {args.repeats}\n"
    )
    systems = [("ours, plain", "ours", None)] + [(f"ours, prompt lookup k={k}", "ours", k) for k in args.k]
    if args.draft_k and args.device != "cpu":
        print(f"# the int8 draft model is left out: int8 weights run on the CPU only, not on {args.device}\n")
    elif args.draft_k:  # the model's own int8 copy (int8 weights, bf16 activations) drafting for it
        draft = load_model(device=args.device, dtype="bfloat16", weights="int8")
        config = SpeculativeConfig(method="draft_model", model="bundled", quantization="int8", num_tokens=args.draft_k)
        spec = with_draft_model(config, bundle.tokenizer, lambda _spec, _weights: draft)
        systems.append((f"ours, int8 draft model k={args.draft_k}", "ours", spec))
    systems += [("HF generate, plain", "hf", None)] + [(f"HF prompt_lookup_num_tokens={k}", "hf", k) for k in args.k]
    for label, text in (("repeat a given text", REPEAT), ("free question", FREE)):
        ids = bundle.tokenizer(text).input_ids
        ours(bundle, ids, 4, None)  # warm up

        def run(who: str, k, ids: list[int] = ids) -> dict:
            return (
                ours(bundle, ids, args.new_tokens, k) if who == "ours" else hf(hf_model, ids, args.new_tokens, pad, k)
            )

        runs = timed_rounds(systems, run, args.repeats)
        print(f"## {label} ({len(ids)} prompt tokens)\n")
        table(systems, runs)
    verify_curve(bundle, args)


def timed_rounds(systems: list, run, repeats: int) -> dict[str, list[dict]]:
    """Every system once a round, the order rotating and reversing (lab/pairing.round_order): a slow
    moment of the machine hits every system alike."""
    runs: dict[str, list[dict]] = {name: [] for name, _, _ in systems}
    by_name = {name: (who, k) for name, who, k in systems}
    for r in range(repeats):
        for name in round_order(list(by_name), r):
            runs[name].append(run(*by_name[name]))
    return runs


def table(systems: list, runs: dict[str, list[dict]]) -> None:
    reference = runs["ours, plain"][0]["tokens"]
    base = [r["tpot"] for r in runs["ours, plain"]]
    print(
        "| system | TTFT (ms) | TPOT (ms) | TPOT ÷ ours plain | TPOT | tokens per decode step | drafts accepted "
        "| same tokens |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for name, _, _ in systems:
        tpot, per_step = median_of(runs[name], "tpot"), median_of(runs[name], "per_step")
        accepted = median_of(runs[name], "accepted")
        same = all(r["tokens"] == reference for r in runs[name])
        paired = None if name == "ours, plain" else ratio_interval([r["tpot"] for r in runs[name]], base)
        print(
            f"| {name} | {median_of(runs[name], 'ttft'):.1f} | {tpot:.1f} | {ratio(paired)} | {verdict(paired)} | "
            + (f"{per_step:.2f}" if per_step is not None else "–")
            + " | "
            + (f"{100 * accepted:.0f} %" if accepted is not None else "–")
            + f" | {'yes' if same else 'NO'} |"
        )
    print()


def ratio(r: RatioInterval | None) -> str:
    """As the pages word it (ui/paired.py): the median of the paired ratios, its interval and n."""
    return "1 (the base)" if r is None else f"{r.median:.2f}× [{r.low:.2f}–{r.high:.2f}], n = {r.n}"


def verdict(r: RatioInterval | None, against: float = 1.0, less: str = "faster", greater: str = "slower") -> str:
    """The pages' rule: a side only where the whole interval lies there (too few pairs: none)."""
    if r is None:
        return "the base"
    side = compare(r, against)
    return less if side == LESS else greater if side == GREATER else "not separable here"


def verify_curve(bundle, args) -> None:
    costs = verify_costs(bundle.model, bundle.tokenizer, args.contexts, args.verify_k)
    print("## Verify cost: a step of k drafts against a plain decode step (lanes stepped in turn)\n")
    print(f"| context | k | step (ms) | ÷ plain decode step | against {FLAT_WITHIN}× | break-even acceptance |")
    print("|---|---|---|---|---|---|")
    for c in costs:
        even = "always pays" if c.break_even == 0 else ("never pays" if c.break_even is None else f"{c.break_even:.0%}")
        flat = verdict(c.interval, FLAT_WITHIN, f"at most {FLAT_WITHIN}×", f"above {FLAT_WITHIN}×") if c.k else "–"
        print(f"| {c.context} | {c.k} | {c.ms:.1f} | {ratio(c.interval)} | {flat} | {even if c.k else '–'} |")
    print()


if __name__ == "__main__":
    with recorded("speculative"):
        main()
