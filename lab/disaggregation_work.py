"""The work each set-up does with one long prompt, counted from the model's shape before anything is
timed (engine/observe/costmodel.py): how much of the prompt one step of the chats' server holds, in how
many steps, the FLOPs of the largest such step, and the KV bytes the pair hands over. The chats' gaps
follow from the first three; the hand-off is what the pair pays for keeping them out.

    whole    the prompt in one step beside the chats
    chunked  in ceil(L / chunk) steps of at most `chunk` tokens beside the chats (later ones attend more)
    pd       none of it on the chats' server: prefilled on the other worker, its KV handed over
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from engine.config import ModelConfig
from engine.observe.costmodel import chunk_flops


@dataclass(frozen=True)
class SetupWork:
    tokens_per_step: int  # of the long prompt, in one step of the chats' server
    steps: int  # steps of the chats' server that hold part of it
    largest_step_flops: float  # its part of the largest of them
    handoff_bytes: int  # KV sent from the prefill worker to the decode worker


def counted_work(c: ModelConfig, kv_token_bytes: int, long_tokens: int, chunk: int) -> dict[str, SetupWork]:
    """Each set-up's work with one prompt of `long_tokens` tokens; kv_token_bytes: one token's K and V
    as the pool stores them."""
    part = min(chunk, long_tokens)
    steps = math.ceil(long_tokens / part)
    largest = max(chunk_flops(c, min(part, long_tokens - start), start) for start in range(0, long_tokens, part))
    return {
        "whole": SetupWork(long_tokens, 1, chunk_flops(c, long_tokens, 0), 0),
        "chunked": SetupWork(part, steps, largest, 0),
        "pd": SetupWork(0, 0, 0.0, long_tokens * kv_token_bytes),
    }
