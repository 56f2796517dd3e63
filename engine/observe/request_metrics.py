"""Latency metrics exactly as vLLM's benchmark defines them.

TTFT = first token time - arrival; TPOT = (E2E - TTFT) / (output tokens - 1);
ITL = the gaps between consecutive output tokens; E2E = last token time - arrival.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine.errors import LabError


@dataclass
class RequestMetrics:
    ttft_ms: float
    tpot_ms: float | None  # None with a single output token
    itl_ms: list[float]
    e2e_ms: float
    num_output_tokens: int

    @classmethod
    def from_times(cls, arrival: float, token_times: list[float], num_tokens: int | None = None) -> RequestMetrics:
        """token_times: when each output arrived (a token here; a streamed chunk from a server, which
        may hold several tokens). num_tokens: the true output count when it is known and differs
        (a server's `usage`): TPOT divides by it, ITL stays the gaps between arrivals."""
        if not token_times:
            raise LabError("A request with no output tokens has no latency metrics.")
        ttft = token_times[0] - arrival
        e2e = token_times[-1] - arrival
        n = num_tokens if num_tokens is not None else len(token_times)
        return cls(
            ttft_ms=ttft * 1e3,
            tpot_ms=(e2e - ttft) / (n - 1) * 1e3 if n > 1 else None,
            itl_ms=[(b - a) * 1e3 for a, b in zip(token_times, token_times[1:])],
            e2e_ms=e2e * 1e3,
            num_output_tokens=n,
        )

    @property
    def prefill_share(self) -> float:
        """Fraction of the request's time spent before the first token (C4, C9)."""
        return self.ttft_ms / self.e2e_ms if self.e2e_ms else 1.0


def tail_is_max(p: float, n: int) -> bool:
    """Of n values, none lies above the P-th percentile until n reaches 100 / (100 - P): a P99 of
    fewer than 100 values (a P90 of fewer than 10) is their maximum, and is shown as that."""
    return n * (100 - p) < 100


def percentiles(values: list[float], ps: tuple[int, ...] = (50, 90, 99)) -> dict[str, float]:
    """P-th percentiles (linear interpolation), the mean and n, the number of values. A percentile
    that n cannot resolve (`tail_is_max`) is the maximum itself, not an interpolation toward it."""
    if not values:
        return {f"p{p}": float("nan") for p in ps} | {"mean": float("nan"), "n": 0}
    arr = np.asarray(values, dtype=float)
    tail = {p: float(arr.max()) if tail_is_max(p, arr.size) else float(np.percentile(arr, p)) for p in ps}
    return {f"p{p}": v for p, v in tail.items()} | {"mean": float(arr.mean()), "n": int(arr.size)}
