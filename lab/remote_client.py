"""One streamed request to an OpenAI-compatible server (vLLM, SGLang, TGI, `transformers serve`, or
our own `python -m engine serve`), every chunk stamped with `time.perf_counter()` on arrival.

TTFT = the first chunk with content − send; ITL = the gaps between content chunks; TPOT =
(E2E − TTFT) / (output tokens − 1), with the output tokens from the server's `usage` when it sends
one (asked for with `stream_options.include_usage`), else the content chunks counted and said so
(`engine/observe/request_metrics.py`, the same function as the engine's own metrics).

Quirks handled (seen on `transformers serve` 5.24): no `data: [DONE]` (the stream just ends); the
usage on the chunk with the finish reason instead of a chunk with empty `choices`; a first delta with
only the role; `stream_options` ignored; vLLM's extensions (`ignore_eos`) refused with 422 "Unexpected
fields in the request": the request is sent again without them (lab/remote_errors.py), and the result
says which it went without. Every failure becomes a sentence a user can act on (a `RemoteError`
where nothing was measured), with the server's own words and status kept.
"""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass, field

import openai
from openai import AsyncOpenAI

from engine.errors import LabError
from engine.observe.fields import Bool, Float, Int, Text
from engine.observe.request_metrics import RequestMetrics
from lab.remote_errors import (  # noqa: F401 - named here too, by their users
    EXTENSIONS,
    STREAM_CUT,
    RemoteError,
    chunks_text,
    explain,
    refused_extensions,
    server_message,
    short,
)

MAX_TEXT_CHARS = 1 << 20  # a reply longer than this is cut: the server is misbehaving
CANCELLED = "cancelled"  # the error of a request the lab itself cancelled (a Stop, a time limit)


@dataclass
class Endpoint:
    base_url: str  # e.g. http://127.0.0.1:8000/v1
    api_key: str | None = None  # kept in memory only: never written to traces, reports or logs
    timeout_s: float = 60.0  # connect, and each wait for the next bytes; a whole request gets 10x
    # vLLM's extensions this server refused by name, each with the refusal ("422 Unexpected fields…"),
    # learned from its first refusal: every later request to it goes without them
    refused: dict[str, str] = field(default_factory=dict, compare=False)

    def __post_init__(self):
        url = self.base_url.strip().rstrip("/")
        if not url.startswith(("http://", "https://")):
            raise LabError(f"The base URL must start with http:// or https://, got {self.base_url!r}.")
        if not url.endswith("/v1"):
            url += "/v1"  # OpenAI-compatible servers serve their API under /v1
        self.base_url = url
        if not 0 < self.timeout_s <= 3600:
            raise LabError(f"The timeout must be in (0, 3600] seconds, got {self.timeout_s}.")

    def client(self) -> AsyncOpenAI:
        return AsyncOpenAI(
            base_url=self.base_url, api_key=self.api_key or "unused", timeout=self.timeout_s, max_retries=0
        )

    def __repr__(self) -> str:  # never show the key
        return f"Endpoint({self.base_url!r}, key={'set' if self.api_key else 'none'}, timeout_s={self.timeout_s})"


@dataclass
class RemoteRequest:
    prompt: Text()
    max_tokens: Int(lo=1, hi=1 << 20) = 64
    chat: Bool = True
    temperature: Float(lo=0.0, hi=100.0) = 0.0
    ignore_eos: Bool = False  # vLLM's and our server's extension; others ignore it or refuse it
    # a synthetic prompt's length, by `tokenizer`'s count (lab/synthetic_prompts.py); saved runs from
    # before synthetic prompts have neither
    prompt_tokens: Int(lo=1, hi=1 << 20) | None = None
    tokenizer: Text(500) | None = None  # the tokenizer that counted it


