"""A playground run's captured attention probabilities as a trace file keeps them: float16, zlib,
base64, one entry per step and layer; at most ATTENTION_MAX_BYTES, keeping evenly spaced layers (the
last always) when a run captured more. Reading checks each array's shape, size and values.
"""

from __future__ import annotations

import base64
import binascii
import zlib

import numpy as np

from engine.errors import LabError
from lab.schema import Int, ListOf, OneOf, Record, Text
from lab.trace_io import INVALID, MAX_TEXT_BYTES

ATTENTION_MAX_BYTES = 3 << 20  # raw float16 kept in a file: a few MB once base64-encoded
ATTENTION_LOAD_MAX_BYTES = 16 << 20  # what a loaded file may expand to


class ArrayFile(Record):
    shape: ListOf(Int(lo=1), 3)
    data: Text(MAX_TEXT_BYTES)


class AttentionFile(Record):
    dtype: OneOf(("float16",))
    steps: ListOf(dict[str, ArrayFile])


def kept_layers(attention: list[dict[int, np.ndarray]], budget: int = ATTENTION_MAX_BYTES) -> list[int]:
    """The layers a file keeps: all if they fit `budget`, else evenly spaced ones with the last."""
    layers = sorted({layer for step in attention for layer in step})
    per_layer = {layer: sum(step[layer].size * 2 for step in attention if layer in step) for layer in layers}
    if sum(per_layer.values()) <= budget:
        return layers
    k = min(len(layers), budget // max(per_layer.values()))
    if k == 0:
        return []
    if k == 1:
        return layers[-1:]
    return [layers[round(i * (len(layers) - 1) / (k - 1))] for i in range(k)]


def encode_attention(
    attention: list[dict[int, np.ndarray]], num_layers: int, budget: int = ATTENTION_MAX_BYTES
) -> dict | None:
    if not any(attention):
        return None
    keep = set(kept_layers(attention, budget))
    captured = sorted({layer for step in attention for layer in step})
    steps = [
        {
            str(layer): {
                "shape": list(a.shape),
                "data": base64.b64encode(zlib.compress(np.ascontiguousarray(a, "<f2").tobytes())).decode("ascii"),
            }
            for layer, a in sorted(step.items())
            if layer in keep
        }
        for step in attention
    ]
    return {"dtype": "float16", "num_layers": num_layers, "captured_layers": captured, "steps": steps}


def decode_attention(
    f: AttentionFile | None, num_steps: int, num_layers: int, num_heads: int
) -> list[dict[int, np.ndarray]]:
    """Each step's arrays by layer; a LabError naming the first one that is not what the model makes."""
    if f is None:
        return []
    if len(f.steps) != num_steps:
        raise LabError(f"{INVALID}attention.steps has {len(f.steps)} entries for {num_steps} steps.")
    budget = [ATTENTION_LOAD_MAX_BYTES]
    out = []
    for i, step in enumerate(f.steps):
        where = f"attention.steps[{i}]"
        decoded = {}
        for key, array in step.items():
            if not (key.isdigit() and int(key) < num_layers):
                raise LabError(f"{INVALID}{where} has layer {key!r}; the model has {num_layers} layers.")
            decoded[int(key)] = _decode_array(array, f"{where}.{key}", num_heads, budget)
        out.append(decoded)
    return out


def _decode_array(f: ArrayFile, where: str, num_heads: int, budget: list[int]) -> np.ndarray:
    shape = f.shape
    if len(shape) != 3 or shape[0] != num_heads or shape[1] > shape[2]:
        raise LabError(
            f"{INVALID}{where}.shape should be [heads={num_heads}, rows, keys] with rows <= keys, got {shape}."
        )
    nbytes = 2 * shape[0] * shape[1] * shape[2]
    budget[0] -= nbytes
    if budget[0] < 0:
        raise LabError(f"{INVALID}its attention probabilities are larger than {ATTENTION_LOAD_MAX_BYTES >> 20} MiB.")
    if len(f.data) > 4 * nbytes + 64:  # more text than any compression of `nbytes` needs
        raise LabError(f"{INVALID}{where}.data is longer than its shape needs.")
    try:
        raw = zlib.decompressobj().decompress(base64.b64decode(f.data, validate=True), nbytes + 1)
    except (binascii.Error, zlib.error, ValueError):
        raise LabError(f"{INVALID}{where}.data is not base64 of zlib-compressed float16.") from None
    if len(raw) != nbytes:
        raise LabError(f"{INVALID}{where}.data holds {len(raw)} bytes, its shape needs {nbytes}.")
    arr = np.frombuffer(raw, dtype="<f2").reshape(shape).astype(np.float16)
    if not np.isfinite(arr).all() or arr.min() < 0 or arr.max() > 1.001:
        raise LabError(f"{INVALID}{where} holds values that are not probabilities.")
    return arr
