"""Memory probes: the peak of tensor memory allocated during one step, above where it started.

On CUDA: the caching allocator's own counters (`max_memory_allocated`). On CPU there are no such
counters, so a TorchDispatchMode sees every tensor an op returns and a weakref finaliser on its
storage sees it freed; the running sum's high-water mark is the peak. It sees op outputs, not
scratch buffers inside a fused kernel (the point of those kernels). Never RSS, and never
`torch.cuda.*` without CUDA (it silently returns 0).
"""

from __future__ import annotations

import contextvars
import weakref
from collections import Counter
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field

import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_leaves

_ALIASING: dict = {}
_label = contextvars.ContextVar("allocation_label", default="activations")


@contextmanager
def label(name: str):
    """Tag the tensors allocated inside the block (e.g. "attention scores") for the peak breakdown."""
    token = _label.set(name)
    try:
        yield
    finally:
        _label.reset(token)


# A forward's blocks, tagged so a probe's peak says where it happened: each block's temporaries are freed
# before the next block runs, so at the peak only the block running then has bytes under its tag.
ATTENTION, MLP = "attention", "MLP"
SCORES = "attention scores"  # eager's score matrices, tagged inside attention (their own line in the breakdown)
_UNTAGGED = nullcontext()
_probing = contextvars.ContextVar("probing", default=False)  # a CPU probe counts in this thread


def block(name: str):
    """label(name) while a CPU memory probe counts, else nothing: a forward without one pays nothing."""
    return label(name) if _probing.get() else _UNTAGGED


def _returns_alias(func) -> bool:
    if func not in _ALIASING:
        _ALIASING[func] = any(r.alias_info is not None for r in func._schema.returns)
    return _ALIASING[func]


class AllocationTracker(TorchDispatchMode):
    """Counts bytes of live tensor storages created inside the `with` block."""

    def __init__(self):
        super().__init__()
        self.current = 0
        self.peak = 0
        self.by_label: Counter = Counter()  # live bytes per label now
        self.peak_by_label: dict[str, int] = {}  # live bytes per label at the peak
        self._live: dict[int, tuple[weakref.ref, int, str]] = {}  # storage pointer -> (weakref, bytes, label)

    def _track(self, t: torch.Tensor) -> None:
        storage = t.untyped_storage()
        key = storage.data_ptr()
        if key in self._live or t.device.type != "cpu":
            return  # views share their base's storage: counted once
        nbytes = storage.nbytes()
        if not nbytes:
            return
        tag = _label.get()
        self._live[key] = (weakref.ref(storage, lambda _, key=key: self._freed(key)), nbytes, tag)
        self.current += nbytes
        self.by_label[tag] += nbytes
        if self.current > self.peak:
            self.peak = self.current
            self.peak_by_label = dict(self.by_label)

    def _freed(self, key: int) -> None:
        entry = self._live.pop(key, None)
        if entry is not None:
            self.current -= entry[1]
            self.by_label[entry[2]] -= entry[1]

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        if _returns_alias(func):  # views and in-place ops allocate nothing new
            return out
        if isinstance(out, torch.Tensor):
            self._track(out)
        else:
            for t in tree_leaves(out):
                if isinstance(t, torch.Tensor):
                    self._track(t)
        return out

    def __enter__(self):
        self._probing = _probing.set(True)  # per thread, as the dispatch mode itself
        return super().__enter__()

    def __exit__(self, *exc):
        _probing.reset(self._probing)
        self._live.clear()  # tensors that outlive the block are no longer ours to track
        return super().__exit__(*exc)


@dataclass
class MemoryReading:
    peak_bytes: int = 0  # high-water mark above the allocation at the start of the step
    retained_bytes: int = 0  # still allocated at the end (e.g. outputs handed back)
    method: str = "none"
    peak_by_label: dict[str, int] = field(default_factory=dict)  # CPU only: what was alive at the peak


@contextmanager
def measure_peak(device: torch.device, enabled: bool = True):
    """with measure_peak(dev) as reading: ...  -> reading.peak_bytes after the block."""
    reading = MemoryReading()
    if not enabled:
        yield reading
        return
    if device.type == "cuda":
        torch.cuda.synchronize(device)
        base = torch.cuda.memory_allocated(device)
        torch.cuda.reset_peak_memory_stats(device)
        yield reading
        torch.cuda.synchronize(device)
        reading.peak_bytes = torch.cuda.max_memory_allocated(device) - base
        reading.retained_bytes = torch.cuda.memory_allocated(device) - base
        reading.method = "cuda.max_memory_allocated"
        return
    tracker = AllocationTracker()
    with tracker:
        yield reading
    reading.peak_bytes = tracker.peak
    reading.retained_bytes = tracker.current
    reading.peak_by_label = {k: v for k, v in tracker.peak_by_label.items() if v}
    reading.method = "TorchDispatchMode tensor tracker"


def device_memory_bytes(device: torch.device) -> int | None:
    """Memory a KV pool can use on this device: a GPU's total memory, or the machine's RAM; None if unknown."""
    if device.type == "cuda":
        return torch.cuda.get_device_properties(device).total_memory
    try:
        import os

        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):  # not POSIX
        return None
