"""The serving lab's workloads, without Streamlit: the three presets of lab.workload with the
numbers a user can change (sized small by default so that a run takes seconds on a CPU, the
benchmark's sizes one click away), a hand-made table of requests, and the checks that turn bad
input into a readable ValueError before anything runs.
"""

from __future__ import annotations

from dataclasses import dataclass

from app_pages.serving import keys
from engine.errors import LabError
from lab.workload import RequestSpec, preset, text_tokens

PRESETS = ("head-of-line", "shared-prefix", "random-mix", "custom")
MAX_REQUESTS = 256  # a page run, not a load test: beyond this the charts stop being readable


@dataclass(frozen=True)
class Param:
    """One number of a preset: the keyword of its lab.workload builder, and its two sizes."""

    name: str
    small: float
    full: float
    min_value: float
    max_value: float
    step: float = 1

    @property
    def is_int(self) -> bool:
        return all(float(v).is_integer() for v in (self.small, self.full, self.step))


PARAMS: dict[str, tuple[Param, ...]] = {
    "head-of-line": (
        Param("num_streams", 4, 8, 0, 64),
        Param("long_prompt", 512, 2048, 1, 8192, 64),
        Param("stream_output", 32, 96, 1, 1024, 8),
        Param("long_arrival_s", 0.3, 0.4, 0.0, 30.0, 0.1),
    ),
    "shared-prefix": (
        Param("num_requests", 6, 8, 0, MAX_REQUESTS),
        Param("system_tokens", 256, 256, 1, 4096, 16),
        Param("output", 16, 32, 1, 1024, 8),
        Param("gap_s", 0.15, 0.15, 0.0, 10.0, 0.05),
    ),
    "random-mix": (
        Param("num_requests", 8, 32, 0, MAX_REQUESTS),
        Param("prompt_min", 32, 32, 1, 8192, 16),
        Param("prompt_max", 192, 512, 1, 8192, 16),
        Param("output_min", 8, 16, 1, 1024, 8),
        Param("output_max", 48, 128, 1, 1024, 8),
        Param("rate_per_s", 0.0, 0.0, 0.0, 100.0, 0.5),
        Param("seed", 0, 0, 0, 10_000),
    ),
}

# A hand-made workload to start editing from: two chats, a long prompt arriving late, one more chat.
CUSTOM_ROWS = [
    {"label": "chat A", "arrival_s": 0.0, "prompt_tokens": 48, "output_tokens": 24},
    {"label": "chat B", "arrival_s": 0.0, "prompt_tokens": 64, "output_tokens": 24},
    {"label": "long", "arrival_s": 0.2, "prompt_tokens": 384, "output_tokens": 8},
    {"label": "chat C", "arrival_s": 0.4, "prompt_tokens": 40, "output_tokens": 16},
]


def param_values(preset_name: str, size: str = "small") -> dict[str, float]:
    """{session key: value} of every number of a preset at one size ("small" or "full")."""
    out = {}
    for p in PARAMS[preset_name]:
        value = p.small if size == "small" else p.full
        out[keys.param(preset_name, p.name)] = int(value) if p.is_int else float(value)
    return out


def _num_requests(value: float) -> int:
    if value == 0:
        raise LabError("The workload has no requests: set the number of requests to 1 or more.")
    return _count(value, "The number of requests")


def _count(value: float, what: str, minimum: int = 1) -> int:
    if value is None or value != value or value < minimum or int(value) != value:  # value != value: NaN
        raise LabError(f"{what} must be a whole number of at least {minimum}, got {value}.")
    return int(value)


def build_preset(name: str, tokenizer, values: dict[str, float]) -> list[RequestSpec]:
    """The preset's requests with these numbers ({param name: value}); ValueError on bad numbers."""
    v = dict(values)
    if name == "head-of-line":
        kwargs = dict(
            num_streams=_count(v["num_streams"], "The number of chat streams", 0),
            long_prompt=_count(v["long_prompt"], "The long prompt's length"),
            stream_output=_count(v["stream_output"], "The chats' output length"),
            long_arrival_s=_seconds(v["long_arrival_s"], "The long prompt's arrival"),
        )
    elif name == "shared-prefix":
        kwargs = dict(
            num_requests=_num_requests(v["num_requests"]),
            system_tokens=_count(v["system_tokens"], "The system prompt's length"),
            output=_count(v["output"], "The output length"),
            gap_s=_seconds(v["gap_s"], "The gap"),
        )
    elif name == "random-mix":
        kwargs = dict(
            num_requests=_num_requests(v["num_requests"]),
            prompt_range=_range(v["prompt_min"], v["prompt_max"], "prompt"),
            output_range=_range(v["output_min"], v["output_max"], "output"),
            rate_per_s=_seconds(v["rate_per_s"], "The arrival rate") or None,
            seed=_count(v["seed"], "The seed", 0),
        )
    else:
        raise LabError(f"Unknown workload preset {name!r}.")
    return preset(name, tokenizer, **kwargs)


def _seconds(value: float, what: str) -> float:
    if value is None or value != value or value < 0:
        raise LabError(f"{what} must be zero or more seconds, got {value}.")
    return float(value)


def _range(low: float, high: float, what: str) -> tuple[int, int]:
    lo, hi = _count(low, f"The shortest {what}"), _count(high, f"The longest {what}")
    if lo > hi:
        raise LabError(f"The shortest {what} ({lo} tokens) is longer than the longest ({hi}).")
    return lo, hi


def build_custom(rows: list[dict], tokenizer) -> list[RequestSpec]:
    """Requests from table rows {label, arrival_s, prompt_tokens, output_tokens}; prompts are real
    text cut to length, each starting a little further into the text so they differ."""
    specs = []
    for i, row in enumerate(r for r in rows if any(v is not None and v == v for v in r.values())):  # skip blank rows
        name = str(row.get("label") or f"req {i + 1}").strip() or f"req {i + 1}"
        prompt = _count(row.get("prompt_tokens"), f"Request {name!r}: the prompt length")
        output = _count(row.get("output_tokens"), f"Request {name!r}: the output length")
        arrival = _seconds(row.get("arrival_s"), f"Request {name!r}: the arrival time")
        specs.append(RequestSpec(arrival, text_tokens(tokenizer, prompt, offset=7 * i), output, name))
    return specs


def check_workload(specs: list[RequestSpec], max_len: int) -> None:
    """Every request must fit the model's context; there must be some, and not too many."""
    if not specs:
        raise LabError("The workload has no requests: add at least one.")
    if len(specs) > MAX_REQUESTS:
        raise LabError(f"The workload has {len(specs)} requests; the page runs at most {MAX_REQUESTS}.")
    for s in specs:
        if len(s.prompt_ids) + s.max_new_tokens > max_len:
            raise LabError(
                f"Request {s.label!r}: {len(s.prompt_ids)} prompt + {s.max_new_tokens} output tokens "
                f"exceed this model's context of {max_len} tokens; make it shorter."
            )


def blocks_for(num_tokens: int, block_size: int) -> int:
    return -(-num_tokens // block_size)


def pool_needs(specs: list[RequestSpec], block_size: int) -> tuple[int, int]:
    """Blocks the longest request needs alone, and every request at once at full length."""
    needs = [blocks_for(len(s.prompt_ids) + s.max_new_tokens, block_size) for s in specs]
    return max(needs), sum(needs)
