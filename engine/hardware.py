"""Measured ceilings of this machine: memory read bandwidth and matrix-multiply rate.

The floors in bench/ and the roofline come from these: a decode step cannot beat
(weights + KV bytes) / bandwidth, a prefill cannot beat FLOPs / GEMM rate.
"""
from __future__ import annotations

import time
from dataclasses import dataclass

import torch

from engine.linear import Linear


@dataclass
class Ceilings:
    read_gbs: float  # streaming read bandwidth, all threads (torch.sum over a buffer far beyond cache)
    gemm_gflops: float  # best square fp32 GEMM rate of the kernels the engine can use
    gemm_kernel: str
    threads: int

    def describe(self) -> str:
        return (f"read bandwidth {self.read_gbs:.1f} GB/s (torch.sum over 1 GiB, {self.threads} threads); "
                f"fp32 GEMM {self.gemm_gflops:.0f} GFLOP/s ({self.gemm_kernel}, 2048x2048)")


def _best_time(fn, repeats: int) -> float:
    fn()
    best = float("inf")
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def measure_read_bandwidth(num_bytes: int = 1 << 30, repeats: int = 5) -> float:
    buf = torch.ones(num_bytes // 4, dtype=torch.float32)
    return num_bytes / _best_time(buf.sum, repeats) / 1e9


def measure_gemm(n: int = 2048, repeats: int = 3) -> tuple[float, str]:
    a, w = torch.randn(n, n), torch.randn(n, n)
    flops = 2 * n ** 3
    rates = {"torch.mm (MKL)": flops / _best_time(lambda: a @ w, repeats) / 1e9}
    packed = Linear(w)
    if packed.packed is not None:
        rates["oneDNN packed linear"] = flops / _best_time(lambda: packed(a), repeats) / 1e9
    kernel = max(rates, key=rates.get)
    return rates[kernel], kernel


def measure_ceilings() -> Ceilings:
    gflops, kernel = measure_gemm()
    return Ceilings(read_gbs=measure_read_bandwidth(), gemm_gflops=gflops, gemm_kernel=kernel,
                    threads=torch.get_num_threads())
