"""What the disaggregated router and its workers say to each other, typed on both sides.

A prefill worker answers POST /pdlab/prefill with a KV hand-off (engine/core/kv_transfer.py's bytes):
one JSON header line, then the raw KV; the router reads the header as `HandoffHeader` and passes the
bytes on whole. A decode worker answers POST /pdlab/decode with JSON lines, each a message with its
kind in `type`: `admitted` first (when the hand-off arrived and when its blocks were given), then a
`token` per token, then `finish` or `error`. Router and workers are always the same version, so
there is no other shape to accept."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter


class Admitted(BaseModel):
    """The hand-off's arrival and its admission, on the machine's wall clock (time.time)."""

    type: Literal["admitted"] = "admitted"
    received: float
    admitted: float


class Token(BaseModel):
    """One token's text ("" while a character is incomplete) and its id."""

    type: Literal["token"] = "token"
    text: str
    token_id: int | None = None


class Finish(BaseModel):
    """The end: OpenAI's finish reason and the request's output tokens, the first one included."""

    type: Literal["finish"] = "finish"
    finish_reason: str
    completion_tokens: int


class Failure(BaseModel):
    """The engine gave up on the request, in its own words."""

    type: Literal["error"] = "error"
    message: str


DecodeLine = Annotated[Admitted | Token | Finish | Failure, Field(discriminator="type")]
_DECODE_LINE: TypeAdapter[DecodeLine] = TypeAdapter(DecodeLine)


def encode_line(message: Admitted | Token | Finish | Failure) -> str:
    """One line of a decode worker's answer."""
    return message.model_dump_json() + "\n"


def decode_line(line: str | bytes) -> Admitted | Token | Finish | Failure:
    """A line of a decode worker's answer as its message (a pydantic ValidationError if it is none)."""
    return _DECODE_LINE.validate_json(line)


class HandoffParams(BaseModel):
    model_config = ConfigDict(extra="ignore")
    max_new_tokens: int


class HandoffHeader(BaseModel):
    """The router's view of a hand-off's header line: the first token and what it needs to answer
    without the decode worker (the KV layout is the decode worker's to read)."""

    model_config = ConfigDict(extra="ignore")
    prompt_ids: list[int]
    first_token: int
    first_text: str = ""
    finished: bool
    params: HandoffParams
    timing: dict[str, float] = Field(default_factory=dict)  # the prefill worker's wall-clock stamps

    @classmethod
    def of(cls, handoff: bytes) -> HandoffHeader:
        return cls.model_validate_json(handoff.partition(b"\n")[0])
