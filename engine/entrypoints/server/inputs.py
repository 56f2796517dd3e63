"""A request body as the engine takes it: its prompt's token ids and its sampling parameters. Text
is checked before it is tokenised (valid UTF-8, no longer than the context could hold), and
tokenising and the chat template run in a worker thread, so no request stalls another. A value the
engine refuses is a 400 in the engine's own words."""

from __future__ import annotations

import asyncio

from jinja2 import TemplateError

from engine.core.llm_engine import check_utf8
from engine.entrypoints.server.errors import ApiError
from engine.entrypoints.server.protocol import ChatRequest, CompletionRequest
from engine.entrypoints.server.state import ServerState
from engine.errors import LabError
from engine.sampling_params import SamplingParams

COMPLETION_DEFAULT_MAX_TOKENS = 16  # OpenAI's default for /v1/completions


async def completion_input(server: ServerState, body: CompletionRequest) -> tuple[list[int], SamplingParams]:
    body.check(server.name)
    if isinstance(body.prompt, list):
        ids = list(body.prompt)
    else:
        text_length(server, body.prompt, "The prompt", "prompt")
        ids = await asyncio.to_thread(refusing(server.engine.encode), body.prompt)
    return ids, refusing(body.sampling)(COMPLETION_DEFAULT_MAX_TOKENS)


async def chat_input(server: ServerState, body: ChatRequest) -> tuple[list[int], SamplingParams]:
    body.check(server.name)
    messages = [m.as_template_input(i) for i, m in enumerate(body.messages)]
    for i, m in enumerate(messages):
        text_length(server, m["content"], f"messages[{i}].content", f"messages[{i}].content")
    ids = await asyncio.to_thread(refusing(chat_ids), server.tokenizer, messages)
    body.max_tokens = body.max_tokens or body.max_completion_tokens
    return ids, refusing(body.sampling)(max(1, server.engine.max_model_len - len(ids)))


def text_length(server: ServerState, text: str, what: str, param: str) -> None:
    try:
        check_utf8(text, what)
    except LabError as e:
        raise ApiError(str(e), 400, param) from None
    max_chars = server.max_prompt_chars
    if len(text) > max_chars:
        raise ApiError(
            f"{what} has {len(text):,} characters; this server takes at most {max_chars:,} (its context is "
            f"{server.engine.max_model_len:,} tokens), so it was not tokenised.",
            400,
            param,
        )


def refusing(fn):
    """fn, with the engine's ValueError (a bad request, in its own words) raised as a 400."""

    def call(*args):
        try:
            return fn(*args)
        except LabError as e:
            raise ApiError(str(e)) from None

    return call


def chat_ids(tokenizer, messages: list[dict]) -> list[int]:
    if not getattr(tokenizer, "chat_template", None):
        raise LabError("This model has no chat template: use /v1/completions.")
    try:
        text = tokenizer.apply_chat_template(messages, add_generation_prompt=True, tokenize=False)
    except TemplateError as e:  # the model's template refuses these messages (its raise_exception), or broke
        raise LabError(f"The model's chat template failed on these messages ({type(e).__name__}: {e}).") from None
    return tokenizer(text, add_special_tokens=False).input_ids
