"""OpenAI's request bodies and the shapes of its responses and stream chunks. Each field is honoured,
refused by name when set to what this server cannot do (REFUSED), or ignored because it changes
nothing here (IGNORED, listed in docs/server.md); other unknown fields are ignored, as vLLM does."""

from __future__ import annotations

import json
import time
import uuid
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from engine.entrypoints.server.errors import ApiError
from engine.errors import LabError
from engine.sampling_params import SamplingParams

MAX_STOPS = 16  # OpenAI takes 4, vLLM any number: enough for every client we know, and a bound
MAX_STOP_CHARS = 1000  # each: a stop string is a turn marker or a delimiter, never a document


class StreamOptions(BaseModel):
    include_usage: bool = False


# Fields a client sets to change what it gets back: refused (400, naming the field) unless they hold
# the value that means "off", so no reply silently differs from what the client asked for.
REFUSED = {
    "logprobs": (None, False, 0),
    "top_logprobs": (None, 0),
    "echo": (None, False),
    "best_of": (None, 1),
    "suffix": (None, ""),
    "logit_bias": (None, {}),
    "presence_penalty": (None, 0, 0.0),
    "frequency_penalty": (None, 0, 0.0),
    "repetition_penalty": (None, 1, 1.0),
    "tools": (None, []),
    "functions": (None, []),
    "tool_choice": (None, "none"),
    "response_format": (None, {"type": "text"}),
    "guided_json": (None,),
    "guided_regex": (None,),
    "guided_choice": (None,),
}
IGNORED = ("user", "metadata", "store", "service_tier", "parallel_tool_calls", "stream_options.continuous_usage_stats")


class _Sampling(BaseModel):
    model_config = ConfigDict(extra="allow", allow_inf_nan=False)
    model: str | None = None
    max_tokens: int | None = Field(default=None, ge=1)
    temperature: float = Field(default=1.0, ge=0.0, le=100.0)  # OpenAI's default is 1, not greedy
    top_p: float = Field(default=1.0, gt=0.0, le=1.0)
    top_k: int = Field(default=0, ge=-1)  # vLLM's extension; 0 or -1 = off
    min_tokens: int = Field(default=0, ge=0)  # vLLM's extension: no EOS and no stop before this many
    seed: int | None = Field(default=None, ge=0, lt=2**63)
    ignore_eos: bool = False  # vLLM's extension, for benchmarks
    stop: str | list[str] | None = None
    stop_token_ids: list[int] | None = None  # vLLM's extension
    n: int = Field(default=1, ge=1, le=1)
    stream: bool = False
    stream_options: StreamOptions | None = None

    @field_validator("stop")
    @classmethod
    def _few_stops(cls, v):
        if isinstance(v, list) and len(v) > MAX_STOPS:
            raise LabError(f"at most {MAX_STOPS} stop strings, got {len(v)}")
        for i, s in enumerate([v] if isinstance(v, str) else v or []):
            if len(s) > MAX_STOP_CHARS:
                where = "the stop string" if isinstance(v, str) else f"stop string {i}"
                raise LabError(f"{where} has {len(s):,} characters; this server takes at most {MAX_STOP_CHARS:,}")
        return v

    def check(self, served: str | None) -> None:
        """Refuse what this server cannot honour, naming the field (after pydantic's type checks);
        `served` None: the model is checked where it is served (a router leaves it to its worker)."""
        if served is not None and self.model is not None and self.model != served:
            raise ApiError(
                f"The model {self.model!r} does not exist here; this server serves {served!r} (GET /v1/models).",
                404,
                "model",
                "model_not_found",
            )
        for name, off in REFUSED.items():
            value = (self.model_extra or {}).get(name)
            if value not in off:
                raise ApiError(f"{name} is not supported by this server (got {value!r}).", 400, name)

    def sampling(self, default_max_tokens: int) -> SamplingParams:
        max_new = self.max_tokens or default_max_tokens
        if self.min_tokens > max_new:
            raise ApiError(f"min_tokens ({self.min_tokens}) is more than max_tokens ({max_new}).", 400, "min_tokens")
        return SamplingParams(
            max_new_tokens=max_new,
            temperature=self.temperature,
            top_k=max(0, self.top_k),
            top_p=self.top_p,
            seed=self.seed,
            ignore_eos=self.ignore_eos,
            min_new_tokens=self.min_tokens,
        )

    def forwarded(self) -> bytes:
        """This request as a router hands it to its prefill worker: the fields as parsed here and no
        other (unknown ones dropped; stop strings and streaming are the router's), as JSON with every
        non-ASCII character escaped, so the worker reads exactly what the router read."""
        data = self.model_dump(include=set(type(self).model_fields), exclude={"stop", "stream", "stream_options"})
        return json.dumps(data, ensure_ascii=True, allow_nan=False).encode()

    @property
    def stops(self) -> list[str]:
        return [self.stop] if isinstance(self.stop, str) else list(self.stop or [])

    @property
    def include_usage(self) -> bool:
        return bool(self.stream_options and self.stream_options.include_usage)


