"""What machine this is, in the words every measurement is printed and cached with: the CPU's
model and the instruction set torch dispatches to (AVX2, AVX512, ...), the thread count, torch."""
from __future__ import annotations

import platform
from pathlib import Path

import torch


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown CPU"


def cpu_capability() -> str:
    """The widest vector ISA torch's CPU kernels use here, e.g. 'AVX2' or 'AVX512'."""
    try:
        return torch.backends.cpu.get_cpu_capability()
    except AttributeError:  # an older torch
        return "unknown"


def describe_cpu() -> str:
    return f"{cpu_model()}, {cpu_capability()}, {torch.get_num_threads()} threads, torch {torch.__version__}"


def machine_key(device: str = "cpu") -> str:
    """What a measurement belongs to: another CPU, ISA, thread count, torch or device measures again."""
    name = torch.cuda.get_device_name(torch.device(device)) if device.startswith("cuda") else cpu_model()
    return (f"{cpu_model()} | {cpu_capability()} | threads={torch.get_num_threads()} | torch={torch.__version__} | "
            f"{device}:{name}")
