"""One streamed request to an OpenAI-compatible server (vLLM, SGLang, TGI, `transformers serve`, or
our own `python -m engine serve`), every chunk stamped with `time.perf_counter()` on arrival.

TTFT = the first chunk with content − send; ITL = the gaps between content chunks; TPOT =
(E2E − TTFT) / (output tokens − 1), with the output tokens from the server's `usage` when it sends
one (asked for with `stream_options.include_usage`), else the content chunks counted and said so
(`engine/observe/request_metrics.py`, the same function as the engine's own metrics).

Quirks handled (seen on `transformers serve` 5.24): no `data: [DONE]` (the stream just ends); the
usage on the chunk with the finish reason instead of a chunk with empty `choices`; a first delta with
only the role; `stream_options` ignored. Every failure becomes a `RemoteError` with a sentence a user
can act on.
"""

from __future__ import annotations

import asyncio
import json
import ssl
import time
from dataclasses import dataclass, field

import openai
from openai import AsyncOpenAI

from engine.errors import LabError
from engine.observe.fields import Bool, Float, Int, Text
from engine.observe.request_metrics import RequestMetrics
from lab.catalogues import say

MAX_TEXT_CHARS = 1 << 20  # a reply longer than this is cut: the server is misbehaving
STREAM_CUT = "was cut after"  # in every message for a stream that ended early (the page names a cause)


class RemoteError(Exception):
    """A failure talking to the server, in words for the user."""


@dataclass
class Endpoint:
    base_url: str  # e.g. http://127.0.0.1:8000/v1
    api_key: str | None = None  # kept in memory only: never written to traces, reports or logs
    timeout_s: float = 60.0  # connect, and each wait for the next bytes; a whole request gets 10x

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
    ignore_eos: Bool = False  # vLLM's and our server's extension; others ignore it
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
                f"{endpoint.base_url}/models is not an OpenAI-compatible model list: {_short(exc, 120)}"
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
        await asyncio.wait_for(_read(client, model, req, result, endpoint.base_url), 10 * endpoint.timeout_s)
    except asyncio.CancelledError:
        result.error = "cancelled"
        raise
    except Exception as exc:  # noqa: BLE001 - a message for the user, and what arrived is kept
        result.error = explain(exc, endpoint, len(result.chunk_times))
    finally:
        result.done = time.perf_counter()
        if own:
            await client.close()
    return result


async def _read(client: AsyncOpenAI, model: str, req: RemoteRequest, result: RemoteResult, url: str) -> None:
    extra = {"ignore_eos": True} if req.ignore_eos else None
    common = dict(
        model=model,
        max_tokens=req.max_tokens,
        temperature=req.temperature,
        stream=True,
        stream_options={"include_usage": True},
        extra_body=extra,
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
            f"The stream from {url} {STREAM_CUT} {_chunks(len(result.chunk_times))}: it ended without a finish reason."
        )


def _chunks(n: int) -> str:
    return say("remote_chunks", n=n)  # English, as every error of this module (and of the servers)


def explain(exc: BaseException, endpoint: Endpoint, chunks: int = 0) -> str:
    """One sentence for each way a request fails."""
    url = endpoint.base_url
    if isinstance(exc, RemoteError):
        return str(exc)
    if isinstance(exc, (asyncio.TimeoutError, openai.APITimeoutError)):
        return f"{url} did not answer within {endpoint.timeout_s:g} s" + (
            f" (it stalled after {_chunks(chunks)})." if chunks else "."
        )
    if isinstance(exc, openai.AuthenticationError):
        return f"{url} refused the request (401): check the API key."
    if isinstance(exc, openai.PermissionDeniedError):
        return f"{url} refused the request (403): this key may not use this model."
    if isinstance(exc, openai.NotFoundError):
        return (
            f"{url} answered 404 Not Found: is this an OpenAI-compatible server, and is the model name "
            f"right? ({_short(exc)})"
        )
    if isinstance(exc, openai.APIStatusError):
        return f"{url} answered {exc.status_code}: {_short(exc)}"
    if isinstance(exc, openai.APIResponseValidationError) or isinstance(exc, ValueError):
        return f"{url} sent something that is not OpenAI-compatible JSON: {_short(exc)}"
    if isinstance(exc, openai.APIConnectionError):
        cause = exc.__cause__ or exc
        tls = _tls_failure(exc)
        if tls is not None and not chunks:
            return tls.replace("{url}", url)
        if chunks:
            return f"The stream from {url} {STREAM_CUT} {_chunks(chunks)} ({type(cause).__name__})."
        return f"Cannot connect to {url}: {_short(cause)}"
    return f"{type(exc).__name__} while talking to {url}: {_short(exc)}"


def _tls_failure(exc: BaseException) -> str | None:
    """A sentence for a failed TLS handshake found anywhere in the exception's causes ({url} left open)."""
    seen = exc
    while seen is not None:
        text = str(seen)
        if isinstance(seen, ssl.SSLCertVerificationError) or "CERTIFICATE_VERIFY_FAILED" in text:
            return (
                f"The TLS certificate of {{url}} did not verify ({_short(seen, 160)}): a self-signed or "
                f"private CA certificate needs SSL_CERT_FILE pointing at that CA."
            )
        if isinstance(seen, ssl.SSLError) or "WRONG_VERSION_NUMBER" in text or "SSL" in type(seen).__name__:
            return (
                f"The TLS handshake with {{url}} failed ({_short(seen, 160)}): does the server speak plain "
                f"HTTP? Then write http:// instead of https://."
            )
        seen = seen.__cause__ or seen.__context__
    return None


def _short(exc: BaseException, limit: int = 300) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if len(text) <= limit else text[:limit] + "…"
