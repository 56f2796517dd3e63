"""The two passes: a bare timed run, then a replay of its tokens with the memory probe (and the
attention capture) on. The replay must produce the timed run's tokens step for step, and its memory
readings must be the ones an instrumented run gives on the same tokens."""

from __future__ import annotations

import pytest

from engine import Engine, EngineConfig, SamplingParams
from engine.core.memory_pass import copy_memory, decode_drafts, replay_engine, timed_config
from engine.core.speculative import SpeculativeConfig, accept_forced
from tests.ui_support import run_to_end
from ui.run_driver import measure_pass, run_steps, start_run
from ui.run_state import RunSettings

PROMPT = "The capital of France is"


@pytest.mark.parametrize(
    "cfg", [dict(), dict(kv_cache=False), dict(attention="eager"), dict(chunked_prefill=True, max_num_batched_tokens=4)]
)
def test_replay_memory_equals_an_instrumented_run(tiny, cfg):
    """Same tokens, same config: the replay's per-step peaks are the instrumented run's, exactly."""
    params = SamplingParams(max_new_tokens=6, temperature=0.8, seed=3)
    probed = Engine(tiny.model, tiny.tokenizer, EngineConfig(probe_memory=True, **cfg))
    trace = probed.generate(PROMPT, params)
    request = trace.requests[0]
    timed = Engine(tiny.model, tiny.tokenizer, timed_config(EngineConfig(probe_memory=True, **cfg)))
    replay = replay_engine(
        timed, request.prompt_token_ids, request.output_token_ids, params, EngineConfig(probe_memory=True, **cfg)
    )
    for _ in replay.stream():
        pass
    assert replay.trace.requests[0].output_token_ids == request.output_token_ids
    assert [s.peak_bytes for s in replay.trace.steps] == [s.peak_bytes for s in trace.steps]
    assert [s.peak_by_label for s in replay.trace.steps] == [s.peak_by_label for s in trace.steps]
    assert all(s.peak_bytes > 0 for s in trace.steps)


def test_forced_output_overrides_sampling_and_stops_after_it(tiny):
    engine = Engine(tiny.model, tiny.tokenizer)
    forced = [5, 7, 11]
    engine.add_request(PROMPT, SamplingParams(max_new_tokens=30, temperature=1.0), forced_output=forced)
    for _ in engine.stream():
        pass
    request = engine.trace.requests[0]
    assert request.output_token_ids == forced and request.finish_reason == "length"


@pytest.mark.parametrize("bad", [[], [-1], [10**9]])
def test_forced_output_is_checked(tiny, bad):
    with pytest.raises(ValueError, match="Forced output"):
        Engine(tiny.model, tiny.tokenizer).add_request(PROMPT, forced_output=bad)


def test_timed_config_drops_only_the_instruments():
    cfg = EngineConfig(attention="eager", probe_memory=True, capture_attention=True, kv_cache=False, block_size=8)
    bare = timed_config(cfg)
    assert (bare.probe_memory, bare.capture_attention) == (False, False)
    assert (bare.attention, bare.kv_cache, bare.block_size, bare.trace) == ("eager", False, 8, True)


def test_steps_that_differ_are_not_paired(tiny):
    a = Engine(tiny.model, tiny.tokenizer).generate(PROMPT, SamplingParams(max_new_tokens=3)).steps
    b = Engine(tiny.model, tiny.tokenizer).generate(PROMPT, SamplingParams(max_new_tokens=4)).steps
    with pytest.raises(RuntimeError, match="cannot be paired"):
        copy_memory(a, b)
    c = Engine(tiny.model, tiny.tokenizer).generate(PROMPT + " Paris", SamplingParams(max_new_tokens=3)).steps
    with pytest.raises(RuntimeError, match="differs"):
        copy_memory(a, c)


def test_the_playground_times_a_bare_run_then_measures(tiny):
    """The engine the page times has no probe and no capture; after the second pass the same steps
    carry memory and the run carries the attention, and the timings are the first pass's."""
    engine, result = start_run(tiny, RunSettings(prompt=PROMPT, max_new_tokens=5, attention="eager"))
    assert (engine.config.probe_memory, engine.config.capture_attention) == (False, False)
    for _ in run_steps(engine, result):
        pass
    assert all(s.peak_bytes is None for s in result.steps) and not result.has_attention
    times = [s.ms for s in result.steps]
    progress = list(measure_pass(engine, result))
    assert progress[-1] == (len(result.steps), len(result.steps))
    assert all(s.peak_bytes for s in result.steps) and result.has_attention and result.memory_pass == "replay"
    assert len(result.attention) == len(result.steps)
    assert [s.ms for s in result.steps] == times  # the timings are the first pass's


def test_no_probe_and_sdpa_means_no_second_pass(tiny):
    result = run_to_end(tiny, prompt=PROMPT, max_new_tokens=3, probe_memory=False)
    assert result.memory_pass is None and all(s.peak_bytes is None for s in result.steps)


@pytest.mark.parametrize("temperature", [0.0, 0.9])  # 0.9 with top-k 1: the sampled rule, on drafts that occur
def test_a_speculative_run_replays_its_drafts_step_for_step(tiny, temperature):
    """The replay verifies the timed run's drafts: the same steps, the same accepted counts, and the
    memory an instrumented speculative run reads."""
    spec = SpeculativeConfig(num_tokens=3)
    cfg = dict(probe_memory=True, speculative=spec)
    params = SamplingParams(max_new_tokens=24, temperature=temperature, top_k=1, seed=5, ignore_eos=True)
    prompt = "one two three four one two three four one two three four one two"
    probed = Engine(tiny.model, tiny.tokenizer, EngineConfig(**cfg))
    trace = probed.generate(prompt, params)
    request = trace.requests[0]
    assert any(s.seqs[0].drafted for s in trace.steps)  # the prompt repeats: prompt lookup drafts
    replay = replay_engine(
        probed,
        request.prompt_token_ids,
        request.output_token_ids,
        params,
        EngineConfig(**cfg),
        decode_drafts(trace.steps),
    )
    for _ in replay.stream():
        pass
    assert replay.trace.requests[0].output_token_ids == request.output_token_ids
    mine, theirs = trace.steps, replay.trace.steps
    assert [(s.seqs[0].draft, s.seqs[0].accepted) for s in theirs] == [
        (s.seqs[0].draft, s.seqs[0].accepted) for s in mine
    ]
    assert [s.peak_bytes for s in theirs] == [s.peak_bytes for s in mine]
    copy_memory(mine, theirs)  # pairs without complaint


def test_accept_forced_keeps_the_agreeing_prefix_and_the_next_forced_token():
    assert accept_forced([4, 5, 9, 1], [4, 5, 6]) == [4, 5, 9]  # the third draft was rejected: 9 corrected it
    assert accept_forced([4, 5, 6, 7], [4, 5, 6]) == [4, 5, 6, 7]  # all accepted, plus the bonus token
    assert accept_forced([8], [4, 5]) == [8]  # the last forced token: nothing more to accept
