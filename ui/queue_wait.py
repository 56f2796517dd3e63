"""Taking turns on a public server: every page's run waits for its place in one queue and shows it.

    with take_turn(lang) as go:
        if go:
            ...run...

Off public mode this yields True at once and shows nothing. On it: a client over the per-minute
limit gets a message (go is False): the limit counts the client (its address, ui/public_client.py)
across all its tabs and sessions, so a new tab starts no more; otherwise the run joins the queue and, while others are ahead,
the page shows "N runs ahead of you" with a Cancel button. Cancel, a Stop, or a closed browser all
reach this script as Streamlit's own stop at its next page update (the wait redraws twice a second),
and the finally clause gives the place up, so the next visitor goes at once.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager

import streamlit as st

from ui.errors import show_message
from ui.i18n import t
from ui.models import get_registry
from ui.public import client_limits, public_settings
from ui.public_client import this_client

CANCEL_KEY = "turn_cancel"
POLL_S = 0.5


@contextmanager
def take_turn(lang: str, slot=None) -> Iterator[bool]:
    """slot: where the queue shows (the run's own place on the page); default: here."""
    public = public_settings()
    if not public.enabled:
        yield True
        return
    wait_s = client_limits().try_start(this_client())  # counted here: a run that waits has started
    if wait_s > 0:
        show_message(t("queue_rate_limited", lang, n=public.runs_per_minute, s=wait_s))
        yield False
        return
    queue = get_registry().run_queue(public.max_active_runs)
    ticket, since = queue.join(), time.monotonic()
    try:
        box = slot if slot is not None else st.empty()
        ahead = queue.wait(ticket, 0)
        if ahead:
            with box.container(border=True):
                line = st.empty()
                st.button(t("queue_cancel", lang), key=CANCEL_KEY, icon=":material/cancel:")
            while ahead:  # each redraw is where Streamlit stops a cancelled or abandoned script
                line.info(t("queue_ahead", lang, n=ahead, s=time.monotonic() - since), icon=":material/hourglass_top:")
                ahead = queue.wait(ticket, POLL_S)
        box.empty()
        yield True
    finally:
        queue.leave(ticket)
