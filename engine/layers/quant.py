"""Quantised weights: int8 per output channel, made at load from the model's own weights.

Two formats, each with its own numbers (quality is measured per format, lab/precision.py):

    int8   weight-only: W ≈ q · s (q int8, s one scale per output row); activations stay in the
           model's dtype. Kernels: "int8pack" (torch._weight_int8pack_mm: x @ q^T, then · s),
           "dequant" (q · s in the model's dtype, then F.linear) and "int8gemv" (our C kernel on q
           packed for streaming, engine/kernels/native.py: float32 activations, where a compiler built it);
           the same numbers, so engine/loader/kernel_timing.py chooses among them by timing, per shape and per
           regime (decode vs prefill).
    w8a8   int8 weights and int8 activations, quantised per call (one scale for the call's rows,
           7-bit range as fbgemm needs on AVX2), int32 accumulation: torch.ops.quantized.linear_dynamic
           (fbgemm on x86). Float32 activations only; CPU only. torch 2.13 marks the quantised tensors
           this packing goes through as deprecated (pytorch#184982): the pin keeps it working, and a
           later torch needs another kernel here.

A third format, gguf, is not made here: it keeps a GGUF file's own blocks (engine/layers/gguf_weights.py).

A QuantLinear is called like engine/linear.Linear (y = x W^T + b); the model's forward is one path.
"""

from __future__ import annotations

import warnings

import torch
import torch.nn.functional as F

from engine.errors import LabError
from engine.kernels import native

WEIGHT_FORMATS = ("native", "int8", "w8a8", "gguf")  # gguf: the file's own blocks (engine/layers/gguf_weights.py)
INT8_KERNELS = ("int8pack", "dequant", "int8gemv")
DECODE_ROWS = 16  # as engine/layers/linear.py: fewer rows is a decode-sized call


