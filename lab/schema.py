"""Reading a declared record from an untrusted file: the first wrong field as one sentence.

A file a visitor uploads, or a settings file, is untrusted input. It is read against declared
types: the program's own dataclasses, whose fields carry the types of engine/observe/fields.py
(a trace's steps and tokens, a remote run's plan), and pydantic models for what only a file holds
(its envelope, encodings such as the playground's attention). `validate` checks `data` against one
of them and turns pydantic's first error into a LabError naming the field's place in the file as a
reader would write it, with the words its type carries:

    Not a valid trace: steps[3].ms should be a finite number from 0 to inf, got 'fast'.

Records ignore fields they do not declare (a file may carry derived fields for its readers); a
model that must refuse unknown fields sets extra="forbid" and reports them itself.
"""

from __future__ import annotations

import dataclasses
import functools
import types
import typing
from typing import Annotated, Any, TypeVar

from pydantic import BaseModel, ConfigDict, TypeAdapter, ValidationError

from engine.errors import LabError

# The field types, declared beside the records (engine/observe/fields.py); named here too for the
# readers of files that declare their own models (the settings file's, ui/public.py).
from engine.observe.fields import MAX_INT, MAX_ITEMS, Bool, Checked, Float, Int, ListOf, OneOf, Text, Want

__all__ = ["MAX_INT", "MAX_ITEMS", "Bool", "Checked", "Float", "Int", "ListOf", "OneOf", "Text", "Want"]
__all__ += ["Record", "describe", "kind_of", "place", "validate", "want_at"]

T = TypeVar("T")
OBJECT_ERRORS = ("model_type", "dict_type", "model_attributes_type", "dataclass_type", "dataclass_exact_type")


class Record(BaseModel):
    """What only a file holds (a header, an encoding): unknown fields ignored. Strictness is each
    field type's own, so that the program's dataclasses inside a record are read from JSON objects."""

    model_config = ConfigDict(extra="ignore", frozen=True)


@functools.cache
def _adapter(kind: Any) -> TypeAdapter:
    return TypeAdapter(kind)


def validate(kind: type[T], data: Any, prefix: str = "") -> T:
    """`data` (parsed JSON or TOML) as `kind` (a dataclass or a model), or a LabError naming the
    first field that is wrong."""
    if not isinstance(data, dict):
        raise LabError(f"{prefix}the file should be an object, got {kind_of(data)}.")
    try:
        return _adapter(kind).validate_python(data)
    except ValidationError as e:
        raise LabError(prefix + describe(kind, e.errors(include_url=False)[0])) from None


def describe(kind: Any, error: dict) -> str:
    """One pydantic error as "where should be what, got what"."""
    loc = tuple(error["loc"])
    where = place(loc) or "the file"
    if error["type"] == "missing":
        return f"{where} is missing."
    want = "an object" if error["type"] in OBJECT_ERRORS else want_at(kind, loc)
    if want is None and error["type"] == "value_error":  # the record's own check (__post_init__) said why
        return f"{where}: {error['ctx']['error']}"
    return f"{where} should be {want or error['msg']}, got {kind_of(error.get('input'))}."


def place(loc: tuple) -> str:
    """("steps", 3, "seqs", 0, "phase") as steps[3].seqs[0].phase."""
    out = ""
    for part in loc:
        if part == "[key]":  # pydantic's marker for an error in a dict's key: the key is already named
            continue
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def want_at(kind: Any, loc: tuple) -> str | None:
    """The Want of the field, list item or dict key at `loc`, found by walking the declared types
    (where the walk cannot go further, the Want of the last type it reached)."""
    tp, want = _unwrap(kind)
    if not loc:
        return want
    is_key = loc[1:2] == ("[key]",)  # the error is in this dict key itself
    children = _children(tp, loc[0], is_key)
    if not children:
        return want
    rest = loc[2:] if is_key else loc[1:]
    # Two fields may read one key (a playground trace reads each token twice): the one that has words.
    return next((w for w in (want_at(child, rest) for child in children) if w), None)


def _children(tp: Any, part: Any, is_key: bool) -> list[Any]:
    """The declared types under `tp` that `part` of a location names."""
    if isinstance(tp, type) and issubclass(tp, BaseModel) and isinstance(part, str):
        return [
            Annotated[(info.annotation, *info.metadata)] if info.metadata else info.annotation
            for name, info in tp.model_fields.items()
            if (info.validation_alias or name) == part
        ]
    if dataclasses.is_dataclass(tp) and isinstance(part, str):
        hints = _hints(tp)
        return [hints[part]] if part in hints else []
    args = typing.get_args(tp)
    if typing.get_origin(tp) in (list, tuple) and args:
        return [args[0]]
    if typing.get_origin(tp) is dict and args:
        return [args[0 if is_key else 1]]
    return []


@functools.cache
def _hints(cls: type) -> dict[str, Any]:
    """A dataclass's field types, with their Annotated words (its annotations may be strings)."""
    return typing.get_type_hints(cls, include_extras=True)


def _unwrap(tp: Any) -> tuple[Any, str | None]:
    """The type under Annotated[...] and `X | None`, and the Want its annotations carry."""
    want = None
    while True:
        if typing.get_origin(tp) is Annotated:
            args = typing.get_args(tp)
            want = next((a.text for a in args[1:] if isinstance(a, Want)), want)
            tp = args[0]
        elif typing.get_origin(tp) in (typing.Union, types.UnionType):
            inner = [a for a in typing.get_args(tp) if a is not type(None)]
            if len(inner) != 1:
                return tp, want
            tp = inner[0]
        else:
            return tp, want


def kind_of(v: Any) -> str:
    """A value as a message shows it: short, and a type for anything long."""
    names = {dict: "an object", list: "a list", str: "a text", type(None): "null"}
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str) and len(v) <= 40:
        return repr(v)
    if type(v) in names:
        return names[type(v)]
    return repr(v) if isinstance(v, (int, float)) else type(v).__name__
