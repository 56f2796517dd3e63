"""Making model and user text safe to show: in HTML, in Markdown, and on a chip."""
from __future__ import annotations

import html
import re

_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~&$:])")


def visible(text: str) -> str:
    """Whitespace that would vanish made visible; nothing else changed."""
    return text.replace("\r", "␍").replace("\n", "↵").replace("\t", "⇥") if text else "∅"


def html_text(text: str) -> str:
    """Plain text for an HTML context: every markup character escaped."""
    return html.escape(text, quote=True)


def md_escape(text: str) -> str:
    """Plain text for a Markdown context: backslash-escape every character Markdown (or HTML
    inside it) would interpret, so `<img ...>` or `[x](...)` stays literal."""
    return _MD_SPECIAL.sub(r"\\\1", text)


def md_literal(text: str) -> str:
    """A token or name for Markdown: visible whitespace, then escaped."""
    return md_escape(visible(text))


def quoted(text: str) -> str:
    """A token for a table cell: visible whitespace, in corner quotes so leading spaces show."""
    return f"「{visible(text)}」"
