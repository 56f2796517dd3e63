"""Declared file formats (pydantic models) whose errors read as one sentence naming the field.

A file a visitor uploads, or a settings file, is untrusted input. Its records are pydantic models
built from the field types below; each type carries the words a reader needs ("a whole number from
0 to 9"), and `validate` turns pydantic's first error into a LabError naming the field's place in
the file as a reader would write it:

    Not a valid trace: steps[3].ms should be a finite number from 0 to inf, got 'fast'.

Records ignore fields they do not declare (a file may carry derived fields for its readers); a
model that must refuse unknown fields sets extra="forbid" and reports them itself.
"""

from __future__ import annotations

import math
import types
import typing
from dataclasses import dataclass
from typing import Annotated, Any, Literal, TypeVar

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError

from engine.errors import LabError

MAX_INT = 1 << 53  # JSON numbers beyond this lose precision: nothing we record is that large
MAX_ITEMS = 200_000  # steps, tokens, token ids: far beyond any run the app makes

M = TypeVar("M", bound=BaseModel)


@dataclass(frozen=True)
class Want:
    """What a field should be, in a reader's words: the end of "x should be …"."""

    text: str


class Record(BaseModel):
    """A record read from a file: strict types (no "3" for 3, no true for 1), unknown fields ignored."""

    model_config = ConfigDict(strict=True, extra="ignore", frozen=True)


def Int(lo: int = 0, hi: int = MAX_INT) -> Any:  # noqa: N802 - a type, named like one
    return Annotated[int, Field(strict=True, ge=lo, le=hi), Want(f"a whole number from {lo} to {hi}")]


def Float(lo: float = -math.inf, hi: float = math.inf) -> Any:  # noqa: N802
    return Annotated[
        float, Field(strict=True, ge=lo, le=hi, allow_inf_nan=False), Want(f"a finite number from {lo:g} to {hi:g}")
    ]


def Text(max_len: int = 1 << 20) -> Any:  # noqa: N802
    return Annotated[str, Field(strict=True, max_length=max_len), Want(f"a text of at most {max_len} characters")]


def OneOf(choices: tuple[str, ...]) -> Any:  # noqa: N802
    return Annotated[Literal[choices], Want("one of " + ", ".join(repr(c) for c in choices))]


def ListOf(item: Any, max_len: int = MAX_ITEMS, want: str | None = None) -> Any:  # noqa: N802
    return Annotated[list[item], Field(max_length=max_len), Want(want or f"a list of at most {max_len} items")]


def Checked(kind: Any, check: typing.Callable[[Any], Any], want: str) -> Any:  # noqa: N802
    """A value `check` accepts (returning it, converted); a ValueError from it reads "should be `want`"."""
    return Annotated[kind, AfterValidator(check), Want(want)]


Bool = Annotated[bool, Field(strict=True), Want("true or false")]


def validate(model: type[M], data: Any, prefix: str = "") -> M:
    """`data` (parsed JSON or TOML) as `model`, or a LabError naming the first field that is wrong."""
    if not isinstance(data, dict):
        raise LabError(f"{prefix}the file should be an object, got {kind_of(data)}.")
    try:
        return model.model_validate(data)
    except ValidationError as e:
        raise LabError(prefix + describe(model, e.errors(include_url=False)[0])) from None


def describe(model: type[BaseModel], error: dict) -> str:
    """One pydantic error as "where should be what, got what"."""
    loc = tuple(error["loc"])
    where = place(loc) or "the file"
    if error["type"] == "missing":
        return f"{where} is missing."
    if error["type"] in ("model_type", "dict_type", "model_attributes_type"):
        want = "an object"
    else:
        want = want_at(model, loc) or error["msg"]
    return f"{where} should be {want}, got {kind_of(error.get('input'))}."


def place(loc: tuple) -> str:
    """("steps", 3, "seqs", 0, "phase") as steps[3].seqs[0].phase."""
    out = ""
    for part in loc:
        if part == "[key]":  # pydantic's marker for an error in a dict's key: the key is already named
            continue
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def want_at(model: type[BaseModel], loc: tuple) -> str | None:
    """The Want of the field or list item at `loc`, found by walking the declared types."""
    tp: Any = model
    want = None
    for i, part in enumerate(loc):
        tp, found = _unwrap(tp)
        want = found or want
        key_next = i + 1 < len(loc) and loc[i + 1] == "[key]"  # the error is in this dict key itself
        if part == "[key]":
            continue
        if isinstance(tp, type) and issubclass(tp, BaseModel) and isinstance(part, str) and part in tp.model_fields:
            info = tp.model_fields[part]
            tp = Annotated[(info.annotation, *info.metadata)] if info.metadata else info.annotation
            want = None
        elif typing.get_origin(tp) in (list, tuple) and typing.get_args(tp):
            tp = typing.get_args(tp)[0]
            want = None
        elif typing.get_origin(tp) is dict:
            tp = typing.get_args(tp)[0 if key_next else 1]
            want = None
        else:
            return want
    _, found = _unwrap(tp)
    return found or want


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
