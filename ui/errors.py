"""Errors shown in the page, never as tracebacks: a LabError is written for the user and shown as
it is; anything else is a bug, logged with its traceback under a short id that the page shows."""

from __future__ import annotations

import logging
import uuid
from collections.abc import Iterator
from contextlib import contextmanager

import streamlit as st

from engine.errors import LabError
from ui.i18n import t
from ui.public import CappedError
from ui.text import md_escape

log = logging.getLogger("pdlab.ui")


def error_message(exc: BaseException, lang: str) -> str:
    """A short message for the page; the traceback of anything unexpected goes to the server log."""
    if isinstance(exc, CappedError):
        return t(exc.key, lang, **exc.values)
    if isinstance(exc, LabError):
        return t("err_input", lang, msg=str(exc))
    error_id = uuid.uuid4().hex[:8]
    log.error("internal error %s in the app", error_id, exc_info=exc)
    return t("err_internal", lang, kind=type(exc).__name__, id=error_id)


def show_message(message: str) -> None:
    st.error(md_escape(message), icon=":material/error:")  # messages quote user input: keep it literal


def show_error(exc: BaseException, lang: str) -> str:
    message = error_message(exc, lang)
    show_message(message)
    return message


@contextmanager
def shown_errors(lang: str) -> Iterator[None]:
    """with shown_errors(lang): ...  Streamlit's own control flow (reruns, stop) passes through:
    it derives from BaseException, not Exception."""
    try:
        yield
    except Exception as exc:  # noqa: BLE001 - the point is that nothing reaches the user raw
        show_error(exc, lang)
