"""A long-lived server must not grow: many runs in one process, its resident memory (RSS) after each,
and the KV cache blocks back to zero after each request.

    .venv/bin/python bench/soak.py [--runs 100] [--new-tokens 32]

`python -m engine serve` on the bundled model, one streamed request after another over loopback, the
prompt changing each time; after each, its /metrics: vllm:kv_cache_usage_perc (must be 0) and
process_resident_memory_bytes. Passes (exit 0) when RSS grows by at most 50 MB from run 10 to the
last (the first runs warm caches up) and every request gave its KV blocks back.
The Streamlit app's own soak (a real server and browser) is scripts/soak_app.py.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import urllib.request
from pathlib import Path

from prometheus_client.parser import text_string_to_metric_families

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bench.record import recorded  # noqa: E402
from engine.entrypoints.launch import engine_server  # noqa: E402
from engine.observe.machine import describe_cpu  # noqa: E402

LIMIT_MB, WARM_RUNS = 50, 10
PROMPTS = ["Name a colour.", "What is a river?", "Count to five.", "Say hello in French.", "Why is the sky blue?"]


def scrape(url: str) -> dict[str, float]:
    with urllib.request.urlopen(f"{url}/metrics", timeout=10) as r:
        text = r.read().decode()
    return {s.name: s.value for f in text_string_to_metric_families(text) for s in f.samples}


def soak_engine_server(runs: int, new_tokens: int) -> tuple[list[float], list[float]]:
    from openai import OpenAI

    log = ROOT / "test-artifacts" / "bench-soak-server.log"
    log.parent.mkdir(exist_ok=True)
    rss, kv = [], []
    with engine_server("bundled", log) as url:
        client = OpenAI(base_url=f"{url}/v1", api_key="none", max_retries=0)
        model = client.models.list().data[0].id  # the served name: another is a 404
        for i in range(runs):
            stream = client.completions.create(
                model=model,
                prompt=f"{PROMPTS[i % len(PROMPTS)]} ({i})",
                max_tokens=new_tokens,
                stream=True,
                extra_body={"ignore_eos": True},
            )  # every run the same length
            if not "".join(chunk.choices[0].text for chunk in stream if chunk.choices):
                raise SystemExit(f"request {i} produced no text")
            m = scrape(url)
            rss.append(m["process_resident_memory_bytes"] / 2**20)
            kv.append(m["vllm:kv_cache_usage_perc"])
    return rss, kv


def print_header(runs: int, new_tokens: int) -> None:
    print(f"# {describe_cpu()}")
    print(
        f"# {runs} runs, {new_tokens} new tokens each; RSS in MiB; growth = last run - run "
        f"{min(WARM_RUNS, runs)}, limit {LIMIT_MB} MB\n"
    )
    print(
        f"| server | runs | RSS after run 1 | after run {min(WARM_RUNS, runs)} | after the last | most | growth "
        "| within |"
    )
    print("|---|---|---|---|---|---|---|---|")


def report(name: str, rss: list[float]) -> bool:
    base = rss[min(WARM_RUNS, len(rss)) - 1]
    growth = rss[-1] - base
    print(
        f"| {name} | {len(rss)} | {rss[0]:.0f} | {base:.0f} | {rss[-1]:.0f} | {max(rss):.0f} | {growth:+.1f} | "
        f"{'yes' if growth <= LIMIT_MB else 'NO'} |"
    )
    return growth <= LIMIT_MB


def parse_args(description: str) -> argparse.Namespace:
    """--runs and --new-tokens, for this soak and the app's (scripts/soak_app.py)."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--runs", type=int, default=100)
    ap.add_argument("--new-tokens", type=int, default=32)
    args = ap.parse_args()
    if args.runs < 1 or args.new_tokens < 1:
        ap.error("--runs and --new-tokens must be at least 1")
    return args


def main() -> int:
    args = parse_args(__doc__.splitlines()[0])
    print_header(args.runs, args.new_tokens)
    rss, kv = soak_engine_server(args.runs, args.new_tokens)
    ok = report("engine serve", rss)
    left = [i for i, u in enumerate(kv) if u != 0]
    print(
        f"\nKV cache blocks in use after each request: {'all 0' if not left else f'not 0 after {left}'}"
        f" (median usage {statistics.median(kv):.3f})"
    )
    return 0 if ok and not left else 1


if __name__ == "__main__":
    with recorded("soak"):
        code = main()
    sys.exit(code)
