"""Trace records to JSON and back, checked field by field.

A file someone uploads is untrusted input: every record is read through a declared model
(lab/schema.py), which checks each field's type and range and raises a LabError that names the
field ("steps[3].ms should be a finite number …"), so a user sees what is wrong instead of a
traceback. Derived fields that `to_dict` adds for readers of the JSON (a step's phase, a request's
metrics) are ignored on the way back in.

    text = dump_trace(trace)         # {"format": "pdlab-engine-trace", "version": 1, ...}
    trace = load_trace(text)         # the same Trace, or ValueError
"""

from __future__ import annotations

import json
from dataclasses import asdict
from typing import Any

from engine.errors import LabError
from engine.observe.trace import LayerShapes, RequestRecord, SeqStep, StepRecord, TokenEvent, Trace
from lab.schema import Bool, Checked, Float, Int, ListOf, OneOf, Record, Text, kind_of, validate

ENGINE_FORMAT = "pdlab-engine-trace"
ENGINE_VERSION = 1
MAX_TEXT_BYTES = 32 << 20  # a trace file larger than this is not one we wrote
PHASES = ("prefill", "decode")
INVALID = "Not a valid trace: "  # the start of every message about a file's content


def parse_json(text: str | bytes, max_bytes: int = MAX_TEXT_BYTES) -> Any:
    """JSON text (or UTF-8 bytes) to Python, refusing what no trace holds: huge files, NaN."""
    if len(text) > max_bytes:
        raise LabError(
            f"Not a valid trace: the file is {len(text) / 2**20:.1f} MiB; a trace is at most "
            f"{max_bytes / 2**20:.0f} MiB."
        )
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError:
            raise LabError("Not a valid trace: the file is not UTF-8 text (a trace is a JSON file).") from None

    def no_constants(name: str) -> None:
        raise LabError(f"Not a valid trace: {name} is not a number a trace can hold.")

    try:
        return json.loads(text, parse_constant=no_constants)
    except json.JSONDecodeError as e:
        raise LabError(
            f"Not a valid trace: the file is not JSON ({e.msg} at line {e.lineno}, column {e.colno})."
        ) from None
    except RecursionError:
        raise LabError("Not a valid trace: the JSON is nested too deeply.") from None


def check_header(doc: Any, fmt: str, version: int) -> None:
    if not isinstance(doc, dict):
        raise LabError(f"{INVALID}the file should be an object, got {kind_of(doc)}.")
    if doc.get("format") != fmt:
        raise LabError(
            f'Not a valid trace: expected a file with "format": "{fmt}" (saved by the lab\'s '
            f"Download trace button), got {kind_of(doc.get('format'))}."
        )
    found = doc.get("version")
    if isinstance(found, bool) or found != version:  # true == 1 in Python: a flag is not a version
        raise LabError(f"Unsupported trace version {found!r}: this app reads version {version} of {fmt}.")


# --- records ------------------------------------------------------------------------------------
def _digits(key: str) -> str:
    if not (key.isdigit() and len(key) < 16):
        raise ValueError(key)
    return key


SeqKey = Checked(str, _digits, "a sequence id (digits)")  # JSON keys are text: "3" for sequence 3


class ShapesFile(Record):
    input: ListOf(Int(), 8)
    q: ListOf(Int(), 8)
    k: ListOf(Int(), 8)
    v: ListOf(Int(), 8)
    scores: ListOf(Int(), 8)
    kv_cache: ListOf(Int(), 8)


class SeqStepFile(Record):
    seq_id: Int()
    phase: OneOf(PHASES)
    num_tokens: Int()
    context_len: Int()
    recompute: Bool
    shapes: ShapesFile
    token_id: Int() | None = None
    token_text: Text() | None = None
    drafted: Int() = 0  # files written before speculative decoding have neither
    accepted: Int() = 0
    draft: ListOf(Int(), 64) = []

    def build(self) -> SeqStep:
        return SeqStep(**(dict(self) | {"shapes": LayerShapes(**dict(self.shapes))}))


class StepFile(Record):
    step: Int()
    start: Float()
    ms: Float(lo=0.0)
    seqs: ListOf(SeqStepFile, 4096)
    kv_tokens: Int()
    kv_bytes: Int()
    kv_blocks: Int()
    kv_reserved_bytes: Int()
    kv_wasted_slots: Int()
    kv_free_blocks: Int()
    flops: Float(lo=0.0)
    flops_linear: Float(lo=0.0)
    flops_attention: Float(lo=0.0)
    bytes_moved: Float(lo=0.0)
    peak_bytes: Int() | None = None
    peak_by_label: dict[str, Int()] | None = None
    block_tables: dict[SeqKey, ListOf(Int())] | None = None
    cached_free_blocks: ListOf(Int()) = []
    prefix_hit_tokens: Int() = 0
    num_waiting: Int() = 0

    def build(self) -> StepRecord:
        tables = {int(k): v for k, v in (self.block_tables or {}).items()}
        return StepRecord(**(dict(self) | {"seqs": [s.build() for s in self.seqs], "block_tables": tables}))


class TokenFile(Record):
    seq_id: Int()
    index: Int()
    token_id: Int()
    text: Text()
    phase: OneOf(PHASES)
    step: Int()
    time: Float()

    def build(self) -> TokenEvent:
        return TokenEvent(**{name: getattr(self, name) for name in TokenFile.model_fields})  # not a subclass's


class RequestFile(Record):
    seq_id: Int()
    prompt_token_ids: ListOf(Int())
    output_token_ids: ListOf(Int())
    text: Text(MAX_TEXT_BYTES)
    arrival: Float()
    token_times: ListOf(Float())
    finish_reason: Text(64) | None = None
    num_preemptions: Int() = 0

    def build(self) -> RequestRecord:
        return RequestRecord(**dict(self))


def step_to_dict(step: StepRecord) -> dict:
    """The record as JSON-able data (captured attention tensors are not part of it)."""
    return step.to_dict()


def token_to_dict(token: TokenEvent) -> dict:
    return asdict(token)


# --- the engine's Trace ---------------------------------------------------------------------------
def trace_to_dict(trace: Trace) -> dict:
    return {"format": ENGINE_FORMAT, "version": ENGINE_VERSION, **trace.to_dict()}


def dump_trace(trace: Trace) -> str:
    return json.dumps(trace_to_dict(trace), ensure_ascii=False)


class TraceFile(Record):
    model: Text(4096)
    settings: dict[str, Any]
    requests: ListOf(RequestFile)
    steps: ListOf(StepFile)
    tokens: ListOf(TokenFile)


def trace_from_dict(doc: Any) -> Trace:
    check_header(doc, ENGINE_FORMAT, ENGINE_VERSION)
    f = validate(TraceFile, doc, INVALID)
    return Trace(
        model=f.model,
        settings=dict(f.settings),
        requests=[r.build() for r in f.requests],
        steps=[s.build() for s in f.steps],
        tokens=[t.build() for t in f.tokens],
    )


def load_trace(text: str | bytes) -> Trace:
    """An engine Trace from JSON text; ValueError (with the reason) for anything else."""
    return trace_from_dict(parse_json(text))
