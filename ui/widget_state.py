"""Widget values that outlive a visit to another page and a switch of language or model.

Two Streamlit behaviours would otherwise lose a user's settings:

- A page's widget values are dropped when the user opens another page. Every settings widget
  passes `persist_state=KEEP`, so its value waits in the session until the page is drawn again.
- The browser keeps a radio's, selectbox's, select slider's or segmented control's choice as the
  label it shows. When the labels change (a new language, or "SmolLM2 (loaded)" after the sidebar
  loads another model), the browser holds a label that is no longer an option: it shows nothing
  selected, and its next report resets the widget to its default. `resend_changed_labels()`, called
  once by app.py before the page runs, hands each such widget its value again, which makes
  Streamlit send it to the browser in the new labels. Which widgets those are, each page's
  keys.py says (TRANSLATED), and ui/replay.py for the replay's; app_pages.translated_widgets()
  gathers them for app.py.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import streamlit as st

KEEP = "session"  # persist_state for every settings widget: kept across page visits

LABELS_SEEN = "labels_context_seen"  # the (language, model) the browser's labels were last drawn in


def so_far(key: str, n: int) -> str:
    """A chart's key in the n-th drawing made while its sweep runs (each drawing needs its own)."""
    return f"{key}_so_far_{n}"


def seed(defaults: dict[str, Any]) -> None:
    """Give widgets their first value through session state, once per session (a widget that gets
    both a `value=` and a state value makes Streamlit warn, and a kept value must win)."""
    for key, value in defaults.items():
        st.session_state.setdefault(key, value)


def resend_changed_labels(lang: str, model: str, translated: Iterable[str]) -> bool:
    """If the labels changed since the last run, re-assign each translated widget its value (before
    the widget is drawn, so it is still read with the old labels); True if anything was re-sent."""
    s = st.session_state
    context = (lang, model)
    changed = LABELS_SEEN in s and s[LABELS_SEEN] != context
    s[LABELS_SEEN] = context
    if not changed:
        return False
    for key in translated:
        if key in s:
            s[key] = s[key]
    return True
