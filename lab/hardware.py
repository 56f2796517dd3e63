"""Measured ceilings of this machine: memory read bandwidth and matrix-multiply rate.

The floors in bench/ and the roofline come from these: a decode step cannot beat
(weights + KV bytes) / bandwidth, a prefill cannot beat FLOPs / GEMM rate.

`measure_ceilings()` is the quick fp32 CPU pair the benches print. `machine_ceilings()` is the full
set the roofline page uses: GEMM rate per dtype and read bandwidth, on the CPU or a CUDA device,
measured once and cached as JSON under ~/.cache/prefill-decode-lab/, keyed by the machine
(CPU model, threads, torch version, device) so a different machine or torch never reuses it.

Other work on the cores lowers every roof. A measurement keeps how busy other processes kept the
machine meanwhile (lab/busy.py), and one measured busy is marked so wherever it is shown; the next time
it is asked for while the machine reads quiet (`quiet_now`), it is measured again and replaces the cache.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

import torch

from engine.errors import LabError
from engine.kernels import native
from engine.layers.linear import pack, run_kernel
from engine.observe.machine import device_name, machine_key, read_cache, write_cache
from engine.paths import cache_dir
from lab.busy import LoadMeter, MachineLoad


@dataclass
class Ceilings:
    read_gbs: float  # streaming read bandwidth, all threads (measure_read)
    gemm_gflops: float  # best square fp32 GEMM rate of the kernels the engine can use
    gemm_kernel: str
    threads: int
    read_how: str = ""  # how each roof was measured, as describe() says it
    gemm_how: str = ""

    def describe(self) -> str:
        gemm_how = self.gemm_how or f"{self.gemm_kernel}, 2048x2048"
        return f"read bandwidth {self.read_gbs:.1f} GB/s ({self.read_how}); fp32 GEMM {self.gemm_gflops:.0f} GFLOP/s ({gemm_how})"


def _best_time(fn, repeats: int) -> float:
    fn()
    best = float("inf")
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def _c_stream_rate(num_bytes: int, repeats: int) -> float | None:
    """Bytes/s our C matrix kernel streams: one row against a packed float32 weight of num_bytes, the
    way a decode reads its weights (it outruns torch.sum on some CPUs); None without the kernels."""
    if native.library() is None:
        return None
    k = 4096
    n = num_bytes // 4 // k // native.BLOCK * native.BLOCK
    weight = native.PackedWeight(torch.ones(n // native.BLOCK, k, native.BLOCK), n)
    x = torch.ones(1, k)
    return n * k * 4 / _best_time(lambda: native.gemv(x, weight), repeats)


def measure_gemm(n: int = 2048, repeats: int = 3) -> tuple[float, str]:
    a, w = torch.randn(n, n), torch.randn(n, n)
    flops = 2 * n**3
    rates = {"torch.mm (MKL)": flops / _best_time(lambda: a @ w, repeats) / 1e9}
    packed = pack(w)
    if packed is not None:
        rates["oneDNN packed linear"] = flops / _best_time(lambda: run_kernel("packed", a, packed, None), repeats) / 1e9
    kernel = max(rates, key=rates.get)
    return rates[kernel], kernel


def measure_ceilings() -> Ceilings:
    gflops, kernel = measure_gemm()
    rate, how = measure_read("cpu")
    threads = torch.get_num_threads()
    return Ceilings(rate / 1e9, gflops, kernel, threads, read_how=f"{how}, {threads} threads")


# --- the cached, per-dtype ceilings of one device ---------------------------------------------------

CACHE_ENV = "PDLAB_HARDWARE_CACHE"  # a file of its own; by default beside the converted models
GEMM_DTYPES = ("float32", "bfloat16", "float16")
ProgressFn = Callable[[str, float], None]


def cache_path() -> Path:
    env = os.environ.get(CACHE_ENV, "").strip()
    return Path(env) if env else cache_dir() / "hardware.json"


@dataclass
class DeviceCeilings:
    """Measured roofs of one device: GEMM FLOP/s per dtype (None: not supported there) and read bandwidth."""

    device: str
    device_name: str
    read_bytes_per_s: float
    gemm_flops_per_s: dict[str, float | None]
    gemm_kernel: str
    threads: int
    torch_version: str
    measured_at: float = field(default_factory=time.time)
    key: str = ""
    load_average: float | None = None  # 1-minute load when measured: other jobs on the cores lower every roof
    op_overhead_s: float | None = None  # fixed cost of one tiny op (dispatch + launch), the "overhead" regime
    read_how: str = ""  # what reached the read rate (measure_read); empty in entries measured before it was kept
    other_cores: float | None = None  # cores other processes kept busy while measured (lab/busy.py)
    cores: int | None = None

    @property
    def machine(self) -> MachineLoad | None:
        """How busy other work kept the machine while these were measured (None before that was kept)."""
        if self.other_cores is None:
            return None
        return MachineLoad(self.other_cores, self.cores or os.cpu_count() or 1, 0.0)

    @property
    def busy(self) -> bool:
        """Measured while other work took a real share of the cores: every roof may read low. An entry
        from before that was kept reads busy at a load average of a runnable task per core or more."""
        if self.machine is not None:
            return self.machine.busy
        return self.load_average is not None and self.load_average >= (self.cores or os.cpu_count() or 1)

    def peak_flops(self, dtype: str) -> float:
        """The compute roof for `dtype`; a ValueError when it was not measurable here."""
        rate = self.gemm_flops_per_s.get(dtype)
        if not rate:
            raise LabError(
                f"No {dtype} matrix-multiply rate was measured on {self.device_name} "
                f"({self.device}); it is not supported there."
            )
        return rate

    def ridge_point(self, dtype: str) -> float:
        """Arithmetic intensity (FLOP/byte) where the bandwidth slope meets the compute roof."""
        return self.peak_flops(dtype) / self.read_bytes_per_s

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict) -> DeviceCeilings:
        return cls(**d)


def _sync(device: str) -> None:
    if device.startswith("cuda"):  # never touch torch.cuda on a CPU-only run
        torch.cuda.synchronize(torch.device(device))


def _best_device_time(fn, repeats: int, device: str) -> float:
    """Fastest of `repeats` runs after one warm-up, in seconds; CUDA timed with events."""
    fn()
    _sync(device)
    best = float("inf")
    for _ in range(repeats):
        if device.startswith("cuda"):
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            fn()
            end.record()
            end.synchronize()
            best = min(best, start.elapsed_time(end) / 1e3)
        else:
            t = time.perf_counter()
            fn()
            best = min(best, time.perf_counter() - t)
    return best


def measure_read(device: str = "cpu", num_bytes: int | None = None, repeats: int = 5) -> tuple[float, str]:
    """(bytes/s, how): torch.sum over a buffer far larger than any cache, and on the CPU our C matrix
    kernel streaming as much; the faster of the two, since a roof must be one the engine cannot beat."""
    num_bytes = num_bytes or ((2 << 30) if device.startswith("cuda") else (1 << 30))
    buf = torch.ones(num_bytes // 4, dtype=torch.float32, device=device)
    rates = {"torch.sum": num_bytes / _best_device_time(buf.sum, repeats, device)}
    del buf
    if device == "cpu" and (c_rate := _c_stream_rate(num_bytes, repeats)) is not None:
        rates["our C gemv, one row"] = c_rate
    how = max(rates, key=rates.get)
    return rates[how], f"{how} over {num_bytes / 2**30:g} GiB"


def measure_device_gemm(device: str, dtype: str, n: int | None = None, repeats: int = 3) -> tuple[float | None, str]:
    """Square GEMM rate (FLOP/s) for `dtype` and the kernel that reached it; (None, why) if unsupported."""
    n = n or (8192 if device.startswith("cuda") else 2048)
    torch_dtype = getattr(torch, dtype)
    try:
        n = min(n, _affordable_size(device, torch_dtype))
        a = torch.randn(n, n, device=device).to(torch_dtype)
        w = torch.randn(n, n, device=device).to(torch_dtype)
        flops = 2 * n**3
        rates = {"torch.mm": flops / _best_device_time(lambda: a @ w, repeats, device)}
        if device == "cpu" and dtype == "float32":  # the engine's own fp32 CPU path
            packed = pack(w)
            if packed is not None:
                rates["oneDNN packed linear"] = flops / _best_device_time(
                    lambda: run_kernel("packed", a, packed, None), repeats, device
                )
    except (RuntimeError, TypeError) as e:  # e.g. a dtype this build has no GEMM kernel for
        return None, f"unsupported: {str(e).splitlines()[0][:80]}"
    kernel = max(rates, key=rates.get)
    return rates[kernel], f"{kernel}, {n}x{n}"


def _affordable_size(device: str, torch_dtype: torch.dtype, budget_s: float = 0.15) -> int:
    """The largest n (a multiple of 128, at least 256) whose GEMM takes about `budget_s` at the rate a
    256x256 probe shows: a dtype without a fast kernel here (fp16 on most CPUs, ~1 GFLOP/s) is then
    measured in a fraction of a second instead of many."""
    probe = torch.randn(256, 256, device=device).to(torch_dtype)
    rate = 2 * 256**3 / _best_device_time(lambda: probe @ probe, 2, device)
    return max(256, int((budget_s * rate / 2) ** (1 / 3)) // 128 * 128)


def measure_op_overhead(device: str = "cpu", num_ops: int = 2000, repeats: int = 5) -> float:
    """Seconds per op for an op that does almost no work (adding two 1-element tensors): what every
    op costs before it touches any data. A step of ~1,000 small ops pays it ~1,000 times; neither
    roof counts it (Horace He, "Making Deep Learning Go Brrrr From First Principles": compute,
    memory bandwidth and overhead)."""
    a = torch.ones(1, device=device)
    b = torch.ones(1, device=device)

    def ops() -> None:
        for _ in range(num_ops):
            torch.add(a, b)

    return _best_device_time(ops, repeats, device) / num_ops


def measure_device_ceilings(device: str = "cpu", progress: ProgressFn | None = None) -> DeviceCeilings:
    """Read bandwidth, then a GEMM per dtype; progress(stage, fraction) after each (a few seconds on CPU)."""
    if device.startswith("cuda") and not torch.cuda.is_available():
        raise LabError(f"Device {device!r} asked for, but this PyTorch build sees no CUDA device.")
    progress = progress or (lambda stage, frac: None)
    steps = 1 + len(GEMM_DTYPES)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    meter = LoadMeter().start()
    progress("read bandwidth", 0.0)
    bandwidth, read_how = measure_read(device)
    rates: dict[str, float | None] = {}
    kernels = []
    for i, dtype in enumerate(GEMM_DTYPES, start=1):
        progress(f"{dtype} matrix multiply", i / steps)
        rates[dtype], kernel = measure_device_gemm(device, dtype)
        kernels.append(f"{dtype}: {kernel}")
    progress("per-op overhead", 0.95)
    overhead = measure_op_overhead(device)
    other = meter.stop()
    progress("done", 1.0)
    return DeviceCeilings(
        device=device,
        device_name=device_name(device),
        read_bytes_per_s=bandwidth,
        read_how=read_how,
        gemm_flops_per_s=rates,
        gemm_kernel="; ".join(kernels),
        threads=torch.get_num_threads(),
        torch_version=torch.__version__,
        key=machine_key(device),
        load_average=load,
        op_overhead_s=overhead,
        other_cores=other.other_cores,
        cores=other.cores,
    )


def cached_ceilings(device: str = "cpu") -> DeviceCeilings | None:
    """This machine's cached measurement for `device`, or None if it was never measured."""
    entry = read_cache(cache_path()).get(machine_key(device))
    if entry and not entry.get("read_how"):  # measured by torch.sum alone: the roof may be too low
        return None
    try:
        return DeviceCeilings.from_dict(entry) if entry else None
    except TypeError:  # written by an older layout: measure again
        return None


def quiet_now(seconds: float = 0.5) -> bool:
    """Whether other processes leave the machine quiet now: a short reading of the load meter."""
    with LoadMeter() as meter:
        time.sleep(seconds)
    return meter.load.other_cores is not None and not meter.load.busy


def machine_ceilings(
    device: str = "cpu", remeasure: bool = False, progress: ProgressFn | None = None, refresh_busy: bool = False
) -> DeviceCeilings:
    """The cached ceilings of this machine's `device`, measuring (and caching) them when missing or asked;
    `refresh_busy`: also when they were measured busy and the machine reads quiet now."""
    if not remeasure:
        cached = cached_ceilings(device)
        if cached is not None and not (refresh_busy and cached.busy and quiet_now()):
            return cached
    ceilings = measure_device_ceilings(device, progress)
    path = cache_path()
    write_cache(path, read_cache(path) | {ceilings.key: ceilings.to_dict()})
    return ceilings
