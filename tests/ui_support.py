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


def long_trace(doc: dict, num_steps: int) -> dict:
    """A playground trace file's dict grown to `num_steps` steps: its last decode step (and the token
    it produced) repeated under new step numbers, as a long run would record them."""
    import copy

    doc = copy.deepcopy(doc)
    doc["attention"] = None  # a long run's attention is not what these tests look at
    steps, tokens = doc["steps"], doc["tokens"]
    last_step, last_token = steps[-1], tokens[-1]
    for i in range(1, num_steps - len(steps) + 1):
        steps.append({**last_step, "step": last_step["step"] + i})
        tokens.append(
            {
                **last_token,
                "step": last_step["step"] + i,
                "index": last_token["index"] + i,
                "time": last_token["time"] + 0.01 * i,
            }
        )
    doc["settings"]["max_new_tokens"] = len(tokens)
    return doc
