"""UI text in English and Simplified Chinese, from one strings table every page uses.

    t("run")                    -> "Run" or "运行", in the language picked in the sidebar
    t("live_status", lang, step=3, ...)  -> the template filled with str.format

Tables live in ui/strings_*.py as {key: (english, chinese)}; a missing key is a bug (KeyError),
and a test checks that every key has both languages.
"""
from __future__ import annotations

from ui.strings_common import STRINGS as _COMMON
from ui.strings_compare import STRINGS as _COMPARE
from ui.strings_complexity import STRINGS as _COMPLEXITY
from ui.strings_memory import STRINGS as _MEMORY
from ui.strings_playground import STRINGS as _PLAYGROUND
from ui.strings_roofline import STRINGS as _ROOFLINE
from ui.strings_serving import STRINGS as _SERVING
from ui.strings_share import STRINGS as _SHARE
from ui.strings_sweeps import STRINGS as _SWEEPS
from ui.strings_claims import STRINGS as _CLAIMS
from ui.strings_claims_why import STRINGS as _CLAIMS_WHY

LANGS = {"en": "English", "zh": "简体中文"}
STRINGS: dict[str, tuple[str, str]] = {**_COMMON, **_PLAYGROUND, **_MEMORY, **_COMPLEXITY, **_SERVING,
                                   **_COMPARE, **_SHARE, **_ROOFLINE, **_SWEEPS, **_CLAIMS, **_CLAIMS_WHY}
_INDEX = {"en": 0, "zh": 1}


def current_lang() -> str:
    """The language chosen in the sidebar ('en' outside a Streamlit session)."""
    try:
        import streamlit as st
        lang = st.session_state.get("lang", "en")
    except Exception:  # noqa: BLE001 - no session (plain Python, unit tests): English
        return "en"
    return lang if lang in LANGS else "en"


def t(key: str, lang: str | None = None, **values) -> str:
    text = STRINGS[key][_INDEX[lang or current_lang()]]
    return text.format(**values) if values else text
