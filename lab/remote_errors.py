"""How a request to an OpenAI-compatible server failed, in one sentence a user can act on, with the
server's own words kept: the reason it gave in its error body, whatever shape the body has.

Servers word a refusal differently: OpenAI's shape `{"error": {"message": …}}` (vLLM, SGLang, ours),
llama.cpp's `{"error": {"code": 400, "message": …}}`, FastAPI's `{"detail": "…"}` (`transformers
serve`) or `{"detail": [{"loc": …, "msg": …}]}`, TGI's `{"error": "…", "error_type": …}`, or plain
text. The OpenAI SDK puts only OpenAI's shape into its exception's text ("Error code: 422" for the
rest), so `server_message` reads the body itself.

A server that does not know vLLM's extensions (`ignore_eos`, `min_tokens`) refuses a request that
carries them with a 4xx naming the field (`transformers serve`: 422 "Unexpected fields in the
request: {'ignore_eos'}"; TGI: 422 "unknown field `ignore_eos`"); `refused_extensions` recognises
that, and the client sends the request again without them (lab/remote_client.py).
"""

from __future__ import annotations

import asyncio
import ssl
from typing import Any, Protocol

import openai

from lab.catalogues import say

STREAM_CUT = "was cut after"  # in every message for a stream that ended early (the page names a cause)
EXTENSIONS = ("ignore_eos", "min_tokens")  # vLLM's sampling extensions the lab may send
NOT_A_FIELD = {401, 403, 404, 408, 429}  # refusals about the key, the path, time or rate: not a field


class RemoteError(Exception):
    """A failure talking to the server, in words for the user."""


class HasAddress(Protocol):
    base_url: str
    timeout_s: float


def server_message(exc: openai.APIStatusError, limit: int = 300) -> str:
    """What the server said about its refusal: the message in its error body, in any of the shapes
    servers use; the status's own text when the body says nothing."""
    said = _said(getattr(exc, "body", None)).strip()
    if said.startswith("<"):  # an HTML error page: its markup says nothing a sentence can use
        said = ""
    return short(said or str(exc), limit)


def _said(body: Any) -> str:
    """The message inside an error body: error.message, error (a text), detail (a text or FastAPI's
    list of {msg}), message."""
    if isinstance(body, str):
        return body
    if isinstance(body, list):
        return "; ".join(filter(None, (_said(item) for item in body)))
    if not isinstance(body, dict):
        return ""
    for key in ("error", "detail", "message", "msg"):
        if key in body:
            found = _said(body[key])
            if found:
                return found
    return ""


def refused_extensions(exc: BaseException, sent: list[str]) -> list[str]:
    """The extensions among `sent` that a 4xx refusal names: the server does not accept them."""
    if not isinstance(exc, openai.APIStatusError) or not 400 <= exc.status_code < 500:
        return []
    if exc.status_code in NOT_A_FIELD:
        return []
    said = server_message(exc, limit=2000)
    return [name for name in sent if name in said]


def explain(exc: BaseException, endpoint: HasAddress, chunks: int = 0) -> str:
    """One sentence for each way a request fails."""
    url = endpoint.base_url
    if isinstance(exc, RemoteError):
        return str(exc)
    if isinstance(exc, (asyncio.TimeoutError, openai.APITimeoutError)):
        return f"{url} did not answer within {endpoint.timeout_s:g} s" + (
            f" (it stalled after {chunks_text(chunks)})." if chunks else "."
        )
    if isinstance(exc, openai.AuthenticationError):
        return f"{url} refused the request (401): check the API key."
    if isinstance(exc, openai.PermissionDeniedError):
        return f"{url} refused the request (403): this key may not use this model."
    if isinstance(exc, openai.NotFoundError):
        return (
            f"{url} answered 404 Not Found: is this an OpenAI-compatible server, and is the model name "
            f"right? ({server_message(exc)})"
        )
    if isinstance(exc, openai.APIStatusError):
        return f"{url} answered {exc.status_code}: {server_message(exc)}"
    if isinstance(exc, openai.APIResponseValidationError) or isinstance(exc, ValueError):
        return f"{url} sent something that is not OpenAI-compatible JSON: {short(exc)}"
    if isinstance(exc, openai.APIConnectionError):
        cause = exc.__cause__ or exc
        tls = _tls_failure(exc)
        if tls is not None and not chunks:
            return tls.replace("{url}", url)
        if chunks:
            return f"The stream from {url} {STREAM_CUT} {chunks_text(chunks)} ({type(cause).__name__})."
        return f"Cannot connect to {url}: {short(cause)}"
    return f"{type(exc).__name__} while talking to {url}: {short(exc)}"


def chunks_text(n: int) -> str:
    return say("remote_chunks", n=n)  # English, as every error of this module (and of the servers)


def _tls_failure(exc: BaseException) -> str | None:
    """A sentence for a failed TLS handshake found anywhere in the exception's causes ({url} left open)."""
    seen = exc
    while seen is not None:
        text = str(seen)
        if isinstance(seen, ssl.SSLCertVerificationError) or "CERTIFICATE_VERIFY_FAILED" in text:
            return (
                f"The TLS certificate of {{url}} did not verify ({short(seen, 160)}): a self-signed or "
                f"private CA certificate needs SSL_CERT_FILE pointing at that CA."
            )
        if isinstance(seen, ssl.SSLError) or "WRONG_VERSION_NUMBER" in text or "SSL" in type(seen).__name__:
            return (
                f"The TLS handshake with {{url}} failed ({short(seen, 160)}): does the server speak plain "
                f"HTTP? Then write http:// instead of https://."
            )
        seen = seen.__cause__ or seen.__context__
    return None


def short(exc: BaseException | str, limit: int = 300) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if len(text) <= limit else text[:limit] + "…"
