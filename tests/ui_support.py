"""Helpers for the UI tests: real runs of a tiny model through the same code path the page uses."""
from __future__ import annotations

from ui.run_driver import measure_pass, run_steps, start_run
from ui.run_state import RunResult, RunSettings


def run_to_end(bundle, **settings) -> RunResult:
    """Run one prompt to completion, as the page does (without Streamlit)."""
    engine, result = start_run(bundle, RunSettings(**settings))
    for _ in run_steps(engine, result):
        pass
    for _ in measure_pass(engine, result):
        pass
    return result
