"""Issue 16.15: the Chinese text said "hidden 576", "(bundled, offline)" and "heads × L × L × bytes" in
English. Formulas and labels in Chinese strings name their quantities in Chinese; tensor shapes in
brackets ([B, heads, T, head_dim], the source's own notation), code spans and placeholders are exempt."""

from __future__ import annotations

import re

import pytest

from tests.text_support import ALL_STRINGS

ENGLISH_QUANTITIES = (
    "batch",
    "bytes",
    "heads",
    "hidden",
    "layers",
    "kv_heads",
    "head_dim",
    "vocab",
    "tokens",
    "bundled",
    "offline",
    "online",
)
# shapes, code, placeholders, link targets, tags, quoted values ('bundled' as typed)
EXEMPT = re.compile(r"\[[^\]]*\]|`[^`]*`|\{[^}]*\}|\([^)]*/[^)]*\)|<[^>]*>|'[^']*'")


def english_words(text: str) -> list[str]:
    bare = EXEMPT.sub(" ", text)
    return [w for w in ENGLISH_QUANTITIES if re.search(rf"(?<![\w_]){w}(?![\w_])", bare)]


@pytest.mark.parametrize("key", sorted(ALL_STRINGS))
def test_chinese_text_names_its_quantities_in_chinese(key):
    zh = ALL_STRINGS[key][1]
    assert not english_words(zh), f"{key}: {zh}"


def test_the_check_finds_what_the_issue_found():
    assert english_words("SmolLM2（1 层，hidden 576）") == ["hidden"]
    assert english_words("公式：heads × L × L × bytes") == ["bytes", "heads"]
    assert english_words("SmolLM2-135M-Instruct (bundled, offline)") == ["bundled", "offline"]
    assert english_words("输入 [batch, 1, hidden]，见 `kv_heads`，{tokens} 个，不是 'bundled'") == []
