"""The prefill rate last measured on this server, per model: while a prefill runs (one step, nothing to
redraw until it ends) the live view says how long it should take at that rate."""

from __future__ import annotations

from ui.run_state import RunResult

MIN_TOKENS = 16  # a shorter prefill is mostly fixed costs: its rate says little about a long one
_RATES: dict[tuple, float] = {}  # what sets the rate (model, format, device, attention) -> tokens a second


def _key(result: RunResult) -> tuple:
    m = result.model
    return m.name, m.dtype, m.weight_bytes, m.device, result.settings.attention


def remember(result: RunResult) -> None:
    """Keep the rate of the run's first step when it was a whole prefill of enough tokens."""
    first = result.steps[0] if result.steps else None
    if first is not None and first.phase == "prefill" and first.num_tokens >= MIN_TOKENS and first.ms > 0:
        _RATES[_key(result)] = first.num_tokens / (first.ms / 1e3)


def expected_s(result: RunResult) -> tuple[float, float] | None:
    """(tokens per second, seconds) the run's prefill should take at the last rate measured, or None."""
    rate = _RATES.get(_key(result))
    return None if rate is None else (rate, result.num_prompt_tokens / rate)
