"""Linear layers that run on the kernel chosen for their shape and the size of the call.

Three kernels on CPU: "linear" (`F.linear`, MKL's sgemm/sgemv behind it), "packed" (oneDNN's
inner product on a weight reordered once at load) and "gemv" (our C kernel on a weight packed for
streaming, engine/kernels/native.py: float32, where a C compiler built it). Which is faster depends on the
machine and the shape: on an AVX-512 machine oneDNN was 2-3x MKL everywhere; on an AVX2 one it wins
some decode shapes by 25 % and loses others by 50 %. So engine/loader/kernel_timing.py times them on the model's own shapes
and a Linear holds what its choice needs: one kernel for decode-sized calls (few rows, a stream of
weights) and one for prefill-sized calls (a GEMM); both copies only where the two differ.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from engine.errors import LabError
from engine.kernels import native

KERNELS = ("linear", "packed", "gemv")
DECODE_ROWS = 16  # a call with fewer rows is decode-sized (weights streamed once for a few tokens)


def can_pack(weight: torch.Tensor) -> bool:
    return (
        weight.device.type == "cpu"
        and weight.dtype in (torch.float32, torch.bfloat16)
        and torch.backends.mkldnn.is_available()
        and hasattr(torch.ops.mkldnn, "_linear_pointwise")
    )


def pack(weight: torch.Tensor) -> torch.Tensor | None:
    """The oneDNN-reordered copy of `weight`, or None where oneDNN cannot take it (ISA, dtype)."""
    if not can_pack(weight):
        return None
    try:
        return torch.ops.mkldnn._reorder_linear_weight(weight, None)
    except RuntimeError:  # e.g. bf16 without AVX-512 or AVX-NE-CONVERT
        return None


PREPARE = {"linear": lambda w: w, "packed": pack, "gemv": native.pack}  # None: this kernel cannot take w


def run_kernel(kernel: str, x: torch.Tensor, weight, bias: torch.Tensor | None) -> torch.Tensor:
    if kernel == "packed":
        return torch.ops.mkldnn._linear_pointwise(x, weight, bias, "none", [], "")
    if kernel == "gemv":
        return native.gemv(x, weight, bias)
    return F.linear(x, weight, bias)


class Linear:
    """y = x W^T + b for x (N, in), on `decode_kernel` when N < DECODE_ROWS, else `prefill_kernel`.

    `spare`: decode kernels whose weight is also prepared, so that the decode kernel can be switched
    (`use_decode_kernel`) while the loader times a whole decode step both ways; `release_spares` then
    drops every copy the chosen kernels do not read."""

    def __init__(
        self,
        weight: torch.Tensor,
        bias: torch.Tensor | None = None,
        kernels: tuple[str, str] = ("linear", "linear"),
        spare: tuple[str, ...] = (),
    ):
        if any(k not in KERNELS for k in kernels + spare):
            raise LabError(f"Unknown kernel in {kernels + spare}; choose from {', '.join(KERNELS)}.")
        self.out_features, self.in_features = weight.shape
        self.bias = bias
        self._elem_bytes = weight.element_size()
        self.weights = dict.fromkeys(KERNELS)
        for kernel in dict.fromkeys(kernels):
            self.weights[kernel] = PREPARE[kernel](weight)
        if any(self.weights[k] is None for k in kernels):  # oneDNN or the C kernel cannot take it here
            kernels = ("linear", "linear")
            self.weights = {**dict.fromkeys(KERNELS), "linear": weight}
        for kernel in spare:
            if self.weights[kernel] is None:
                self.weights[kernel] = PREPARE[kernel](weight)  # stays None where it cannot run here
        self.decode_kernel, self.prefill_kernel = kernels
        self.own_decode_kernel = kernels[0]  # the plan's choice for this layer alone
        self._decode_w, self._prefill_w = self.weights[kernels[0]], self.weights[kernels[1]]

    def use_decode_kernel(self, kernel: str) -> None:
        """Decode-sized calls run on `kernel` from now on; its weight must be held."""
        if self.weights.get(kernel) is None:
            raise LabError(f"This layer holds no weight for the {kernel!r} kernel.")
        self.decode_kernel, self._decode_w = kernel, self.weights[kernel]

    def release_spares(self) -> None:
        """Drop the weight copies that neither the decode nor the prefill kernel reads."""
        for kernel in KERNELS:
            if kernel not in self.kernels:
                self.weights[kernel] = None

    def __call__(self, x: torch.Tensor) -> torch.Tensor:
        if x.shape[0] < DECODE_ROWS:
            return run_kernel(self.decode_kernel, x, self._decode_w, self.bias)
        return run_kernel(self.prefill_kernel, x, self._prefill_w, self.bias)

    @property
    def kernels(self) -> tuple[str, str]:
        return self.decode_kernel, self.prefill_kernel

    def gemv_weight(self, rows: int) -> native.PackedWeight | None:
        """The weight in the C kernels' layout where a call of this many rows runs on them, else None."""
        kernel = self.decode_kernel if rows < DECODE_ROWS else self.prefill_kernel
        return self.weights["gemv"] if kernel == "gemv" else None

    @property
    def decode_packed(self) -> native.PackedWeight | None:
        """The weight in the C kernels' layout where decode-sized calls run on them (the one-call decode step)."""
        return self.gemv_weight(1)

    @property
    def num_bytes(self) -> int:
        """Bytes of one copy of the weight (what a forward reads), the bias included."""
        return self._weight_bytes + self._bias_bytes

    @property
    def held_bytes(self) -> int:
        """Bytes held: two copies of the weight where decode and prefill use different kernels."""
        return sum(w is not None for w in self.weights.values()) * self._weight_bytes + self._bias_bytes

    @property
    def _weight_bytes(self) -> int:
        return self.out_features * self.in_features * self._elem_bytes

    @property
    def _bias_bytes(self) -> int:
        return self.bias.numel() * self.bias.element_size() if self.bias is not None else 0
