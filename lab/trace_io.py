"""Trace records to JSON and back, checked field by field.

A file someone uploads is untrusted input: every record is rebuilt through `Fields`, which checks
each field's type and range and raises a ValueError that names the field ("steps[3].ms should be a
number"), so a user sees what is wrong instead of a traceback. Derived fields that `to_dict` adds
for readers of the JSON (a step's phase, a request's metrics) are ignored on the way back in.

    text = dump_trace(trace)         # {"format": "pdlab-engine-trace", "version": 1, ...}
    trace = load_trace(text)         # the same Trace, or ValueError
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict
from typing import Any

from engine.errors import LabError
from engine.trace import LayerShapes, RequestRecord, SeqStep, StepRecord, TokenEvent, Trace

ENGINE_FORMAT = "pdlab-engine-trace"
ENGINE_VERSION = 1
MAX_TEXT_BYTES = 32 << 20  # a trace file larger than this is not one we wrote
MAX_ITEMS = 200_000  # steps, tokens, token ids: far beyond any run the app makes
MAX_INT = 1 << 53  # JSON numbers beyond this lose precision: nothing we record is that large
PHASES = ("prefill", "decode")


class Fields:
    """Typed reads from one JSON object, with the object's path for messages."""

    def __init__(self, data: Any, where: str = ""):
        if not isinstance(data, dict):
            raise LabError(f"Not a valid trace: {where or 'the file'} should be an object, got {_kind(data)}.")
        self.data, self.where = data, where

    def path(self, name: str) -> str:
        """A field's place in the file, as a reader would write it: steps[3].seqs[0].phase."""
        return f"{self.where}.{name}" if self.where else name

    def _get(self, name: str, optional: bool) -> Any:
        if name not in self.data:
            if optional:
                return None
            raise LabError(f"Not a valid trace: {self.path(name)} is missing.")
        return self.data[name]

    def _bad(self, name: str, want: str) -> LabError:
        return LabError(f"Not a valid trace: {self.path(name)} should be {want}, got {_kind(self.data[name])}.")

    def int(self, name: str, lo: int = 0, hi: int = MAX_INT, optional: bool = False) -> int | None:
        v = self._get(name, optional)
        if v is None and optional:
            return None
        if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
            raise self._bad(name, f"a whole number from {lo} to {hi}")
        return v

    def float(self, name: str, lo: float = -math.inf, hi: float = math.inf, optional: bool = False) -> float | None:
        v = self._get(name, optional)
        if v is None and optional:
            return None
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or not lo <= v <= hi:
            raise self._bad(name, f"a finite number from {lo:g} to {hi:g}")
        return float(v)

    def str(
        self, name: str, max_len: int = 1 << 20, optional: bool = False, choices: tuple[str, ...] | None = None
    ) -> str | None:
        v = self._get(name, optional)
        if v is None and optional:
            return None
        if not isinstance(v, str) or len(v) > max_len:
            raise self._bad(name, f"a text of at most {max_len} characters")
        if choices is not None and v not in choices:
            raise self._bad(name, "one of " + ", ".join(repr(c) for c in choices))
        return v

    def bool(self, name: str) -> bool:
        v = self._get(name, False)
        if not isinstance(v, bool):
            raise self._bad(name, "true or false")
        return v

    def list(self, name: str, max_len: int = MAX_ITEMS, optional: bool = False) -> list | None:
        v = self._get(name, optional)
        if v is None and optional:
            return None
        if not isinstance(v, list) or len(v) > max_len:
            raise self._bad(name, f"a list of at most {max_len} items")
        return v

    def ints(self, name: str, max_len: int = MAX_ITEMS, lo: int = 0) -> list[int]:
        items = self.list(name, max_len)
        if not all(isinstance(i, int) and not isinstance(i, bool) and lo <= i <= MAX_INT for i in items):
            raise self._bad(name, f"a list of whole numbers of at least {lo}")
        return items

    def floats(self, name: str) -> list[float]:
        items = self.list(name)
        if not all(isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) for x in items):
            raise self._bad(name, "a list of finite numbers")
        return [float(x) for x in items]

    def obj(self, name: str, optional: bool = False) -> Fields | None:
        v = self._get(name, optional)
        if v is None and optional:
            return None
        return Fields(v, self.path(name))


def _kind(v: Any) -> str:
    names = {dict: "an object", list: "a list", str: "a text", bool: "true/false", type(None): "null"}
    if type(v) in names:
        return names[type(v)]
    return repr(v) if isinstance(v, (int, float)) else type(v).__name__


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


def check_header(doc: Any, fmt: str, version: int) -> Fields:
    f = Fields(doc)
    if doc.get("format") != fmt:
        raise LabError(
            f'Not a valid trace: expected a file with "format": "{fmt}" (saved by the lab\'s '
            f"Download trace button), got {_kind(doc.get('format'))}."
        )
    found = doc.get("version")
    if isinstance(found, bool) or found != version:  # true == 1 in Python: a flag is not a version
        raise LabError(f"Unsupported trace version {found!r}: this app reads version {version} of {fmt}.")
    return f