def quantize_int8(weight: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Symmetric per-output-channel int8: q = round(W / s), s = max|row| / 127 (1 for a zero row).
    Returns (q int8 (out, in), s float32 (out,)); |W - q·s| <= s/2 elementwise."""
    w = weight.float()
    scale = w.abs().amax(dim=1) / 127.0
    scale = torch.where(scale > 0, scale, torch.ones_like(scale))
    q = torch.round(w / scale[:, None]).clamp_(-127, 127).to(torch.int8)
    return q, scale


def dequantize_int8(q: torch.Tensor, scale: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    return (q.to(torch.float32) * scale[:, None]).to(dtype)


def can_w8a8(dtype: torch.dtype, device: torch.device) -> bool:
    return device.type == "cpu" and dtype == torch.float32 and "fbgemm" in torch.backends.quantized.supported_engines


def check_format(fmt: str, dtype: torch.dtype, device: torch.device) -> None:
    """A ValueError that says why a weight format cannot run with this dtype on this device."""
    if fmt not in WEIGHT_FORMATS:
        raise LabError(f"Unknown weight format {fmt!r}; choose one of {', '.join(WEIGHT_FORMATS)}.")
    if fmt == "w8a8" and not can_w8a8(dtype, device):
        raise LabError(
            f"w8a8 (int8 weights and activations) runs on fbgemm: CPU and float32 only, not "
            f"{str(dtype).removeprefix('torch.')} on {device.type}."
        )
    if fmt == "int8" and device.type != "cpu":
        raise LabError(f"int8 weight-only runs on the CPU here; {device.type} is not supported yet.")
    if fmt == "gguf":
        if device.type != "cpu" or dtype != torch.float32:
            raise LabError(
                f"gguf (the GGUF file's own 4-bit blocks) runs on the CPU with float32 activations, not "
                f"{str(dtype).removeprefix('torch.')} on {device.type}."
            )
        if native.library() is None:
            raise LabError(
                f"gguf weights run on this lab's C kernels, which are not built here: {native.build_error()}."
            )


def pack_int8(q: torch.Tensor, scale: torch.Tensor, dtype: torch.dtype) -> native.PackedWeight | None:
    """q packed for the C kernel; None where it cannot run (activations other than float32, no library)."""
    return native.pack(q, scale) if dtype == torch.float32 else None


def int8_kernel(kernel: str, x: torch.Tensor, q: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
    """int8pack or dequant on q and its scales ("int8gemv" runs on its packed copy: native.gemv)."""
    if kernel == "int8pack":
        return torch._weight_int8pack_mm(x, q, scale.to(x.dtype))
    return F.linear(x, dequantize_int8(q, scale, x.dtype))


class QuantLinear:
    """y = x W^T + b with W held as int8 (see the module docstring); the same interface as Linear."""

    def __init__(
        self,
        weight: torch.Tensor,
        bias: torch.Tensor | None,
        fmt: str,
        kernels: tuple[str, str] = ("dequant", "dequant"),
        quantized: tuple[torch.Tensor, torch.Tensor] | None = None,
        spare: tuple[str, ...] = (),
    ):
        """quantized: (q, scale) already made from `weight` (a tied LM head shares the embedding's).
        spare: decode kernels also made ready (as Linear's: only "int8gemv" needs a copy of its own)."""
        self.format = fmt
        self.out_features, self.in_features = weight.shape
        self.bias = bias
        self.q, self.scale = quantized if quantized is not None else quantize_int8(weight)
        self._gemv = None  # q packed for the C kernel, where it runs on it
        if fmt == "w8a8":
            with warnings.catch_warnings():  # torch 2.13 marks quantised tensors deprecated; torch is pinned
                warnings.filterwarnings("ignore", message=".*quantized tensor creation functions.*")
                qw = torch.quantize_per_channel(
                    weight.float(),
                    self.scale.double(),
                    torch.zeros(self.out_features, dtype=torch.long),
                    0,
                    torch.qint8,
                )
            self._packed = torch.ops.quantized.linear_prepack(qw, bias.float() if bias is not None else None)
            self.q = None  # fbgemm keeps its own packed copy: hold one
            self.decode_kernel = self.prefill_kernel = self.own_decode_kernel = "fbgemm"
        else:
            if any(k not in INT8_KERNELS for k in kernels + spare):
                raise LabError(f"Unknown int8 kernel in {kernels + spare}; choose from {', '.join(INT8_KERNELS)}.")
            self._gemv = pack_int8(self.q, self.scale, weight.dtype) if "int8gemv" in kernels + spare else None
            if "int8gemv" in kernels and self._gemv is None:  # the C kernel cannot run here
                kernels = tuple("dequant" if k == "int8gemv" else k for k in kernels)
            self.decode_kernel, self.prefill_kernel = kernels
            self.own_decode_kernel = kernels[0]  # the plan's choice for this layer alone
            self._shares_q = quantized is not None
            if not spare:
                self.release_spares()

    def use_decode_kernel(self, kernel: str) -> None:
        """Decode-sized calls run on `kernel` from now on; its weight must be held."""
        if (self._gemv if kernel == "int8gemv" else self.q) is None or self.format == "w8a8":
            raise LabError(f"This layer holds no weight for the {kernel!r} kernel.")
        self.decode_kernel = kernel

    def release_spares(self) -> None:
        """Drop the copies that neither kernel reads: the packed one, or q where every call reads the
        packed copy (a tied head's q is the embedding's, kept)."""
        if self.format == "w8a8":
            return
        if "int8gemv" not in self.kernels:
            self._gemv = None
        elif self.kernels == ("int8gemv", "int8gemv") and not self._shares_q:
            self.q = None

    def __call__(self, x: torch.Tensor) -> torch.Tensor:
        if self.format == "w8a8":
            return torch.ops.quantized.linear_dynamic(x, self._packed, True)  # reduce_range: 7-bit activations
        kernel = self.decode_kernel if x.shape[0] < DECODE_ROWS else self.prefill_kernel
        if kernel == "int8gemv":
            return native.gemv(x, self._gemv, self.bias)
        y = int8_kernel(kernel, x, self.q, self.scale)
        return y + self.bias if self.bias is not None else y

    def dequantized(self, dtype: torch.dtype) -> torch.Tensor:
        """The weight these int8 numbers stand for (the reference a test compares against)."""
        if self.format == "w8a8":
            return torch.ops.quantized.linear_unpack(self._packed)[0].dequantize().to(dtype)
        return dequantize_int8(self.int8_rows(), self.scale, dtype)

    def int8_rows(self) -> torch.Tensor:
        """q (out, in), from the packed copy where that is the one held."""
        if self.q is not None:
            return self.q
        return self._gemv.data.transpose(1, 2).reshape(-1, self.in_features)[: self.out_features]

    @property
    def kernels(self) -> tuple[str, str]:
        return self.decode_kernel, self.prefill_kernel

    @property
    def decode_packed(self) -> native.PackedWeight | None:
        """q in the C kernels' layout where decode-sized calls run on it (the one-call decode step)."""
        return self._gemv if self.decode_kernel == "int8gemv" else None

    @property
    def num_bytes(self) -> int:
        """What a forward reads: one byte per weight, a float32 scale per row, the bias."""
        bias = self.bias.numel() * self.bias.element_size() if self.bias is not None else 0
        return self.out_features * self.in_features + 4 * self.out_features + bias

    @property
    def held_bytes(self) -> int:
        """What it holds: q and the scales, and the C kernel's packed copy of q where it runs on it (the
        packed copy alone where both regimes run on it)."""
        packed = self._gemv.data.numel() if self._gemv is not None else 0
        return self.num_bytes + (packed if self.q is not None else packed - self.out_features * self.in_features)
