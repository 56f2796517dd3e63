"""UI text in the language picked in the sidebar, from the app's gettext catalogues (lab/catalogues.py,
which says how they are laid out and why their msgids are keys).

    t("lang_label")                       -> "Language" or "语言", in the session's language
    t("live_status", lang, step=3, ...)   -> the message filled in with str.format
    t("queue_ahead", n=2, s=4.0)          -> a plural: the form of the language's rule for n

Here is only what needs the session: the language it picked, and the `t` of each page. A page's
`t` (`page_translator("<page folder>")`, in app_pages/<page>/strings.py) looks in the page's own
context first, then in the shared one. A missing key is a KeyError; a page key that is also a shared
one is refused when the page is imported (the page would show the other text); tests check that every
message has every language.
"""

from __future__ import annotations

from collections.abc import Callable

from lab.catalogues import SHARED, SOURCE, catalogues, keys, say

Translator = Callable[..., str]


def current_lang() -> str:
    """The language chosen in the sidebar (English outside a Streamlit session, or for a language
    whose catalogue is gone)."""
    try:
        import streamlit as st

        lang = st.session_state.get("lang", SOURCE)
    except Exception:  # noqa: BLE001 - no session (plain Python, unit tests): English
        return SOURCE
    return lang if lang in catalogues() else SOURCE


def t(key: str, lang: str | None = None, /, **values) -> str:
    """A shared message (the frame's, the kit's, a verdict's)."""
    return say(key, lang or current_lang(), SHARED, **values)


def page_translator(page: str) -> Translator:
    """The `t` of one page: the messages of its context (its folder's name) first, then the shared ones."""
    if not keys(page):
        raise RuntimeError(f"No messages in context {page!r}: is the page's catalogue context named so?")
    clash = sorted(keys(page) & keys(SHARED))
    if clash:
        raise RuntimeError(f"Page strings repeat shared keys: {', '.join(clash)}.")

    def page_t(key: str, lang: str | None = None, /, **values) -> str:
        return say(key, lang or current_lang(), page if key in keys(page) else SHARED, **values)

    return page_t
