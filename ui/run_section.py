"""A page's run under an st.status box: the work draws its own progress in the box, an error is shown
in the page (never a traceback), and the result is kept in st.session_state. The page's words and
keys come in as arguments, so each page keeps its own.

    run_with_progress(measure, lang, running=..., failed=..., done=..., keep=keys.RESULT)

Two shapes of run:
- a run that ends: the box collapses to its done label, or to its failed label with the error below;
- a stoppable run (stop_key): the box, a Stop button and the progress share one slot, cleared when the
  run ends (the page's own banner then says how it went). Stop reruns the script, which ends the work
  there: what the work kept in session state as it went stays, and nothing else is kept.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

import streamlit as st

from ui.errors import show_error
from ui.i18n import t

if TYPE_CHECKING:
    from streamlit.elements.lib.mutable_status_container import StatusContainer

T = TypeVar("T")


def run_with_progress(
    work: Callable[[StatusContainer], T],
    lang: str,
    *,
    running: str,
    failed: str,
    done: str | Callable[[T], str] | None = None,
    keep: str | None = None,
    stop_key: str | None = None,
) -> T | None:
    """work(box) under a status box labelled `running`; its result, also put in st.session_state[keep]
    when keep is given. On an exception the box says `failed`, the error shows below it, and None comes
    back. done: the finished box's label (a string, or one made from the result); stop_key: a stoppable
    run, with a Stop button under that widget key."""
    if stop_key is not None:
        return _stoppable(work, lang, running, failed, keep, stop_key)
    box = st.status(running, expanded=True)
    try:
        result = work(box)
    except Exception as exc:  # noqa: BLE001 - a message in the page, never a traceback
        box.update(label=failed, state="error", expanded=False)
        show_error(exc, lang)
        return None
    if keep is not None:
        st.session_state[keep] = result
    label = running if done is None else done(result) if callable(done) else done
    box.update(label=label, state="complete", expanded=False)
    return result


def _stoppable(
    work: Callable[[StatusContainer], T], lang: str, running: str, failed: str, keep: str | None, stop_key: str
) -> T | None:
    slot = st.empty()
    with slot.container(), st.status(running, expanded=True) as box:
        st.button(t("stop", lang), key=stop_key, icon=":material/stop_circle:")
        try:
            result = work(box)
        except Exception as exc:  # noqa: BLE001 - a message in the page, never a traceback
            box.update(label=failed, state="error")
            show_error(exc, lang)
            return None
    if keep is not None:
        st.session_state[keep] = result
    slot.empty()
    return result
