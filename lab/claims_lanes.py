"""The claims check's comparisons of two engine set-ups, raced step by step (lab/interleaved.py): each
lane steps in turn on its own clock, so both see the same seconds of the machine and their steps pair.

  cache   the same prompt with the KV cache on and off: decode step i of each attends the same context
          (C13-C15: the uncached step recomputes it)
  hol     a few chats decoding when one long prompt arrives, its prefill whole in one lane and in
          chunks in the other (C17, C21-C24); the long prompt joins each lane after the chats' first
          steps (a count of steps, not a time), so it lands mid-decode on a fast machine and a slow one
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from engine.core.llm_engine import EngineConfig
from engine.observe.trace import Trace
from engine.sampling_params import SamplingParams
from lab.busy import MachineLoad
from lab.complexity import CacheRun
from lab.interleaved import Lane, race
from lab.sweeps import PREFILL_TOKENS_PER_DECODE_STEP as P
from lab.workload import text_tokens

LONG = "long prompt"


def cache_work(prompt_len: int, new_tokens: int) -> list[float]:
    """Each step's work in decode steps, both lanes: the cached lane's prefill and its one-token steps,
    the uncached lane's steps recomputing the whole context (at least one step's worth: the weights)."""
    on = [prompt_len / P] + [1.0] * (new_tokens - 1)
    off = [prompt_len / P] + [max(1.0, (prompt_len + i) / P) for i in range(1, new_tokens)]
    return on + off


@dataclass
class CacheRace:
    """Both lanes' decode steps, by kv_cache: their times and counted FLOPs (CacheRun), the tokens each
    fed and the context each attended; and the load other work put on the machine meanwhile."""

    runs: dict[bool, CacheRun]
    fed: dict[bool, list[int]]
    contexts: dict[bool, list[int]]
    load: MachineLoad | None


@dataclass
class HolRace:
    """Each lane's trace with its requests' labels (chunked? -> (trace, labels)), and the load meanwhile."""

    lanes: dict[bool, tuple[Trace, dict[int, str]]]
    load: MachineLoad | None


def race_cache(
    model, tokenizer, prompt_ids: list[int], new_tokens: int, within: Callable[[float], None] | None = None
) -> CacheRace:
    """Greedy generation of new_tokens with the KV cache on and off, stepped in turn. within(fraction of
    the work) after each step."""
    lanes = {
        kv: Lane.of(model, tokenizer, EngineConfig(kv_cache=kv, probe_memory=False), "cache on" if kv else "cache off")
        for kv in (True, False)
    }
    for lane in lanes.values():
        lane.engine.add_request(prompt_ids, SamplingParams(max_new_tokens=new_tokens, ignore_eos=True))
    work = cache_work(len(prompt_ids), new_tokens)
    done, steps = [0.0], {True: 0, False: 0}

    def on_step(kv: bool, _event) -> None:
        i = steps[kv]
        steps[kv] += 1
        done[0] += work[i if kv else new_tokens + min(i, new_tokens - 1)]
        if within:
            within(min(1.0, done[0] / sum(work)))

    load = race(lanes, on_step=on_step)
    runs, fed, contexts = {}, {}, {}
    for kv, lane in lanes.items():
        decode = [s for s in lane.steps if s.phase == "decode"]
        runs[kv] = CacheRun(
            kv,
            lane.engine.trace.requests[0].output_token_ids,
            [s.ms for s in decode],
            [s.flops_linear for s in decode],
            [s.flops_attention for s in decode],
        )
        fed[kv] = [s.seqs[0].num_tokens for s in decode]
        contexts[kv] = [s.seqs[0].context_len for s in decode]
    return CacheRace(runs, fed, contexts, load)


def hol_work(streams: int, long_prompt: int, stream_output: int) -> float:
    """Both lanes' work in decode steps: the chats' prompts and steps, the long prompt and its tokens."""
    chats = sum(32 + 4 * i for i in range(streams))
    return 2 * (stream_output + 16 + (long_prompt + chats) / P)


def race_hol(
    model,
    tokenizer,
    streams: int,
    long_prompt: int,
    stream_output: int,
    chunk: int,
    chat_steps: int,
    within: Callable[[float], None] | None = None,
) -> HolRace:
    """Chats decoding when one long prompt joins, whole prefill (False) and chunked (True) raced step by
    step."""
    chats = [(text_tokens(tokenizer, 32 + 4 * i, offset=i), f"chat {i + 1}") for i in range(streams)]
    long_ids = text_tokens(tokenizer, long_prompt)
    max_len = max(long_prompt + 16, max(len(ids) for ids, _ in chats) + stream_output)
    lanes, labels = {}, {}
    for chunked in (False, True):
        config = EngineConfig(
            probe_memory=False,
            chunked_prefill=chunked,
            max_model_len=max_len,
            max_num_batched_tokens=chunk if chunked else max(8192, max_len),
        )
        lanes[chunked] = Lane.of(model, tokenizer, config, "chunked" if chunked else "whole")
        labels[chunked] = {
            lanes[chunked]
            .engine.add_request(ids, SamplingParams(max_new_tokens=stream_output, ignore_eos=True))
            .seq_id: label
            for ids, label in chats
        }
    steps = {False: 0, True: 0}
    expected = 2 * (stream_output + long_prompt / chunk + 16)  # about the steps of both lanes

    def on_step(chunked: bool, _event) -> None:
        steps[chunked] += 1
        if steps[chunked] == chat_steps:  # off the lane's clock: its arrival is where the lane stands
            seq = lanes[chunked].engine.add_request(long_ids, SamplingParams(max_new_tokens=16, ignore_eos=True))
            labels[chunked][seq.seq_id] = LONG
        if within:
            within(min(1.0, sum(steps.values()) / expected))

    load = race(lanes, on_step=on_step)
    return HolRace({chunked: (lane.engine.trace, labels[chunked]) for chunked, lane in lanes.items()}, load)