@dataclass
class RemoteResult:
    """One request as the client saw it: when it was sent, when each content chunk arrived."""

    request: RemoteRequest
    send: float  # perf_counter at send
    chunk_times: list[float] = field(default_factory=list)  # content chunks only
    chunk_texts: list[str] = field(default_factory=list)
    usage_prompt_tokens: int | None = None
    usage_output_tokens: int | None = None
    finish_reason: str | None = None
    error: str | None = None
    done: float | None = None  # perf_counter when the stream ended
    response_id: str | None = None  # the id the server gave its response
    status: int | None = None  # the HTTP status of a refused request
    reason: str | None = None  # the server's own words for that refusal
    # vLLM's extensions the request went without, because the server refuses them (`refusal`: its
    # status and words): its reply may end at EOS before max_tokens; its tokens count as received
    dropped_fields: list[str] = field(default_factory=list)
    refusal: str | None = None

    @property
    def text(self) -> str:
        return "".join(self.chunk_texts)

    @property
    def tokens_counted_from_chunks(self) -> bool:
        """No usage came back: the output count is the number of content chunks."""
        return self.usage_output_tokens is None

    @property
    def num_output_tokens(self) -> int:
        return self.usage_output_tokens if self.usage_output_tokens is not None else len(self.chunk_times)

    @property
    def ignored_ignore_eos(self) -> bool:
        """Asked to run past EOS (`ignore_eos`, vLLM's extension), the server still ended the reply at a
        stop before `max_tokens`: it does not honour the option (llama.cpp's server, for one)."""
        return (
            self.request.ignore_eos
            and "ignore_eos" not in self.dropped_fields
            and self.error is None
            and self.finish_reason == "stop"
            and self.num_output_tokens < self.request.max_tokens
        )

    @property
    def empty_reply(self) -> bool:
        """The server ended the reply normally without a single token of text (llama.cpp's server
        answers some prompts with "" and finish reason "stop"): finished, with nothing to time."""
        return self.error is None and self.done is not None and not self.chunk_times

    @property
    def chunks_hold_several_tokens(self) -> bool:
        return self.usage_output_tokens is not None and self.usage_output_tokens != len(self.chunk_times)

    @property
    def metrics(self) -> RequestMetrics | None:
        if not self.chunk_times:
            return None
        return RequestMetrics.from_times(self.send, self.chunk_times, self.num_output_tokens)


async def list_models(endpoint: Endpoint) -> list[str]:
    """The model ids the server lists at /v1/models (read raw: a non-JSON page is an error, not a crash)."""
    async with endpoint.client() as client:
        try:
            raw = await asyncio.wait_for(client.models.with_raw_response.list(), endpoint.timeout_s)
            body = json.loads(raw.text)
            return [str(m["id"]) for m in body["data"]]
        except (ValueError, KeyError, TypeError) as exc:
            raise RemoteError(
                f"{endpoint.base_url}/models is not an OpenAI-compatible model list: {short(exc, 120)}"
            ) from exc
        except Exception as exc:  # noqa: BLE001 - every failure becomes one sentence
            raise RemoteError(explain(exc, endpoint)) from exc


