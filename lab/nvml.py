"""GPU utilisation and power samples from NVML while a run goes on, when there is a CUDA device and
the optional `pynvml` package; otherwise `nvml_status()` says why not and nothing is sampled."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field

import torch


def nvml_status(device: str) -> str | None:
    """None when sampling can work, else the reason ('cpu', 'no pynvml', or the NVML error)."""
    if not device.startswith("cuda") or not torch.cuda.is_available():
        return "cpu"
    try:
        import pynvml  # noqa: F401
    except ImportError:
        return "no pynvml (pip install nvidia-ml-py, or pip install -e '.[gpu]')"
    try:
        pynvml.nvmlInit()
    except Exception as e:  # noqa: BLE001 - any NVML failure just means no samples
        return str(e)
    return None


@dataclass
class NvmlSamples:
    times: list[float] = field(default_factory=list)  # seconds since the start
    utilisation_pct: list[float] = field(default_factory=list)
    power_w: list[float] = field(default_factory=list)


class NvmlSampler:
    """with NvmlSampler("cuda:0") as s: ...  -> s.samples, taken every `interval_s` in a thread."""

    def __init__(self, device: str, interval_s: float = 0.05):
        self.device, self.interval_s = device, interval_s
        self.samples = NvmlSamples()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def __enter__(self) -> NvmlSampler:
        if nvml_status(self.device) is None:
            self._thread = threading.Thread(target=self._run, daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2)

    def _run(self) -> None:
        import pynvml

        index = torch.device(self.device).index or 0
        handle = pynvml.nvmlDeviceGetHandleByIndex(index)
        start = time.perf_counter()
        while not self._stop.is_set():
            self.samples.times.append(time.perf_counter() - start)
            self.samples.utilisation_pct.append(float(pynvml.nvmlDeviceGetUtilizationRates(handle).gpu))
            self.samples.power_w.append(pynvml.nvmlDeviceGetPowerUsage(handle) / 1e3)  # mW -> W
            self._stop.wait(self.interval_s)
