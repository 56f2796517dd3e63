"""A playground run as a JSON file (the "Download trace" button) and back (the uploader).

The file holds everything the results view and the replay draw from, so an uploaded trace is
shown without any model: the model's description, the settings, every step (shapes, timings,
memory, KV numbers), every token with its text, phase and chip label, the request, and the
captured attention probabilities (trace_attention.py). Loading checks every field, the engine's
records against their own declarations (engine/observe/trace.py), and raises a LabError (a
ValueError) with a message for the user.
"""

from __future__ import annotations

import json
from dataclasses import asdict
from datetime import UTC, datetime
from typing import Any

from pydantic import Field

from app_pages.playground.trace_attention import AttentionFile, decode_attention, encode_attention
from engine.core.memory_pass import MEMORY_PASS
from engine.errors import LabError
from engine.observe.trace import RequestRecord, StepRecord, TokenEvent
from lab.busy import MachineLoad
from lab.schema import MAX_ITEMS, Bool, Float, Int, ListOf, OneOf, Record, Text, validate
from lab.trace_io import INVALID, check_header, parse_json, step_to_dict, token_to_dict
from ui.run_state import ModelInfo, RunResult, RunSettings, RunStatus
from ui.tokens import Piece

FORMAT = "pdlab-playground-trace"
VERSION = 1
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
    model = f.model
    result = RunResult(
        settings=f.settings,
        model=model,
        block_size=f.block_size,
        prompt=[_piece(p) for p in f.prompt],
        arrival=f.arrival,
        steps=f.steps,
        tokens=f.tokens,
        pieces=[_piece(t.piece) for t in f.pieces],
        request=f.request,
        status=RunStatus(f.status),
        error=f.error,
    )
    result.attention = decode_attention(f.attention, len(f.steps), model.num_layers, model.num_heads)
    result.memory_pass = f.memory_pass
    result.load = f.load
    result.rejected = {r.step: [_piece(p) for p in r.pieces] for r in f.rejected}
    _check_consistent(result)
    return result


# --- parts: the engine's records and the machine's load are read against their own declarations
# (engine/observe/trace.py, lab/busy.py); these are what only this file holds ------------------------
def _piece_dict(p: Piece) -> dict:
    return {"id": p.token_id, "label": p.label, "bytes": p.is_bytes}


class PieceFile(Record):
    """A chip's label as the file keeps it, in short keys (a run has one per token)."""

    id: Int()
    label: Text(4096)
    bytes: Bool


def _piece(p: PieceFile) -> Piece:
    return Piece(p.id, p.label, p.bytes)


class TokenPiece(Record):
    """The chip label the file keeps with each token (the token itself is the engine's TokenEvent)."""

    piece: PieceFile


class RejectedFile(Record):
    """The drafted tokens one speculative step rejected."""

    step: Int()
    pieces: ListOf(PieceFile, 64)


class RunFile(Record):
    model: ModelInfo
    settings: RunSettings
    block_size: Int(lo=1, hi=1 << 16)
    prompt: ListOf(PieceFile)
    arrival: Float()
    steps: ListOf(StepRecord)
    tokens: ListOf(TokenEvent)
    pieces: ListOf(TokenPiece) = Field(validation_alias="tokens")  # the same list: each token's "piece"
    request: RequestRecord | None = None
    status: OneOf(tuple(s.value for s in RunStatus))
    error: Text(4096) | None = None
    memory_pass: OneOf((MEMORY_PASS,)) | None = None  # absent in older files
    # absent in older files: the machine's load was not recorded; its `busy` is recomputed by today's rule
    load: MachineLoad | None = None
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
