"""Prompts of an exact token length, as benchmark tools build them (GuideLLM's synthetic data,
`vllm bench serve --dataset-name random`): real text cut to N tokens by a named tokenizer, each
request numbered and starting at a different place in the text, so that no two share a prefix a
server could serve from its cache. The length is the tokenizer's count of the text alone (no special tokens, no
chat template): a server that adds a BOS token or uses another tokenizer counts differently, and
the remote page shows the server's own count (`usage.prompt_tokens`) beside it."""

from __future__ import annotations

from engine.errors import LabError
from lab.workload import text_tokens

MAX_PROMPT_TOKENS = 32_768
STRIDE = 7  # tokens between two requests' starting places in the text


def count(tokenizer, text: str) -> int:
    return len(tokenizer(text, add_special_tokens=False).input_ids)


def exact_prompt(tokenizer, length: int, offset: int = 0, lead: str = "", source: list[int] | None = None) -> str:
    """`lead`, then text from `offset` tokens into the corpus (`source`: its tokens, long enough, when
    the caller has them), exactly `length` tokens by `tokenizer` in all. Decoding N tokens and
    encoding the text again can merge or split tokens where the cut falls, so the text is trimmed or
    extended until it counts N; a LabError if it never does."""
    if not 1 <= length <= MAX_PROMPT_TOKENS:
        raise LabError(f"A synthetic prompt has 1-{MAX_PROMPT_TOKENS:,} tokens, not {length}.")
    if source is None:
        source, start = text_tokens(tokenizer, 2 * length + 64, offset), 0
    else:
        start = offset
    take = length
    for _ in range(12):
        text = lead + tokenizer.decode(source[start : start + max(1, take)], skip_special_tokens=True).lstrip()
        n = count(tokenizer, text)
        if n > length:  # merged the other way: keep the first `length` of the re-encoding
            text = tokenizer.decode(tokenizer(text, add_special_tokens=False).input_ids[:length])
            n = count(tokenizer, text)
        if n == length:
            return text
        take += length - n  # a few tokens short or long: cut elsewhere
    raise LabError(f"Could not cut a prompt of exactly {length} tokens with this tokenizer.")


def exact_prompts(tokenizer, length: int, n: int, first: int = 0) -> list[str]:
    """`n` prompts of exactly `length` tokens, numbered from `first` + 1 ("(1) ", "(2) ", …; cut short
    in the shortest), each one's text starting STRIDE tokens after the one before."""
    if not 1 <= n <= 10_000:
        raise LabError(f"Synthetic prompts: 1-10,000 of them, not {n}.")
    source = text_tokens(tokenizer, 2 * length + 64 + STRIDE * (first + n))  # the corpus tokenized once
    return [exact_prompt(tokenizer, length, STRIDE * i, f"({i + 1}) ", source) for i in range(first, first + n)]
