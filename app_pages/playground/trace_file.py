"""A playground run as a JSON file (the "Download trace" button) and back (the uploader).

The file holds everything the results view and the replay draw from, so an uploaded trace is
shown without any model: the model's description, the settings, every step (shapes, timings,
memory, KV numbers), every token with its text, phase and chip label, the request, and the
captured attention probabilities (float16, zlib, base64; at most ATTENTION_MAX_BYTES, keeping
evenly spaced layers, the last always, when a run captured more). Loading checks every field
and raises ValueError with a message for the user.
"""

from __future__ import annotations

import base64
import binascii
import json
import zlib
from dataclasses import asdict
from datetime import UTC, datetime
from typing import Any

import numpy as np

from engine.core.memory_pass import MEMORY_PASS
from engine.errors import LabError
from lab.busy import MachineLoad
from lab.schema import MAX_ITEMS, Bool, Float, Int, ListOf, OneOf, Record, Text, validate
from lab.trace_io import (
    INVALID,
    MAX_TEXT_BYTES,
    RequestFile,
    StepFile,
    TokenFile,
    check_header,
    parse_json,
    step_to_dict,
    token_to_dict,
)
from ui.run_state import ModelInfo, RunResult, RunSettings, RunStatus
from ui.tokens import Piece

FORMAT = "pdlab-playground-trace"
VERSION = 1
ATTENTION_MAX_BYTES = 3 << 20  # raw float16 kept in a file: a few MB once base64-encoded
ATTENTION_LOAD_MAX_BYTES = 16 << 20  # what a loaded file may expand to
MAX_PROMPT_CHARS = 1 << 20
MAX_STEPS = 16_384  # twice the bundled model's context: every run it can make, with room to spare


def run_to_dict(result: RunResult, created: datetime | None = None) -> dict:
    metrics = result.metrics
    return {
        "format": FORMAT,
        "version": VERSION,
        "created": (created or datetime.now(UTC)).isoformat(timespec="seconds"),
        "model": asdict(result.model),
        "settings": asdict(result.settings),
        "block_size": result.block_size,
        "status": result.status.value,
        "error": result.error,
        "arrival": result.arrival,
        "prompt": [_piece_dict(p) for p in result.prompt],
        "steps": [step_to_dict(s) for s in result.steps],
        "tokens": [token_to_dict(tok) | {"piece": _piece_dict(p)} for tok, p in zip(result.tokens, result.pieces)],
        "request": result.request.to_dict() if result.request else None,
        "attention": encode_attention(result.attention, result.model.num_layers),
        "rejected": [{"step": k, "pieces": [_piece_dict(p) for p in v]} for k, v in result.rejected.items()],
        "memory_pass": result.memory_pass,  # "replay": the peaks come from the untimed second pass
        # other processes' CPU use while the run was timed: a reloaded busy run still says so
        "load": result.load.to_dict() | {"busy": result.load.busy} if result.load else None,
        "summary": asdict(metrics) if metrics else None,  # for readers of the file; recomputed on load
    }


def dump_run(result: RunResult) -> str:
    return json.dumps(run_to_dict(result), ensure_ascii=False, separators=(",", ":"))


def load_run(data: str | bytes) -> RunResult:
    """A RunResult from a trace file's text; ValueError with the reason for anything else."""
    return run_from_dict(parse_json(data))


def run_from_dict(doc: Any) -> RunResult:
    check_header(doc, FORMAT, VERSION)
    _check_step_count(doc)
    f = validate(RunFile, doc, INVALID)
    model = ModelInfo(**dict(f.model))
    steps = [s.build() for s in f.steps]
    result = RunResult(
        settings=RunSettings(**dict(f.settings)),
        model=model,
        block_size=f.block_size,
        prompt=[p.build() for p in f.prompt],
        arrival=f.arrival,
        steps=steps,
        tokens=[t.build() for t in f.tokens],
        pieces=[t.piece.build() for t in f.tokens],
        request=f.request.build() if f.request else None,
        status=RunStatus(f.status),
        error=f.error,
    )
    result.attention = decode_attention(f.attention, len(steps), model)
    result.memory_pass = f.memory_pass
    result.load = f.load.build() if f.load else None
    result.rejected = {r.step: [p.build() for p in r.pieces] for r in f.rejected}
    _check_consistent(result)
    return result


# --- parts ---------------------------------------------------------------------------------------
def _piece_dict(p: Piece) -> dict:
    return {"id": p.token_id, "label": p.label, "bytes": p.is_bytes}


