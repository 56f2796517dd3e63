"""Widget values that outlive a visit to another page and a switch of language or model.

Two Streamlit behaviours would otherwise lose a user's settings:

- A page's widget values are dropped when the user opens another page. Every settings widget
  passes `persist_state=KEEP`, so its value waits in the session until the page is drawn again.
- The browser keeps a radio's, selectbox's, select slider's or segmented control's choice as the
  label it shows. When the labels change (a new language, or "SmolLM2 (loaded)" after the sidebar
  loads another model), the browser holds a label that is no longer an option: it shows nothing
  selected, and its next report resets the widget to its default. `resend_changed_labels()`, called
  once by app.py before the page runs, hands each such widget its value again, which makes
  Streamlit send it to the browser in the new labels.
"""
from __future__ import annotations

from typing import Any

import streamlit as st

KEEP = "session"  # persist_state for every settings widget: kept across page visits

# Every widget whose option labels depend on the language or on the loaded model, by key. A new
# widget with a translated format_func belongs here (tests/test_ui_widget_state.py checks that each
# key is drawn by some page).
TRANSLATED_WIDGETS: tuple[str, ...] = (
    "pg_speed", "pg_replay_step",                                        # playground: replay
    "mem_fit_model", "mem_heat_mode",                                    # memory lab
    "cx_cross_model", "cx_exp_models", "cx_we_model", "cx_we_count",     # complexity lab
    "sv_preset", "sv_policy_a", "sv_policy_b", "sv_tl_run", "sv_bk_run", "sv_mx_group",  # serving lab
)
LABELS_SEEN = "labels_context_seen"  # the (language, model) the browser's labels were last drawn in


def seed(defaults: dict[str, Any]) -> None:
    """Give widgets their first value through session state, once per session (a widget that gets
    both a `value=` and a state value makes Streamlit warn, and a kept value must win)."""
    for key, value in defaults.items():
        st.session_state.setdefault(key, value)


def resend_changed_labels(lang: str, model: str) -> bool:
    """If the labels changed since the last run, re-assign each translated widget its value (before
    the widget is drawn, so it is still read with the old labels); True if anything was re-sent."""
    s = st.session_state
    context = (lang, model)
    changed = LABELS_SEEN in s and s[LABELS_SEEN] != context
    s[LABELS_SEEN] = context
    if not changed:
        return False
    for key in TRANSLATED_WIDGETS:
        if key in s:
            s[key] = s[key]
    return True