class CompletionRequest(_Sampling):
    prompt: str | list[int]


class ContentPart(BaseModel):
    model_config = ConfigDict(extra="allow")
    type: str
    text: str | None = None


class ChatMessage(BaseModel):
    model_config = ConfigDict(extra="ignore")
    role: Literal["system", "developer", "user", "assistant"]
    content: str | list[ContentPart]

    def text(self, index: int) -> str:
        """The message's text: a string, or its text parts joined (GuideLLM's and the SDK's form)."""
        if isinstance(self.content, str):
            return self.content
        for part in self.content:
            if part.type != "text" or part.text is None:
                raise ApiError(
                    f"messages[{index}].content: a part of type {part.type!r} is not supported; this model "
                    "reads text only (parts of type 'text' with a 'text' field).",
                    400,
                    f"messages[{index}].content",
                )
        return "".join(part.text for part in self.content)

    def as_template_input(self, index: int) -> dict[str, Any]:
        role = "system" if self.role == "developer" else self.role  # OpenAI's newer name for system
        return {"role": role, "content": self.text(index)}


class ChatRequest(_Sampling):
    messages: list[ChatMessage] = Field(min_length=1)
    max_completion_tokens: int | None = Field(default=None, ge=1)  # the newer name of max_tokens


def usage(prompt: int, completion: int) -> dict:
    return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}


class ResponseIds:
    """The id, creation time and model every chunk of one response repeats."""

    def __init__(self, chat: bool, model: str):
        self.chat, self.model = chat, model
        self.id = ("chatcmpl-" if chat else "cmpl-") + uuid.uuid4().hex
        self.created = int(time.time())

    def chunk(self, text: str | None = None, finish: str | None = None, role: bool = False) -> dict:
        if self.chat:
            delta = {"role": "assistant", "content": ""} if role else ({"content": text} if text else {})
            choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}
            kind = "chat.completion.chunk"
        else:
            choice = {"index": 0, "text": text or "", "logprobs": None, "finish_reason": finish}
            kind = "text_completion"
        return {"id": self.id, "object": kind, "created": self.created, "model": self.model, "choices": [choice]}

    def usage_chunk(self, prompt: int, completion: int) -> dict:
        kind = "chat.completion.chunk" if self.chat else "text_completion"
        return {
            "id": self.id,
            "object": kind,
            "created": self.created,
            "model": self.model,
            "choices": [],
            "usage": usage(prompt, completion),
        }

    def whole(self, text: str, finish: str, prompt: int, completion: int) -> dict:
        if self.chat:
            choice = {
                "index": 0,
                "message": {"role": "assistant", "content": text},
                "logprobs": None,
                "finish_reason": finish,
            }
            kind = "chat.completion"
        else:
            choice = {"index": 0, "text": text, "logprobs": None, "finish_reason": finish}
            kind = "text_completion"
        return {
            "id": self.id,
            "object": kind,
            "created": self.created,
            "model": self.model,
            "choices": [choice],
            "usage": usage(prompt, completion),
        }
