"""A request as the engine sees it: prompt and output token ids, status, KV block table, times."""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from enum import Enum, auto
from typing import TYPE_CHECKING

from engine.errors import LabError
from engine.sampling_params import SamplingParams

if TYPE_CHECKING:
    from engine.sched.block_pool import BlockKey


class SequenceStatus(Enum):
    WAITING = auto()  # queued; its prompt is not (fully) in the KV cache yet
    RUNNING = auto()  # prefilled or being prefilled in chunks, or decoding
    FINISHED = auto()


_ids = itertools.count()


@dataclass
class Sequence:
    prompt_token_ids: list[int]
    params: SamplingParams
    arrival_time: float
    seq_id: int = field(default_factory=lambda: next(_ids))
    output_token_ids: list[int] = field(default_factory=list)
    status: SequenceStatus = SequenceStatus.WAITING
    block_table: list[int] = field(default_factory=list)
    num_cached_tokens: int = 0  # tokens whose K and V are in the cache
    token_times: list[float] = field(default_factory=list)  # when each output token was returned
    finish_reason: str | None = None  # "eos", "length", or "abort" (its client went away)
    num_preemptions: int = 0
    num_prefix_hit_tokens: int = 0  # prompt tokens whose KV came from the prefix cache
    prompt_block_hashes: list[tuple[bytes, BlockKey]] = field(
        default_factory=list, repr=False
    )  # filled when prefix caching
    num_registered_blocks: int = 0  # prompt blocks already published to the prefix cache
    forced_output: list[int] | None = field(default=None, repr=False)  # a replay: these tokens, not sampled ones
    draft: list[int] = field(default_factory=list, repr=False)  # speculative tokens for the coming step
    forced_drafts: list[list[int]] | None = field(default=None, repr=False)  # a replay: each decode step's draft
    spec_k: int | None = field(default=None, repr=False)  # adaptive speculation: this sequence's k now

    def __post_init__(self):
        if not self.prompt_token_ids:
            raise LabError("The prompt is empty: type at least one token of text.")

    @property
    def num_prompt_tokens(self) -> int:
        return len(self.prompt_token_ids)

    @property
    def num_output_tokens(self) -> int:
        return len(self.output_token_ids)

    @property
    def token_ids(self) -> list[int]:
        return self.prompt_token_ids + self.output_token_ids

    def __len__(self) -> int:
        return self.num_prompt_tokens + self.num_output_tokens

    @property
    def is_finished(self) -> bool:
        return self.status == SequenceStatus.FINISHED

    @property
    def num_uncached_tokens(self) -> int:
        return len(self) - self.num_cached_tokens
