"""The lines between the disaggregated router and its decode worker: each kind a model with its
`type`, parsed by that field alone (a line is never told apart by which keys it happens to have),
and a hand-off's header as the router reads it."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from engine.entrypoints.server.worker_protocol import (
    Admitted,
    Failure,
    Finish,
    HandoffHeader,
    Token,
    decode_line,
    encode_line,
)


@pytest.mark.parametrize(
    "message",
    [
        Admitted(received=1700000000.25, admitted=1700000000.5),
        Token(text="天气", token_id=42),
        Token(text="", token_id=None),
        Finish(finish_reason="length", completion_tokens=16),
        Failure(message="The engine stopped: out of memory."),
    ],
)
def test_each_kind_round_trips_as_one_line(message):
    line = encode_line(message)
    assert line.endswith("\n") and "\n" not in line[:-1]
    assert json.loads(line)["type"] == message.type
    assert decode_line(line.rstrip("\n")) == message and decode_line(line.encode()) == message


def test_the_type_field_decides_the_kind_and_an_unknown_or_missing_one_is_refused():
    # keys of a token and of a finish together: the type says which it is
    both = {"type": "finish", "text": "x", "token_id": 1, "finish_reason": "stop", "completion_tokens": 3}
    assert decode_line(json.dumps(both)) == Finish(finish_reason="stop", completion_tokens=3)
    for bad in ({"text": "x", "token_id": 1}, {"type": "tokens", "text": "x"}, {"type": "admitted", "received": 1.0}):
        with pytest.raises(ValidationError):
            decode_line(json.dumps(bad))


def test_the_router_reads_a_hand_offs_header_and_leaves_its_kv():
    header = {
        "prompt_ids": [1, 2, 3],
        "first_token": 7,
        "params": {"max_new_tokens": 1, "temperature": 0.0},
        "storage": "float32",
        "shape": [2, 2, 1, 3, 4],
        "finished": True,
        "first_text": " Hi",
        "timing": {"p_arrival": 1.0, "p_start": 2.0, "p_end": 3.0},
    }
    read = HandoffHeader.of(json.dumps(header).encode() + b"\n\x00\x01\x02")
    assert (read.prompt_ids, read.first_token, read.first_text, read.finished) == ([1, 2, 3], 7, " Hi", True)
    assert read.params.max_new_tokens == 1 and list(read.timing) == ["p_arrival", "p_start", "p_end"]
