"""UI text in English and Simplified Chinese.

    t("run")                    -> "Run" or "运行", in the language picked in the sidebar
    t("live_status", lang, step=3, ...)  -> the template filled with str.format

Shared tables live here in ui/ (strings_common.py: the frame; strings_kit.py: the kit several pages
use) and in lab/verdict_texts.py (the verdicts' explanations). Each page keeps its own table in
app_pages/<page>/strings.py, with a `t` made by `page_translator` that looks there first, then here.
A missing key is a bug (KeyError); a page key that is also a shared one is refused at import, and a
test checks that every key has both languages.
"""

from __future__ import annotations

from collections.abc import Callable

from lab.verdict_texts import LANG_INDEX, VERDICT_TEXTS
from ui.strings_common import STRINGS as _COMMON
from ui.strings_kit import STRINGS as _KIT

LANGS = {"en": "English", "zh": "简体中文"}
STRINGS: dict[str, tuple[str, str]] = {**_COMMON, **_KIT, **VERDICT_TEXTS}
Translator = Callable[..., str]


def current_lang() -> str:
    """The language chosen in the sidebar ('en' outside a Streamlit session)."""
    try:
        import streamlit as st

        lang = st.session_state.get("lang", "en")
    except Exception:  # noqa: BLE001 - no session (plain Python, unit tests): English
        return "en"
    return lang if lang in LANGS else "en"


def _say(pair: tuple[str, str], lang: str | None, values: dict) -> str:
    text = pair[LANG_INDEX[lang or current_lang()]]
    return text.format(**values) if values else text


def t(key: str, lang: str | None = None, **values) -> str:
    """A shared string (the frame's, the kit's, a verdict's)."""
    return _say(STRINGS[key], lang, values)


def page_translator(page_strings: dict[str, tuple[str, str]]) -> Translator:
    """The `t` of one page: its own table first, then the shared ones."""
    clash = sorted(page_strings.keys() & STRINGS.keys())
    if clash:
        raise RuntimeError(f"Page strings repeat shared keys: {', '.join(clash)}.")

    def page_t(key: str, lang: str | None = None, **values) -> str:
        return _say(page_strings[key] if key in page_strings else STRINGS[key], lang, values)

    return page_t