class PieceFile(Record):
    id: Int()
    label: Text(4096)
    bytes: Bool

    def build(self) -> Piece:
        return Piece(self.id, self.label, self.bytes)


class TokenWithPiece(TokenFile):
    piece: PieceFile


Count = Int(lo=1, hi=1 << 24)


class ModelFile(Record):
    """ModelInfo's fields: its counts, sizes and names."""

    name: Text(4096)
    source: Text(4096)
    num_layers: Count
    hidden_size: Count
    num_heads: Count
    num_kv_heads: Count
    head_dim: Count
    vocab_size: Count
    max_position: Count
    num_params: Int()
    weight_bytes: Int()
    dtype: Text(4096)
    elem_bytes: Int(lo=1, hi=8)
    device: Text(4096)


class SettingsFile(Record):
    """RunSettings' fields."""

    prompt: Text(MAX_PROMPT_CHARS)
    chat: Bool
    max_new_tokens: Int(lo=1, hi=1 << 20)
    temperature: Float(lo=0.0, hi=100.0)
    top_k: Int()
    top_p: Float(lo=0.0, hi=1.0)
    seed: Int() | None = None
    attention: OneOf(("sdpa", "eager"))
    kv_cache: Bool
    probe_memory: Bool
    speculative_k: Int(lo=0, hi=32) = 0  # files written before speculative decoding have none


class LoadFile(Record):
    """MachineLoad's fields (its `busy` is recomputed from them, by today's rule)."""

    other_cores: Float(lo=0.0, hi=1 << 16) | None = None
    cores: Int(lo=1, hi=1 << 16)
    seconds: Float(lo=0.0)

    def build(self) -> MachineLoad:
        return MachineLoad(self.other_cores, self.cores, self.seconds)


class ArrayFile(Record):
    shape: ListOf(Int(lo=1), 3)
    data: Text(MAX_TEXT_BYTES)


class AttentionFile(Record):
    dtype: OneOf(("float16",))
    steps: ListOf(dict[str, ArrayFile])


class RejectedFile(Record):
    """The drafted tokens one speculative step rejected."""

    step: Int()
    pieces: ListOf(PieceFile, 64)


class RunFile(Record):
    model: ModelFile
    settings: SettingsFile
    block_size: Int(lo=1, hi=1 << 16)
    prompt: ListOf(PieceFile)
    arrival: Float()
    steps: ListOf(StepFile)
    tokens: ListOf(TokenWithPiece)
    request: RequestFile | None = None
    status: OneOf(tuple(s.value for s in RunStatus))
    error: Text(4096) | None = None
    memory_pass: OneOf((MEMORY_PASS,)) | None = None  # absent in older files
    load: LoadFile | None = None  # absent in older files: the machine's load was not recorded
    rejected: ListOf(RejectedFile) = []  # absent in older files and runs without speculative decoding
    attention: AttentionFile | None = None


def _check_step_count(doc: dict) -> None:
    """Refused before any record is parsed: a longer run would take minutes to check and draw.
    (A list longer than any trace holds is refused by the schema as not a trace at all.)"""
    count = len(doc["steps"]) if isinstance(doc.get("steps"), list) else 0
    if MAX_STEPS < count <= MAX_ITEMS:
        raise LabError(
            f"Not a valid trace: it holds {count:,} steps; the lab reads runs of at most {MAX_STEPS:,} steps."
        )


def _check_consistent(r: RunResult) -> None:
    """What the views rely on: tokens belong to recorded steps, one label per token, one seq per step."""

    def bad(why: str) -> LabError:
        return LabError(f"Not a valid trace: {why}.")

    numbers = [s.step for s in r.steps]
    if any(b <= a for a, b in zip(numbers, numbers[1:])):
        raise bad("the step numbers are not increasing")
    if any(not s.seqs for s in r.steps):
        raise bad("a step has no sequence in it")
    if not r.prompt:
        raise bad("the prompt has no tokens")
    known = set(numbers)
    for i, tok in enumerate(r.tokens):
        if tok.step not in known:
            raise bad(f"tokens[{i}] names step {tok.step}, which is not in the trace")


# --- attention: float16, zlib, base64 ---------------------------------------------------------------
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


def decode_attention(f: AttentionFile | None, num_steps: int, model: ModelInfo) -> list[dict[int, np.ndarray]]:
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
            if not (key.isdigit() and int(key) < model.num_layers):
                raise LabError(f"{INVALID}{where} has layer {key!r}; the model has {model.num_layers} layers.")
            decoded[int(key)] = _decode_array(array, f"{where}.{key}", model.num_heads, budget)
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
