"""Making model and user text safe to show: in HTML, in Markdown, on a chip, and in a file name."""

from __future__ import annotations

import html
import re
import time

from ui.i18n import t

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


def slug(text: str, most: int = 24) -> str:
    """Letters and digits of any script, the rest as single dashes: "Why is the sky blue?" -> why-is-the-sky-blue."""
    return re.sub(r"[\W_]+", "-", text.lower()).strip("-")[:most].strip("-")


def download_name(*parts: str, ext: str, when: float | None = None) -> str:
    """A download's file name from what it holds and when, so a second download does not take the
    first one's name: ("trace", "SmolLM2-135M", "Why is the sky…")
    -> trace_smollm2-135m_why-is-the-sky_20261201-221503Z.json"""
    stamp = time.strftime("%Y%m%d-%H%M%SZ", time.gmtime(when))  # the server's clock, in UTC
    return "_".join([s for s in map(slug, parts) if s] + [stamp]) + f".{ext}"


def claim_link(claim: str) -> str:
    """Markdown for a claim's number that opens the claims page on it (app_pages/claims reads ?claim=)."""
    return f"[{claim}](/claims?claim={claim})"


def with_eta(what: str, seconds_left: float | None, lang: str) -> str:
    """A progress line with its time estimate, when there is one: "step 3 of 96 · about 25 s left"."""
    return what if seconds_left is None else t("eta_left", lang, what=what, left=fmt_duration(seconds_left, lang))


def fmt_duration(seconds: float, lang: str) -> str:
    """A rough time for an estimate: "40 s", "3 min" (rounded: an estimate is not more precise)."""
    if seconds < 90:
        return t("dur_s", lang, n=max(5, round(seconds / 5) * 5))
    return t("dur_min", lang, n=round(seconds / 60))