_CHUNK = {"id": "w", "created": 0, "model": "w"}
_SHAPES = (  # one streamed chunk of each API, as the SDK builds it from the wire
    ("ChatCompletionChunk", {**_CHUNK, "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {}}]}),
    ("Completion", {**_CHUNK, "object": "text_completion", "choices": [{"index": 0, "text": ""}]}),
)


async def warm(client: AsyncOpenAI, endpoint: Endpoint) -> None:
    """Pay a client's first-use costs before any clock starts: its lazily built resources, the SDK's
    first building of a streamed chunk's type, and a connection to the server (GET /models; a
    failure here is left for the timed request to report). Without it a fresh process's first TTFT
    against a server that answers in 5 ms was 50-200 ms; with it, about 10."""
    _ = client.chat.completions, client.completions
    try:  # the SDK's own builder (private: where a version lacks it, the rest still helps)
        from openai._models import construct_type
        from openai.types import Completion
        from openai.types.chat import ChatCompletionChunk

        types = {"ChatCompletionChunk": ChatCompletionChunk, "Completion": Completion}
        for name, value in _SHAPES:
            construct_type(type_=types[name], value=value)
    except ImportError:
        pass
    try:
        await asyncio.wait_for(client.models.list(), endpoint.timeout_s)
    except Exception:  # noqa: BLE001, S110 - the request that follows says what is wrong
        pass


async def stream_one(
    endpoint: Endpoint,
    model: str,
    req: RemoteRequest,
    client: AsyncOpenAI | None = None,
    result: RemoteResult | None = None,
) -> RemoteResult:
    """Send one request and read its stream to the end; failures land in `result.error` (what
    arrived before them is kept). Pass a client to share its connections across a load run, and a
    result to watch it fill while it streams."""
    own = client is None
    client = client or endpoint.client()
    result = result or RemoteResult(req, send=0.0)
    try:
        if own:
            await warm(client, endpoint)
        await asyncio.wait_for(_read_accepted(client, model, req, result, endpoint), 10 * endpoint.timeout_s)
    except asyncio.CancelledError:
        result.error = CANCELLED
        raise
    except Exception as exc:  # noqa: BLE001 - a message for the user, and what arrived is kept
        result.error = explain(exc, endpoint, len(result.chunk_times))
        if isinstance(exc, openai.APIStatusError):
            result.status, result.reason = exc.status_code, server_message(exc)
    finally:
        result.done = time.perf_counter()
        if own:
            await client.close()
    return result


def extensions(req: RemoteRequest) -> dict[str, object]:
    """The vLLM extensions this request asks for (EXTENSIONS): sent in the body beside OpenAI's fields."""
    return {"ignore_eos": True} if req.ignore_eos else {}


async def _read_accepted(
    client: AsyncOpenAI, model: str, req: RemoteRequest, result: RemoteResult, endpoint: Endpoint
) -> None:
    """`_read` with the extensions the server accepts; when it refuses one by name (a 4xx before any
    chunk), the request goes once more without any of vLLM's, and the endpoint remembers."""
    asked = extensions(req)
    sent = {k: v for k, v in asked.items() if k not in endpoint.refused}
    result.dropped_fields = [k for k in asked if k not in sent]
    result.refusal = endpoint.refused[result.dropped_fields[0]] if result.dropped_fields else None
    try:
        await _read(client, model, req, result, endpoint.base_url, sent)
    except openai.APIStatusError as exc:
        if result.chunk_times or not refused_extensions(exc, list(sent)):
            raise
        result.refusal = f"{exc.status_code} {server_message(exc)}"
        endpoint.refused.update(dict.fromkeys(EXTENSIONS, result.refusal))  # refusing one: it knows none
        result.dropped_fields = list(asked)
        await _read(client, model, req, result, endpoint.base_url, {})


async def _read(
    client: AsyncOpenAI, model: str, req: RemoteRequest, result: RemoteResult, url: str, extra: dict[str, object]
) -> None:
    common = dict(
        model=model,
        max_tokens=req.max_tokens,
        temperature=req.temperature,
        stream=True,
        stream_options={"include_usage": True},
        extra_body=extra or None,
    )
    result.send = time.perf_counter()
    if req.chat:
        stream = await client.chat.completions.create(messages=[{"role": "user", "content": req.prompt}], **common)
    else:
        stream = await client.completions.create(prompt=req.prompt, **common)
    size = 0
    async for chunk in stream:
        now = time.perf_counter()
        result.response_id = result.response_id or getattr(chunk, "id", None)
        if chunk.usage:  # its own chunk with empty choices, or on the finish chunk (transformers serve)
            result.usage_prompt_tokens = chunk.usage.prompt_tokens
            result.usage_output_tokens = chunk.usage.completion_tokens
        for choice in chunk.choices or []:
            text = (choice.delta.content if req.chat and choice.delta else getattr(choice, "text", None)) or ""
            if text:  # a role-only or empty delta is not output
                result.chunk_times.append(now)
                result.chunk_texts.append(text)
                size += len(text)
            if choice.finish_reason:
                result.finish_reason = choice.finish_reason
        if size > MAX_TEXT_CHARS:
            await stream.close()
            raise RemoteError(f"The reply passed {MAX_TEXT_CHARS:,} characters; the lab stopped reading it.")
    if result.finish_reason is None:  # every server ends with a finish reason, [DONE] or not
        raise RemoteError(
            f"The stream from {url} {STREAM_CUT} {chunks_text(len(result.chunk_times))}: it ended without a finish reason."
        )
