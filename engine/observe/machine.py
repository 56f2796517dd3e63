"""What machine this is, in the words every measurement is printed and cached with: the CPU's
model and the instruction set torch dispatches to (AVX2, AVX512, ...), the thread count, torch;
and the JSON files such measurements are cached in, keyed by it."""

from __future__ import annotations

import json
import os
import platform
from pathlib import Path

import torch


def _cpuinfo(field: str) -> str | None:
    """The first `field` line's value in /proc/cpuinfo (Linux); None where there is none."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith(field):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return None


def cpu_model() -> str:
    return _cpuinfo("model name") or platform.processor() or platform.machine() or "unknown CPU"


def cpu_flags() -> str:
    """The instruction-set flags the kernel reports ("" where it reports none)."""
    return _cpuinfo("flags") or ""


def cpu_capability() -> str:
    """The widest vector ISA torch's CPU kernels use here, e.g. 'AVX2' or 'AVX512'."""
    try:
        return torch.backends.cpu.get_cpu_capability()
    except AttributeError:  # an older torch
        return "unknown"


def describe_cpu() -> str:
    return f"{cpu_model()}, {cpu_capability()}, {torch.get_num_threads()} threads, torch {torch.__version__}"


def device_name(device: str) -> str:
    if device.startswith("cuda"):
        return torch.cuda.get_device_name(torch.device(device))
    return cpu_model()


def machine_key(device: str = "cpu") -> str:
    """What a measurement belongs to: another CPU, ISA, thread count, torch or device measures again."""
    return (
        f"{cpu_model()} | {cpu_capability()} | threads={torch.get_num_threads()} | torch={torch.__version__} | "
        f"{device}:{device_name(device)}"
    )


def read_cache(path: Path) -> dict:
    """A measurement cache's entries; {} when it is missing or damaged (measure again)."""
    try:
        data = json.loads(path.read_text())
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}


def write_cache(path: Path, data: dict) -> None:
    """Write atomically (a reader never sees half a file); a read-only place is skipped: the
    measurement still serves this run and is taken again next time."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(data, indent=1))
        tmp.replace(path)
    except OSError:
        pass
