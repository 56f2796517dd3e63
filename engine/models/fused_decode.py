"""A decode step's layers in one call to our C code (engine/kernels/csrc/decode.c) instead of ~20 torch
operators and their Python per layer: the ~4 ms a 135M-parameter float32 step spent between its
matrix products, on a step whose products take ~21 ms.

It runs where the kernel plan already chose our C matrix kernels (`gemv` / `int8gemv`) for every
decode-sized layer product (so it is chosen by the same timing as they are), the activations and the
KV pool are float32 on the CPU, and the step is all decode (one new token per sequence) with no
attention capture. Otherwise, and wherever the C kernels are not built, `LlamaModel.forward` runs its
torch path. Both compute the same forward (tested against each other and against Hugging Face).
"""

from __future__ import annotations

import ctypes

import torch

from engine.kernels import native
from engine.observe.memory import SCORES, label

_p, _n = ctypes.c_void_p, ctypes.c_long


class _Linear(ctypes.Structure):
    _fields_ = [("w", _p), ("scale", _p), ("bias", _p), ("n", _n), ("k", _n), ("kind", ctypes.c_int)]


KINDS = {None: 0, "Q4_1": 1, "Q8_0": 2}  # decode.c's linear_t.kind: float32 or int8 (by scale), GGUF blocks


class _Layer(ctypes.Structure):
    _fields_ = [
        ("attn_norm", _p),
        ("mlp_norm", _p),
        ("q_norm", _p),
        ("k_norm", _p),
        ("qkv", _Linear),
        ("o", _Linear),
        ("gate_up", _Linear),
        ("down", _Linear),
    ]


class _Model(ctypes.Structure):
    _fields_ = [
        ("layers", _n),
        ("hidden", _n),
        ("heads", _n),
        ("kv_heads", _n),
        ("head_dim", _n),
        ("ffn", _n),
        ("eps", ctypes.c_float),
        ("scale", ctypes.c_float),
        ("layer", ctypes.POINTER(_Layer)),
    ]


class _Step(ctypes.Structure):
    _fields_ = [
        ("rows", _n),
        ("positions", _p),
        ("write_slots", _p),
        ("context_lens", _p),
        ("tables", _p),
        ("table_width", _n),
        ("block_size", _n),
        ("kv", _p),
        ("num_slots", _n),
        ("cos", _p),
        ("sin_rot", _p),
    ]


def _ptr(t: torch.Tensor | None) -> int | None:
    return t.data_ptr() if t is not None else None


class FusedDecode:
    """The C description of a loaded model's layers (pointers into its tensors, which it keeps)."""

    def __init__(self, model, lib: ctypes.CDLL):
        c = model.config
        self.lib = lib
        self.config = c
        layers = (_Layer * c.num_layers)()
        for spec, layer in zip(layers, model.layers):
            spec.attn_norm, spec.mlp_norm = _ptr(layer["attn_norm"]), _ptr(layer["mlp_norm"])
            spec.q_norm, spec.k_norm = _ptr(layer["q_norm"]), _ptr(layer["k_norm"])
            for name in ("qkv", "o", "gate_up", "down"):
                lin, packed = layer[name], layer[name].decode_packed
                setattr(
                    spec,
                    name,
                    _Linear(
                        packed.data.data_ptr(),
                        _ptr(packed.scale),
                        _ptr(lin.bias),
                        lin.out_features,
                        lin.in_features,
                        KINDS[packed.gguf],
                    ),  # fmt: skip
                )
        self._layers = layers  # the C struct points into it
        self.spec = _Model(
            c.num_layers, c.hidden_size, c.num_heads, c.num_kv_heads, c.head_dim, c.ffn_size,
            c.rms_norm_eps, model.scale, layers,
        )  # fmt: skip
        self.calls = 0  # decode steps run here (tests and benches read it)

    @classmethod
    def build(cls, model) -> FusedDecode | None:
        """The fused step for `model`, or None where it cannot run (see the module docstring)."""
        lib = native.library()
        if lib is None or model.device.type != "cpu" or model.dtype != torch.float32:
            return None
        tensors = [t for layer in model.layers for t in layer.values() if isinstance(t, torch.Tensor)]
        biases = [layer[n].bias for layer in model.layers for n in ("qkv", "o", "gate_up", "down")]
        if any(not t.is_contiguous() for t in tensors + [b for b in biases if b is not None]):
            return None
        if any(layer[n].decode_packed is None for layer in model.layers for n in ("qkv", "o", "gate_up", "down")):
            return None
        return cls(model, lib)

    @staticmethod
    def takes(batch, kv, capture) -> bool:
        """Whether this step can run here: all decode, a float32 pool, nothing captured."""
        return (
            capture is None
            and kv.storage == torch.float32
            and kv.data.is_contiguous()
            and all(seg.num_tokens == 1 for seg in batch.segments)
        )

    def run(self, model, batch, kv, h: torch.Tensor) -> torch.Tensor:
        """h (rows, hidden): the embedded new tokens, through every layer (in place); returned."""
        h, bs = h.contiguous(), kv.block_size
        tables = [
            seg.read_blocks.tolist()
            if seg.read_blocks is not None
            else range(seg.read_start // bs, seg.read_start // bs + -(-seg.context_len // bs))
            for seg in batch.segments
        ]
        width = max(len(t) for t in tables)
        table = torch.tensor([list(t) + [0] * (width - len(t)) for t in tables], dtype=torch.long)
        lens = torch.tensor([seg.context_len for seg in batch.segments], dtype=torch.long)
        positions, slots = batch.positions.contiguous(), batch.write_slots.contiguous()
        step = _Step(
            len(tables), positions.data_ptr(), slots.data_ptr(), lens.data_ptr(), table.data_ptr(), width, bs,
            kv.data.data_ptr(), kv.data.shape[3], model.cos.data_ptr(), model.sin_rot.data_ptr(),
        )  # fmt: skip
        rows, longest = len(tables), int(lens.max())
        lib = self.lib
        scratch = torch.empty(lib.decode_scratch_floats(ctypes.byref(self.spec), rows), dtype=torch.float32)
        with label(SCORES):
            scores = torch.empty(rows * self.config.num_heads * longest, dtype=torch.float32)
        with native.profiled("pdlab::decode_layers"):
            lib.decode_layers(
                ctypes.byref(self.spec),
                ctypes.byref(step),
                h.data_ptr(),
                scratch.data_ptr(),
                scores.data_ptr(),
                longest,
                torch.get_num_threads(),
            )
        self.calls += 1
        return h
