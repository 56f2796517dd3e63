"""The second pass: memory (and captured attention) measured on a replay of a timed run.

An instrument must not bend what it measures. The memory probe sees every op's output (a Python
hook per op) and costs ~20 ms per decode step on a 2-core CPU, more than a third of the step; the
attention capture copies probabilities out. So a run is timed bare, and this pass runs the same
request again with its outputs forced to the tokens the timed run produced, the probe (and the
capture) on. Same prompt, same settings, same tokens: the same schedule, so step i of the replay
is step i of the timed run, and its memory readings are the ones an instrumented run would give.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

from engine.core.llm_engine import Engine, EngineConfig, EngineEvent
from engine.observe.trace import StepRecord
from engine.sampling_params import SamplingParams

MEMORY_PASS = "replay"  # what the trace says of where its memory numbers come from
PROBE_STEP_COST = 1.5  # a step of the memory pass beside a timed one: the probe runs Python on every op


def timed_config(config: EngineConfig) -> EngineConfig:
    """The settings of the timed run: no probe, no capture (the trace's shapes and counts stay)."""
    return replace(config, probe_memory=False, capture_attention=False)


def replay_engine(
    engine: Engine,
    prompt_ids: list[int],
    output_ids: list[int],
    params: SamplingParams,
    config: EngineConfig,
    drafts: list[list[int]] | None = None,
) -> Engine:
    """A fresh engine on the same weights with `config` (probe and capture as wanted), its one
    request forced to produce `output_ids` after `prompt_ids` (and, with speculative decoding, to
    verify the timed run's `drafts`, one per decode step: the same chunks, so the same steps)."""
    replay = Engine(engine.model, engine.tokenizer, replace(config, trace=True), name=engine.name)
    replay.add_request(list(prompt_ids), params, forced_output=list(output_ids), forced_drafts=drafts)
    return replay


def decode_drafts(steps: list[StepRecord]) -> list[list[int]]:
    """The draft of each decode step of a one-request run, in order (empty where it drafted nothing)."""
    return [list(s.seqs[0].draft) for s in steps if s.seqs and s.seqs[0].phase == "decode"]


def replay_steps(replay: Engine) -> Iterator[EngineEvent]:
    """The replay's steps, one at a time (the caller shows progress and holds the model lock)."""
    yield from replay.stream()


def copy_memory(timed: list[StepRecord], replayed: list[StepRecord]) -> None:
    """Give each timed step the replay's memory reading for the same step (same phase, same tokens)."""
    if len(timed) != len(replayed):
        raise RuntimeError(f"The replay took {len(replayed)} steps, the timed run {len(timed)}: they cannot be paired.")
    for mine, theirs in zip(timed, replayed):
        if (mine.phase, mine.num_tokens) != (theirs.phase, theirs.num_tokens):
            raise RuntimeError(f"Step {mine.step} differs between the timed run and its replay.")
        mine.peak_bytes, mine.peak_by_label = theirs.peak_bytes, theirs.peak_by_label