# --- records ------------------------------------------------------------------------------------
def shapes_from_dict(f: Fields) -> LayerShapes:
    return LayerShapes(**{name: f.ints(name, max_len=8) for name in ("input", "q", "k", "v", "scores", "kv_cache")})


def seq_step_from_dict(f: Fields) -> SeqStep:
    return SeqStep(
        seq_id=f.int("seq_id"),
        phase=f.str("phase", choices=PHASES),
        num_tokens=f.int("num_tokens"),
        context_len=f.int("context_len"),
        recompute=f.bool("recompute"),
        shapes=shapes_from_dict(f.obj("shapes")),
        token_id=f.int("token_id", optional=True),
        token_text=f.str("token_text", optional=True),
    )


def _int_keys(f: Fields | None, name: str) -> dict[int, list[int]]:
    """A JSON object with numeric keys (JSON keys are always text) back to int -> list[int]."""
    if f is None:
        return {}
    out = {}
    for key in f.data:
        if not (isinstance(key, str) and key.isdigit() and len(key) < 16):
            raise LabError(f"Not a valid trace: {f.where} has a key {key!r} that is not a sequence id.")
        out[int(key)] = f.ints(key)
    return out


def step_from_dict(f: Fields) -> StepRecord:
    seqs = [seq_step_from_dict(Fields(s, f.path(f"seqs[{i}]"))) for i, s in enumerate(f.list("seqs", 4096))]
    labels = f.obj("peak_by_label", optional=True)
    peak_by_label = None if labels is None else {k: labels.int(k) for k in labels.data}
    return StepRecord(
        step=f.int("step"),
        start=f.float("start"),
        ms=f.float("ms", lo=0.0),
        seqs=seqs,
        kv_tokens=f.int("kv_tokens"),
        kv_bytes=f.int("kv_bytes"),
        kv_blocks=f.int("kv_blocks"),
        kv_reserved_bytes=f.int("kv_reserved_bytes"),
        kv_wasted_slots=f.int("kv_wasted_slots"),
        kv_free_blocks=f.int("kv_free_blocks"),
        flops=f.float("flops", lo=0.0),
        flops_linear=f.float("flops_linear", lo=0.0),
        flops_attention=f.float("flops_attention", lo=0.0),
        bytes_moved=f.float("bytes_moved", lo=0.0),
        peak_bytes=f.int("peak_bytes", optional=True),
        peak_by_label=peak_by_label,
        block_tables=_int_keys(f.obj("block_tables", optional=True), "block_tables"),
        cached_free_blocks=f.ints("cached_free_blocks") if "cached_free_blocks" in f.data else [],
        prefix_hit_tokens=f.int("prefix_hit_tokens") if "prefix_hit_tokens" in f.data else 0,
        num_waiting=f.int("num_waiting") if "num_waiting" in f.data else 0,
    )


def step_to_dict(step: StepRecord) -> dict:
    """The record as JSON-able data (captured attention tensors are not part of it)."""
    return step.to_dict()


def token_from_dict(f: Fields) -> TokenEvent:
    return TokenEvent(
        seq_id=f.int("seq_id"),
        index=f.int("index"),
        token_id=f.int("token_id"),
        text=f.str("text"),
        phase=f.str("phase", choices=PHASES),
        step=f.int("step"),
        time=f.float("time"),
    )


def token_to_dict(token: TokenEvent) -> dict:
    return asdict(token)


def request_from_dict(f: Fields) -> RequestRecord:
    return RequestRecord(
        seq_id=f.int("seq_id"),
        prompt_token_ids=f.ints("prompt_token_ids"),
        output_token_ids=f.ints("output_token_ids"),
        text=f.str("text", max_len=MAX_TEXT_BYTES),
        arrival=f.float("arrival"),
        token_times=f.floats("token_times"),
        finish_reason=f.str("finish_reason", max_len=64, optional=True),
        num_preemptions=f.int("num_preemptions") if "num_preemptions" in f.data else 0,
    )


def records(f: Fields, name: str, parse) -> list:
    """A list field of records, each parsed with its index in the path."""
    return [parse(Fields(item, f"{name}[{i}]")) for i, item in enumerate(f.list(name))]


# --- the engine's Trace ---------------------------------------------------------------------------
def trace_to_dict(trace: Trace) -> dict:
    return {"format": ENGINE_FORMAT, "version": ENGINE_VERSION, **trace.to_dict()}


def dump_trace(trace: Trace) -> str:
    return json.dumps(trace_to_dict(trace), ensure_ascii=False)


def trace_from_dict(doc: Any) -> Trace:
    f = check_header(doc, ENGINE_FORMAT, ENGINE_VERSION)
    settings = f.obj("settings")
    return Trace(
        model=f.str("model", max_len=4096),
        settings=dict(settings.data),
        requests=records(f, "requests", request_from_dict),
        steps=records(f, "steps", step_from_dict),
        tokens=records(f, "tokens", token_from_dict),
    )


def load_trace(text: str | bytes) -> Trace:
    """An engine Trace from JSON text; ValueError (with the reason) for anything else."""
    return trace_from_dict(parse_json(text))
