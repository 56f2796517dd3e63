"""Drive one playground run through the engine, step by step, recording into a RunResult.

Two passes (engine/core/memory_pass.py): `run_steps` is the timed run, bare (no memory probe, no
attention capture), so TTFT, TPOT and ITL are the engine's own; `measure_pass` then replays the
same tokens with the probe and the capture on and adds their readings to the same steps.

No Streamlit here: the page consumes the generators and redraws after each step (the playground
runs `measure_pass` in a thread of its own after the timed run: app_pages/playground/second_pass.py). One process-wide
lock serialises engine steps across browser sessions: the weights are shared and read-only, and
on a small CPU two forwards at once only fight over the same cores.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import nullcontext
from dataclasses import replace

import numpy as np

from engine import Engine, EngineConfig, EngineEvent
from engine.core.memory_pass import MEMORY_PASS, copy_memory, decode_drafts, replay_engine, replay_steps, timed_config
from engine.core.speculative import SpeculativeConfig
from engine.observe.trace import StepRecord
from lab.busy import LoadMeter
from ui.public import check_run_work
from ui.run_state import ModelInfo, RunResult, RunSettings, RunStatus
from ui.tokens import piece_for, pieces_for


def start_run(bundle, settings: RunSettings, speculative: SpeculativeConfig | None = None) -> tuple[Engine, RunResult]:
    """A fresh engine with the request added. Bad input raises ValueError with a readable message.
    speculative: a drafter to use instead of the settings' prompt lookup (a loaded draft model)."""
    sampling = settings.sampling()
    config = settings.engine_config()
    if speculative is not None:
        config = replace(config, speculative=speculative)
    engine = Engine(bundle.model, bundle.tokenizer, timed_config(config), name=bundle.name)
    seq = engine.add_request(settings.prompt, sampling, chat=settings.chat)
    check_run_work(len(seq.prompt_token_ids), settings.max_new_tokens, settings.kv_cache)  # public caps; off: nothing
    result = RunResult(
        settings=settings,
        model=ModelInfo.from_bundle(bundle),
        block_size=engine.config.block_size,
        prompt=pieces_for(bundle.tokenizer, seq.prompt_token_ids),
        arrival=seq.arrival_time,
    )
    return engine, result


def run_steps(engine: Engine, result: RunResult, lock: threading.Lock | None = None) -> Iterator[EngineEvent]:
    """Step until the request finishes, recording each step into `result` before yielding it, and the
    machine's load over the whole pass (a stopped run keeps the load of what it measured)."""
    meter = LoadMeter().start()
    try:
        while engine.has_unfinished:
            if lock is None:
                event = engine.step()
            else:
                with lock:
                    event = engine.step()
            record_event(result, event, engine.tokenizer)
            yield event
        result.status = RunStatus.DONE
    finally:
        result.load = meter.stop()


def needs_pass(result: RunResult, config: EngineConfig | None = None) -> bool:
    """Whether the run asks for the second pass: tokens to replay and an instrument to replay them with."""
    config = config or result.settings.engine_config()
    return bool(result.tokens) and (config.probe_memory or config.capture_attention)


def measure_pass(
    engine, result: RunResult, lock: threading.Lock | None = None, config: EngineConfig | None = None
) -> Iterator[tuple[int, int]]:
    """Replay the timed run's tokens with the probe and capture on; yields (steps done, steps to do),
    then puts the memory readings on the timed steps and the captured attention beside them.
    engine: the run's engine, or the bundle it ran on (what a replay needs: model, tokenizer, name);
    config: the instruments to use (default: what the run's settings ask for)."""
    config = config or result.settings.engine_config()
    if not needs_pass(result, config):
        return
    replay = replay_engine(
        engine,
        [p.token_id for p in result.prompt],
        [tok.token_id for tok in result.tokens],
        result.settings.sampling(),
        config,
        decode_drafts(result.steps) if config.speculative else None,
    )
    steps, total = [], len(result.steps)
    events = replay_steps(replay)
    while True:
        with lock if lock is not None else nullcontext():
            event = next(events, None)
        if event is None:
            break
        steps.append(event.step)
        yield len(steps), total
    copy_memory(result.steps, steps)
    result.attention = [_detach_attention(step) for step in steps]
    result.memory_pass = MEMORY_PASS if config.probe_memory else None


def record_event(result: RunResult, event: EngineEvent, tokenizer) -> None:
    if event.step is not None:
        result.attention.append(_detach_attention(event.step))
        result.steps.append(event.step)
        s = event.step.seqs[0] if event.step.seqs else None
        if s is not None and s.accepted < s.drafted:
            result.rejected[event.step.step] = [piece_for(tokenizer, t) for t in s.draft[s.accepted :]]
    for tok in event.tokens:
        result.tokens.append(tok)
        result.pieces.append(piece_for(tokenizer, tok.token_id))
    if event.finished:
        result.request = event.finished[0]


def _detach_attention(step: StepRecord) -> dict[int, np.ndarray]:
    """Move captured probabilities out of the record, as (heads, rows, C) float16 numpy arrays.

    A decode step that recomputed the whole context (KV cache off) captured C rows; only the
    last one is the new token's, the row the heatmap appends.
    """
    captured, step.attention = step.attention, None
    if not captured:
        return {}
    seq = step.seqs[0]
    keep_last = seq.phase == "decode" and seq.num_tokens > 1
    return {layer: (p[:, -1:, :] if keep_last else p).numpy() for layer, p in captured.items()}
