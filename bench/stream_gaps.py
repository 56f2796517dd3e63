"""One server, one live stream, and the two requests that used to freeze it: a long stop list and a
long prompt. The bundled model behind `python -m engine serve`, on this machine:

    .venv/bin/python bench/stream_gaps.py [--prompt-tokens 7800] [--stop-chars 200000]

A stream of --stream-tokens tokens starts first. Then, in turn, a request with a stop list of
--stop-chars characters in all (as many stop strings as the server takes, the rest refused by name)
and a request whose prompt is --prompt-tokens tokens long arrive beside it, while /health is polled
every 100 ms. Printed and recorded: the longest gap between two chunks of the stream (and its median
gap), the slowest /health answer, and what the server said to each request. The server's rule: no
gap over 1 s on 2 quiet cores.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import threading
import time
from pathlib import Path

import httpx2

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench.record import recorded  # noqa: E402
from engine.entrypoints.launch import engine_server  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
TEXT = "The history of computing is a story of ideas meeting machines. "  # 12 tokens
LIMIT_S = 1.0


def stream(url: str, model: str, tokens: int, times: list[float], stop: threading.Event) -> None:
    """A completion streamed to the end (or until `stop`), the arrival time of each content chunk kept."""
    body = {"model": model, "prompt": "Tell me a long story.", "max_tokens": tokens, "stream": True, "ignore_eos": True}
    with httpx2.stream("POST", f"{url}/v1/completions", json=body, timeout=600) as r:
        r.raise_for_status()
        for line in r.iter_lines():
            if line.startswith("data: ") and line != "data: [DONE]":
                times.append(time.perf_counter())
            if stop.is_set():
                return


def poll_health(url: str, latencies: list[float], stop: threading.Event) -> None:
    while not stop.is_set():
        start = time.perf_counter()
        try:
            httpx2.get(f"{url}/health", timeout=60)
        except httpx2.HTTPError:
            pass
        latencies.append(time.perf_counter() - start)
        time.sleep(0.1)


def stop_list(total_chars: int) -> list[str]:
    """Stop strings of 200,000 characters in all, sixteen of them, none of which the model will write."""
    each = max(1, total_chars // 16)
    return [f"§{i}§" + "x" * (each - 4) for i in range(16)]


def send(url: str, body: dict) -> str:
    r = httpx2.post(f"{url}/v1/completions", json=body, timeout=600)
    if r.status_code == 200:
        return f"200, {r.json()['usage']['completion_tokens']} tokens"
    try:
        return f"{r.status_code}: {r.json()['error']['message'][:160]}"
    except (ValueError, KeyError):
        return f"{r.status_code}: {r.text[:160]}"


def gaps_of(times: list[float]) -> list[float]:
    return [b - a for a, b in zip(times, times[1:])]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--prompt-tokens", type=int, default=7800)
    ap.add_argument("--stop-chars", type=int, default=200_000)
    ap.add_argument("--stream-tokens", type=int, default=1500)  # outlasts the long prompt
    args = ap.parse_args()
    log = ROOT / "test-artifacts" / "stream_gaps_server.log"
    log.parent.mkdir(exist_ok=True)
    with engine_server("bundled", log) as url:
        model = httpx2.get(f"{url}/v1/models", timeout=60).json()["data"][0]["id"]
        warm = send(url, {"model": model, "prompt": "warm up", "max_tokens": 4})
        if not warm.startswith("200"):
            raise SystemExit(f"the server refused a plain request: {warm}")
        times, latencies, stop = [], [], threading.Event()
        threads = [
            threading.Thread(target=stream, args=(url, model, args.stream_tokens, times, stop)),
            threading.Thread(target=poll_health, args=(url, latencies, stop)),
        ]
        for th in threads:
            th.start()
        while len(times) < 20:  # the stream is under way
            if not threads[0].is_alive():
                stop.set()
                raise SystemExit("the stream ended before its 20th chunk")
            time.sleep(0.05)
        answers = {}
        for name, body in (
            (
                "stop list",
                {"model": model, "prompt": "Say hello.", "max_tokens": 2, "stop": stop_list(args.stop_chars)},
            ),
            ("long prompt", {"model": model, "prompt": TEXT * (args.prompt_tokens // 12), "max_tokens": 2}),
        ):
            mark = len(times)
            answers[name] = send(url, body)
            during = gaps_of(times[max(mark - 1, 0) :])
            answers[name] += f"; longest stream gap meanwhile {max(during, default=0):.2f} s"
        stop.set()
        for th in threads:
            th.join(timeout=600)
    gaps = gaps_of(times)
    result = {
        "longest_gap_s": max(gaps),
        "median_gap_s": statistics.median(gaps),
        "slowest_health_s": max(latencies),
        "answers": answers,
        "holds": max(gaps) <= LIMIT_S and max(latencies) <= LIMIT_S,
    }
    print(json.dumps(result, indent=1))
    verdict = "holds" if result["holds"] else "does not hold"
    print(f"# no gap over {LIMIT_S:.0f} s in the stream or /health: {verdict}")


if __name__ == "__main__":
    with recorded("stream_gaps"):
        main()
