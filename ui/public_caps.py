"""Count widgets under a public server's caps: the widget's own maximum comes down to the cap, its
help says so, and a value kept in session state above it (an earlier visit, a preset's full size)
comes back inside before the widget is drawn. Off public mode: the widget's own bounds, unchanged.

    max_value=capped("max_repeats", 10, keys.REPEATS), help=cap_help("max_repeats", lang, t("..."))

A prompt box: `max_chars=prompt_cap()` stops typing at the cap, and `check_prompt(text)` refuses a
longer value set another way (a link, a preset, session state) before anything tokenises it.
"""

from __future__ import annotations

import streamlit as st

from ui.i18n import t
from ui.public import CappedError, public_settings


def cap_of(kind: str) -> int | None:
    """The public server's cap of this kind (a PublicSettings field), or None when public mode is off."""
    public = public_settings()
    return getattr(public, kind) if public.enabled else None


def capped(kind: str, hi, key: str | None = None, lo=1):
    """`hi`, lowered to the cap (never below the widget's minimum `lo`); a value in
    st.session_state[key] above it is lowered too."""
    cap = cap_of(kind)
    if cap is None or cap >= hi:
        return hi
    cap = max(cap, lo)
    if key is not None and isinstance(st.session_state.get(key), (int, float)) and st.session_state[key] > cap:
        st.session_state[key] = type(st.session_state[key])(cap)
    return type(hi)(cap)


def cap_help(kind: str, lang: str, text: str | None = None, lo=1) -> str | None:
    """The widget's help, with the cap and its reason added on a public server (the cap as `capped`
    applies it: never below the widget's minimum `lo`)."""
    cap = cap_of(kind)
    if cap is None:
        return text
    note = t("public_capped_help", lang, cap=max(cap, lo))
    return f"{text}\n\n{note}" if text else note


def check_count(kind: str, n: int, what: str) -> None:
    """Refuse a run with more than the cap of something counted only when the run is built (requests of
    a workload table): CappedError naming what and the cap."""
    _refuse_over(kind, n, what, "public_count_capped")


def check_size(kind: str, n: int, what: str) -> None:
    """Refuse a run whose largest typed length is over the cap (a list of lengths has no widget maximum)."""
    _refuse_over(kind, n, what, "public_size_capped")


def _refuse_over(kind: str, n: int, what: str, text_key: str) -> None:
    cap = cap_of(kind)
    if cap is not None and n > cap:
        raise CappedError(text_key, what=what, n=n, cap=cap)


def prompt_cap() -> int | None:
    """A prompt box's max_chars: the public server's max_prompt_chars, or None (no cap) off it."""
    return cap_of("max_prompt_chars")


def check_prompt(text: str) -> None:
    """Refuse a prompt over the public server's character cap (CappedError with its length and the cap)."""
    cap = prompt_cap()
    if cap is not None and len(text) > cap:
        raise CappedError("public_prompt_capped", n=len(text), cap=cap)
