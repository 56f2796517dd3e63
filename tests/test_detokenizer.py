"""The incremental detokeniser: the streamed pieces add up to `tokenizer.decode` of the whole output,
partial UTF-8 characters are held back, and both paths (DecodeStream for fast tokenizers, the windowed
decode for slow ones) agree. Its cost per token is a bench figure (bench/decode.py), not a test."""

from __future__ import annotations

import pytest

from engine.core.detokenizer import Detokenizer

MIXED = (
    "Hello 世界! 今天天气很好 🌞🚀 café naïve — 日本語のテキスト, Ελληνικά, and code: def f(x): return x**2\n"
    "「今天天气」는 한국어로 오늘 날씨. Ünïcödé ∑∫√ 👩‍👩‍👧‍👦 emoji families.\n"
)


def mixed_ids(tokenizer, n: int) -> list[int]:
    """n tokens of mixed scripts that end on a whole character."""
    ids = tokenizer(MIXED * (n // 40 + 2)).input_ids[:n]
    while tokenizer.decode(ids).endswith("\ufffd"):
        ids = ids[:-1]
    return ids


@pytest.mark.parametrize("fast", [True, False])
def test_pieces_add_up_to_the_whole_decode(bundled, fast):
    tok = bundled.tokenizer
    ids = mixed_ids(tok, 2000)
    assert len(ids) > 1900
    d = Detokenizer(tok)
    assert d._fast  # SmolLM2's tokenizer is a fast one: DecodeStream
    d._fast = fast
    pieces = [d.add(i) for i in ids]
    assert "".join(pieces) == tok.decode(ids, skip_special_tokens=False)
    assert not any("\ufffd" in p for p in pieces)


@pytest.mark.parametrize("fast", [True, False])
def test_a_split_character_waits_for_its_last_byte(bundled, fast):
    tok = bundled.tokenizer
    ids = tok("今天天气").input_ids
    assert len(ids) == 9  # byte-level BPE: the source's worked example
    d = Detokenizer(tok)
    d._fast = fast
    pieces = [d.add(i) for i in ids]
    assert "".join(pieces) == "今天天气" and pieces.count("") >= 5
