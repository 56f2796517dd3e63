"""Declared file formats (lab/schema.py): pydantic's errors become one sentence that names the
field's place in the file as a reader writes it, with what it should be and what it was."""

from __future__ import annotations

import pytest

from engine.errors import LabError
from engine.observe.trace import StepRecord
from lab.schema import Bool, Float, Int, ListOf, OneOf, Record, Text, validate


class Inner(Record):
    count: Int(lo=1, hi=5)
    note: Text(10) | None = None


class Outer(Record):
    inner: Inner
    ids: ListOf(Int(), 3)
    phase: OneOf(("prefill", "decode"))
    ms: Float(lo=0.0)
    flag: Bool
    items: ListOf(Inner)


GOOD = {"inner": {"count": 2}, "ids": [1, 2], "phase": "decode", "ms": 1, "flag": True, "items": [], "extra": 1}


@pytest.mark.parametrize(
    "change, message",
    [
        ({"inner": 3}, "inner should be an object, got 3."),
        ({"inner": {"count": True}}, "inner.count should be a whole number from 1 to 5, got true."),
        ({"inner": {"count": "2"}}, "inner.count should be a whole number from 1 to 5, got '2'."),
        ({"ids": [1, -2]}, "ids[1] should be a whole number from 0 to 9007199254740992, got -2."),
        ({"ids": [1] * 4}, "ids should be a list of at most 3 items, got a list."),
        ({"phase": "warp"}, "phase should be one of 'prefill', 'decode', got 'warp'."),
        ({"ms": float("inf")}, "ms should be a finite number from 0 to inf, got inf."),
        ({"flag": 1}, "flag should be true or false, got 1."),
        ({"items": [{"count": 1}, {"count": 1, "note": "x" * 11}]}, "items[1].note should be a text of at most 10"),
        ({"items": [{"count": 1}, 5]}, "items[1] should be an object, got 5."),
    ],
)
def test_the_first_error_reads_as_one_sentence_naming_the_field(change, message):
    with pytest.raises(LabError) as info:
        validate(Outer, GOOD | change, "Not valid: ")
    assert str(info.value).startswith("Not valid: " + message), str(info.value)


def test_a_missing_field_and_a_bad_dict_key_are_named():
    with pytest.raises(LabError, match=r"^Not valid: ms is missing\.$"):
        validate(Outer, {k: v for k, v in GOOD.items() if k != "ms"}, "Not valid: ")
    step = {
        **{n: 0 for n in ("step", "kv_tokens", "kv_bytes", "kv_blocks", "kv_reserved_bytes", "kv_wasted_slots")},
        **{n: 0.0 for n in ("start", "ms", "flops", "flops_linear", "flops_attention", "bytes_moved")},
        "kv_free_blocks": 0,
        "seqs": [],
        "block_tables": {"seven": [1]},
    }
    with pytest.raises(LabError, match=r"block_tables\.seven should be a sequence id \(digits\), got 'seven'"):
        validate(StepRecord, step)
    assert validate(StepRecord, step | {"block_tables": {"7": [1]}}).block_tables == {7: [1]}


def test_a_valid_record_keeps_its_values_and_ignores_derived_fields():
    record = validate(Outer, GOOD)
    assert record.ms == 1.0 and isinstance(record.ms, float) and record.inner.note is None
    assert not hasattr(record, "extra")
