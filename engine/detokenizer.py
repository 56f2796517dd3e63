"""Incremental detokenisation: the text each new token adds, holding back partial characters.

Byte-level BPE splits one Chinese character over several tokens (「今天天气」 is 9 tokens in
SmolLM2's tokenizer); a token that ends mid-character adds no text until the character completes.
"""
from __future__ import annotations


class Detokenizer:
    def __init__(self, tokenizer):
        self.tokenizer = tokenizer
        self.ids: list[int] = []
        self.emitted = 0  # characters of the decoded text already handed out

    def add(self, token_id: int) -> str:
        self.ids.append(token_id)
        text = self.tokenizer.decode(self.ids, skip_special_tokens=False)
        if text.endswith("\ufffd"):  # an incomplete UTF-8 sequence: wait for its next bytes
            return ""
        new = text[self.emitted:]
        self.emitted = len(text)
        return new


def token_piece(tokenizer, token_id: int) -> str:
    """A token on its own, for chips: its text, or its bytes when it is part of a character."""
    text = tokenizer.decode([token_id], skip_special_tokens=False)
    if "\ufffd" in text:
        return tokenizer.convert_ids_to_tokens(token_id)
    return text
