"""Whether the browser session that started some work is still there, asked from any thread: work
that outlives its script (the playground's second pass) stops taking its turn on a public server
once its visitor has gone. Streamlit keeps a closed browser's session for a while in case it comes
back; it is no longer active meanwhile, and that is what counts here."""

from __future__ import annotations

from collections.abc import Callable

from streamlit.runtime import Runtime
from streamlit.runtime.scriptrunner import get_script_run_ctx


def this_session_alive() -> Callable[[], bool]:
    """A check for the session running this script; outside a served app (no runtime, no session),
    one that always says yes."""
    ctx = get_script_run_ctx()
    if ctx is None or not Runtime.exists():
        return lambda: True
    runtime, session_id = Runtime.instance(), ctx.session_id
    return lambda: runtime.is_active_session(session_id)
