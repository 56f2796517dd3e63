"""ui/run_section.py, the one run section every measuring page uses: a finished run keeps its result
under the page's key and labels its box with the page's words; a failed one says so in the box, shows
the error as a message and keeps nothing; a stoppable run has its Stop button and clears its slot."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from tests.app_helpers import errors


def _section_script():
    import streamlit as st

    from engine.errors import LabError
    from ui.run_section import run_with_progress

    def work(box):
        bar = box.progress(0.0, text="starting")
        if st.session_state["fail"]:
            raise LabError("L = 9 is too long.")
        bar.progress(1.0, text="all done")
        return 42

    stop_key = "stop_here" if st.session_state["stoppable"] else None
    st.session_state["returned"] = run_with_progress(
        work, "en", running="Running", failed="It failed", done=lambda n: f"Got {n}", keep="result", stop_key=stop_key
    )


def _run(fail: bool, stoppable: bool) -> AppTest:
    at = AppTest.from_function(_section_script)
    at.session_state["fail"], at.session_state["stoppable"] = fail, stoppable
    at = at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_a_finished_run_keeps_its_result_and_says_done():
    at = _run(fail=False, stoppable=False)
    assert at.session_state["result"] == 42 and at.session_state["returned"] == 42
    [box] = at.status
    assert (box.label, box.state) == ("Got 42", "complete") and not errors(at)


@pytest.mark.parametrize("stoppable", [False, True], ids=["ends", "stoppable"])
def test_a_failed_run_shows_why_and_keeps_nothing(stoppable):
    at = _run(fail=True, stoppable=stoppable)
    assert "result" not in at.session_state and at.session_state["returned"] is None
    [box] = at.status
    assert (box.label, box.state) == ("It failed", "error")
    assert any("L = 9 is too long." in e for e in errors(at))


def test_a_stoppable_run_has_its_stop_button_and_clears_its_slot():
    at = _run(fail=False, stoppable=True)
    assert at.session_state["result"] == 42
    assert not at.status and not at.button  # the slot was emptied: the page's banner says the rest
    at = _run(fail=True, stoppable=True)
    assert [b.label for b in at.button] == ["Stop"] and at.button[0].key == "stop_here"
