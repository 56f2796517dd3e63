"""The weight format "gguf": a GGUF file's own quantised blocks (Q4_1 layers and a Q8_0 embedding in the
bundled file), kept as the file holds them and computed on by engine/kernels/csrc/gguf.c without being
de-quantised in memory. Each block de-quantises exactly in float32, and the kernel sums in the float32
kernel's order, so the model computes the same numbers as the float32 model de-quantised from the same
file, reading 5 bits a weight (Q4_1) instead of 32. CPU and float32 activations only; the C kernels
must be built (engine/kernels/native.py).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from engine.kernels import native
from engine.layers.linear import DECODE_ROWS

GROUP = 32  # weights per GGUF block (both kinds)
BLOCK_BYTES = {"Q4_1": 20, "Q8_0": 34}  # d (and Q4_1's m) in float16, then the quantised weights


@dataclass
class GGUFBlocks:
    """One weight matrix as the file holds it: `raw` (rows, in_features / 32 blocks of bytes)."""

    kind: str
    raw: torch.Tensor  # uint8
    in_features: int

    @property
    def out_features(self) -> int:
        return self.raw.shape[0]

    @property
    def shape(self) -> tuple[int, int]:
        """The float32 matrix's shape."""
        return self.out_features, self.in_features

    @property
    def nbytes(self) -> int:
        return self.raw.numel()

    @staticmethod
    def cat(parts: list[GGUFBlocks]) -> GGUFBlocks:
        """Rows of several weights stacked (q/k/v, gate/up), as torch.cat of their float32 matrices."""
        kinds = {p.kind for p in parts}
        if len(kinds) != 1 or len({p.in_features for p in parts}) != 1:
            raise ValueError(f"cannot stack {sorted(kinds)} blocks of different kinds or widths")
        return GGUFBlocks(parts[0].kind, torch.cat([p.raw for p in parts]), parts[0].in_features)

    def dequantize(self, rows: torch.Tensor | None = None) -> torch.Tensor:
        """The float32 numbers these blocks stand for (gguf's own de-quantiser): all rows, or `rows`."""
        from gguf import GGMLQuantizationType
        from gguf.quants import dequantize

        raw = self.raw if rows is None else self.raw[rows]
        values = dequantize(raw.numpy(), GGMLQuantizationType[self.kind])
        return torch.from_numpy(np.require(values, np.float32, ["C", "W"])).reshape(-1, self.in_features)


def pack_blocks(blocks: GGUFBlocks) -> native.PackedWeight:
    """The blocks in gguf.c's layout: groups of 32 inputs of 16 rows (zero rows pad the last 16), each
    the 16 rows' d, Q4_1's 16 m, then the weights input by input, 16 to an input (Q4_1: two inputs per
    byte, the even one in the low nibble)."""
    n, k, size = blocks.out_features, blocks.in_features, BLOCK_BYTES[blocks.kind]
    groups = k // GROUP
    raw = blocks.raw.reshape(n, groups, size)
    if n % 16:
        raw = torch.cat([raw, raw.new_zeros(-n % 16, groups, size)])
    nb = raw.shape[0] // 16
    raw = raw.reshape(nb, 16, groups, size)

    def lanes_last(t: torch.Tensor) -> torch.Tensor:  # (nb, 16 rows, groups, c) -> (nb, groups, c * 16)
        return t.permute(0, 2, 3, 1).reshape(nb, groups, -1)

    d = raw[..., 0:2].permute(0, 2, 1, 3).reshape(nb, groups, 32)  # 16 float16, row after row
    if blocks.kind == "Q4_1":
        m = raw[..., 2:4].permute(0, 2, 1, 3).reshape(nb, groups, 32)
        qs = raw[..., 4:]  # byte j: weight j in the low nibble, weight j + 16 in the high
        q = torch.cat([qs & 15, qs >> 4], dim=-1)  # weight by weight, 0 .. 31
        pairs = q[..., 0::2] | (q[..., 1::2] << 4)
        data = torch.cat([d, m, lanes_last(pairs)], dim=-1)
    else:
        data = torch.cat([d, lanes_last(raw[..., 2:])], dim=-1)
    return native.PackedWeight(data.contiguous().reshape(-1), n, None, blocks.kind)


class GGUFLinear:
    """A linear layer on a GGUF file's blocks: y = x W^T (+ bias), W never de-quantised in memory."""

    format = "gguf"
    decode_kernel = prefill_kernel = "gguf"

    def __init__(self, blocks: GGUFBlocks, bias: torch.Tensor | None = None):
        self.kind = blocks.kind
        self.out_features, self.in_features = blocks.out_features, blocks.in_features
        self.bias = bias
        self.packed = pack_blocks(blocks)
        self._raw_bytes = blocks.nbytes

    def __call__(self, x: torch.Tensor) -> torch.Tensor:
        return native.gemv_quant(x, self.packed, self.bias)

    @property
    def kernels(self) -> tuple[str, str]:
        return self.decode_kernel, self.prefill_kernel

    def gemv_weight(self, rows: int) -> native.PackedWeight | None:
        """The packed blocks where a call of this many rows takes SiLU × up in the same call
        (model.swiglu), each block pair de-quantised once for all rows: a prefill-sized call, not a
        decode step's few rows, which de-quantise in registers."""
        return self.packed if rows >= DECODE_ROWS else None

    @property
    def decode_packed(self) -> native.PackedWeight:
        return self.packed

    @property
    def _bias_bytes(self) -> int:
        return self.bias.numel() * self.bias.element_size() if self.bias is not None else 0

    @property
    def num_bytes(self) -> int:
        """What a forward reads: the file's blocks (the packing moves bytes, adds none), the bias."""
        return self._raw_bytes + self._bias_bytes

    @property
    def held_bytes(self) -> int:
        return self.packed.data.numel() + self._bias_bytes
