"""Trace records to JSON and back, checked field by field.

A file someone uploads is untrusted input: every record is read against its own declaration, the
engine's dataclasses whose fields carry their types and ranges (engine/observe/fields.py); a field
that is wrong raises a LabError that names it ("steps[3].ms should be a finite number …",
lab/schema.py), so a user sees what is wrong instead of a traceback. Derived fields that `to_dict`
adds for readers of the JSON (a step's phase, a request's metrics) are ignored on the way back in,
and fields added to a record since a file was written take their defaults.

    text = dump_trace(trace)         # {"format": "pdlab-engine-trace", "version": 1, ...}
    trace = load_trace(text)         # the same Trace, or ValueError
"""

from __future__ import annotations

import json
from dataclasses import asdict
from typing import Any

from engine.errors import LabError
from engine.observe.trace import StepRecord, TokenEvent, Trace
from lab.schema import kind_of, validate

ENGINE_FORMAT = "pdlab-engine-trace"
ENGINE_VERSION = 1
MAX_TEXT_BYTES = 32 << 20  # a trace file larger than this is not one we wrote
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


# --- records to JSON ----------------------------------------------------------------------------
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


def trace_from_dict(doc: Any) -> Trace:
    """The engine's own Trace, read against its own declaration (engine/observe/trace.py)."""
    check_header(doc, ENGINE_FORMAT, ENGINE_VERSION)
    return validate(Trace, doc, INVALID)


def load_trace(text: str | bytes) -> Trace:
    """An engine Trace from JSON text; ValueError (with the reason) for anything else."""
    return trace_from_dict(parse_json(text))
