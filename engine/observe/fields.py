"""The field types a saved record is declared with, so that a file is read against the very
declaration the program uses.

A record that goes into a file (a trace's steps, tokens and requests here; the lab's remote runs)
is a plain dataclass whose fields carry these types; a plain dataclass ignores them, and the
engine never pays for them. Reading a file, pydantic validates against them (lab/schema.py): each is
strict (no "3" for 3, no true for 1), bounded (no list or text longer than any run makes) and
carries the words a reader needs when a value is wrong, so the message names the field:

    Not a valid trace: steps[3].ms should be a finite number from 0 to inf, got 'fast'.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BeforeValidator, Field, PlainValidator

MAX_INT = 1 << 53  # JSON numbers beyond this lose precision: nothing we record is that large
MAX_ITEMS = 200_000  # steps, tokens, token ids: far beyond any run the app makes


@dataclass(frozen=True)
class Want:
    """What a field should be, in a reader's words: the end of "x should be …"."""

    text: str


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


def Checked(kind: Any, check: Callable[[Any], Any], want: str) -> Any:  # noqa: N802
    """A value `check` accepts (returning it, converted); a ValueError from it reads "should be `want`"."""
    return Annotated[kind, AfterValidator(check), Want(want)]


def Parsed(kind: Any, parse: Callable[[Any], Any], want: str) -> Any:  # noqa: N802
    """A `kind` that JSON writes another way (a number as an object's key is text; infinity is
    "+Inf"): `parse` turns what the file holds into it, and a ValueError from it reads "should be `want`"."""
    return Annotated[kind, BeforeValidator(parse), Want(want)]


Bool = Annotated[bool, Field(strict=True), Want("true or false")]

# A field no file holds (captured tensors): whatever a file has under its name is dropped.
NOT_SAVED = PlainValidator(lambda _value: None)
