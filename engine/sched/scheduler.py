"""Decides, every step, which sequences run and how many of their tokens (nano-vllm's shape).

Policies, all over the same paged block pool:
  sequential  one request at a time, to completion
  static      a batch is admitted together and runs until all of its requests finish
  continuous  iteration-level: requests join and leave at every step
Every step runs decodes first (one token each, or one plus the tokens drafted for it with
speculative decoding), then prefills (whole prompts, or chunks of them with chunked prefill) under
a per-step token budget (and, where set, a work budget: a chunk's FLOPs grow with the context it
attends to, so a chunk deep into a long prompt holds fewer tokens). A verified draft's rejected tokens are rolled back: the blocks past the
sequence's accepted KV return to the pool. With prefix caching, full prompt blocks
already in the pool (same tokens, same prefix) are reused instead of recomputed. With the KV
cache off, every step recomputes each running sequence's whole context.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

from engine.errors import LabError
from engine.sched.block_pool import BlockPool, prefix_hashes
from engine.sched.sequence import Sequence, SequenceStatus

POLICIES = ("sequential", "static", "continuous")


@dataclass
class SchedulerConfig:
    max_num_seqs: int = 64
    max_num_batched_tokens: int = 8192  # token budget of one step
    chunked_prefill: bool = False
    kv_cache: bool = True  # False: the O(N^3) baseline, recompute everything every step (C13)
    policy: str = "continuous"
    prefix_caching: bool = False
    # With chunked prefill, the most work one step may do, in the units of `work(num_tokens, start)` (the
    # engine gives FLOPs): a chunk of a long prompt attends to everything before it, so at a context of
    # 7,000 a 512-token chunk costs several times a fresh prompt's 512 tokens and holds the running
    # decodes back for seconds on a CPU. None: the token budget alone.
    max_step_work: float | None = None
    work: Callable[[int, int], float] | None = None
    min_chunk_tokens: int = 16  # a chunk never shrinks below this, so a long prompt still advances

    def __post_init__(self):
        if self.max_num_seqs <= 0 or self.max_num_batched_tokens <= 0:
            raise LabError("max_num_seqs and max_num_batched_tokens must be positive.")
        if self.policy not in POLICIES:
            raise LabError(f"Unknown scheduling policy {self.policy!r}; choose one of {', '.join(POLICIES)}.")
        if self.prefix_caching and not self.kv_cache:
            raise LabError("Prefix caching needs the KV cache on.")
        if (self.max_step_work is None) != (self.work is None):
            raise LabError("A step's work budget needs its work function, and the reverse.")
        if self.max_step_work is not None and self.max_step_work <= 0:
            raise LabError(f"max_step_work must be positive, got {self.max_step_work}.")


@dataclass
class ScheduledSeq:
    seq: Sequence
    start: int  # position of the first new token
    num_tokens: int  # new tokens fed this step
    phase: str  # "prefill" or "decode"
    samples: bool  # the step ends this sequence's prompt (or is a decode): a token comes out
    recompute: bool = False  # KV cache off: the whole context, recomputed
    draft: list[int] = field(default_factory=list)  # speculative tokens fed after the last one
    accepted: int = 0  # of the draft, those verified (set when the step's tokens are chosen)

    @property
    def context_len(self) -> int:
        return self.start + self.num_tokens


class Scheduler:
    def __init__(self, config: SchedulerConfig, pool: BlockPool):
        self.config = config
        self.pool = pool
        self.waiting: deque[Sequence] = deque()
        self.running: list[Sequence] = []
        self.num_preemptions = 0
        self.num_prefix_hit_tokens = 0
        self._work_left: float | None = None  # of this step's work budget, while it is scheduled

    def add(self, seq: Sequence) -> None:
        self.waiting.append(seq)

    def abort(self, seq: Sequence) -> None:
        """Drop a request wherever it is (its client went away): its blocks return to the pool."""
        if seq in self.waiting:
            self.waiting.remove(seq)
        elif seq in self.running:
            self._release(seq)
            self.running.remove(seq)
        seq.status, seq.finish_reason = SequenceStatus.FINISHED, "abort"

    @property
    def has_unfinished(self) -> bool:
        return bool(self.waiting or self.running)

    def schedule(self) -> list[ScheduledSeq]:
        if not self.config.kv_cache:
            return self._schedule_recompute()
        budget = self.config.max_num_batched_tokens
        self._work_left = self.config.max_step_work
        batch: list[ScheduledSeq] = []
        for seq in list(self.running):  # decodes first: they are cheap and latency-critical
            if seq not in self.running or not self.is_decoding(seq) or budget <= 0:
                continue
            draft = seq.draft[: budget - 1]
            if not self._reserve(seq, len(seq) + len(draft), protect=batch):
                continue  # seq itself was preempted
            batch.append(ScheduledSeq(seq, seq.num_cached_tokens, 1 + len(draft), "decode", True, draft=draft))
            budget -= 1 + len(draft)
            self._spend(1 + len(draft), seq.num_cached_tokens)
        admit_limit = self._admission_limit()
        prefilling = [s for s in self.running if not self.is_decoding(s)]
        for seq in prefilling + list(self.waiting):
            if budget <= 0:
                break
            if seq.status == SequenceStatus.WAITING and len(self.running) >= admit_limit:
                break
            item = self._schedule_prefill(seq, budget, batch_empty=not batch)
            if item is None:
                break
            batch.append(item)
            budget -= item.num_tokens
            self._spend(item.num_tokens, item.start)
        return batch

    def _spend(self, num_tokens: int, start: int) -> None:
        if self._work_left is not None:
            self._work_left -= self.config.work(num_tokens, start)

    def _fit_work(self, n: int, start: int) -> int:
        """The most tokens, up to n, of a chunk starting at `start` that fit the step's work left
        (never below min_chunk_tokens): the work grows with n, so bisect."""
        if self._work_left is None or self.config.work(n, start) <= self._work_left:
            return n
        low, high = min(n, self.config.min_chunk_tokens), n
        while low < high:
            mid = (low + high + 1) // 2
            if self.config.work(mid, start) <= self._work_left:
                low = mid
            else:
                high = mid - 1
        return low

    def _admission_limit(self) -> int:
        """How many sequences may be running once new ones are admitted this step."""
        if self.config.policy == "sequential":
            return 1
        if self.config.policy == "static" and any(s.status == SequenceStatus.RUNNING for s in self.running):
            return 0 if not any(s.num_preemptions for s in self.waiting) else self.config.max_num_seqs
        return self.config.max_num_seqs

    def _schedule_prefill(self, seq: Sequence, budget: int, batch_empty: bool) -> ScheduledSeq | None:
        reused = self._match_prefix(seq) if seq.status == SequenceStatus.WAITING else []
        cached = seq.num_cached_tokens + len(reused) * self.pool.block_size
        n = len(seq) - cached
        if n > budget:
            if self.config.chunked_prefill:
                n = budget
            elif not batch_empty:
                return None  # a whole prompt only goes in a step where it fits
        if self.config.chunked_prefill:
            n = self._fit_work(n, cached)
        need = self.pool.blocks_for(cached + n) - len(seq.block_table) - len(reused)
        revived = sum(self.pool.ref_counts[b] == 0 for b in reused)  # cached blocks on the free list
        if not self.pool.can_allocate(need + revived):
            return None
        for b in reused:
            self.pool.reuse(b)
        seq.block_table += reused + self.pool.allocate(need)
        if reused:
            seq.num_cached_tokens = cached
            seq.num_prefix_hit_tokens += cached
            self.num_prefix_hit_tokens += cached
        if seq.status == SequenceStatus.WAITING:
            self.waiting.remove(seq)
            seq.status = SequenceStatus.RUNNING
            self.running.append(seq)
        return ScheduledSeq(seq, seq.num_cached_tokens, n, "prefill", n == seq.num_uncached_tokens)

    def _match_prefix(self, seq: Sequence) -> list[int]:
        """Blocks of the pool already holding this prompt's leading full blocks (no side effects)."""
        if not self.config.prefix_caching or seq.block_table:
            return []
        if not seq.prompt_block_hashes:
            seq.prompt_block_hashes = prefix_hashes(seq.prompt_token_ids, self.pool.block_size)
        matched = []
        for h, key in seq.prompt_block_hashes:
            b = self.pool.lookup(h, key)
            if b is None:
                break
            matched.append(b)
        if len(matched) * self.pool.block_size >= len(seq):
            matched.pop()  # leave at least one token to compute: its logits give the next token
        return matched

    def is_decoding(self, seq: Sequence) -> bool:
        return seq.num_cached_tokens >= seq.num_prompt_tokens and seq.num_uncached_tokens == 1

    def _reserve(self, seq: Sequence, num_tokens: int, protect: list[ScheduledSeq]) -> bool:
        """Make room for num_tokens in seq's blocks, preempting the newest others if the pool is full."""
        need = self.pool.blocks_for(num_tokens) - len(seq.block_table)
        while not self.pool.can_allocate(need):
            protected = {s.seq.seq_id for s in protect}
            victims = [s for s in self.running if s is not seq and s.seq_id not in protected]
            self._preempt(victims[-1] if victims else seq)
            if not victims:
                return False
        seq.block_table += self.pool.allocate(need)
        return True

    def _preempt(self, seq: Sequence) -> None:
        """Recompute-style preemption: drop its KV, requeue it first; its tokens so far are kept."""
        self._release(seq)
        seq.status = SequenceStatus.WAITING
        seq.num_preemptions += 1
        self.num_preemptions += 1
        self.running.remove(seq)
        self.waiting.appendleft(seq)

    def _release(self, seq: Sequence) -> None:
        self.pool.free(seq.block_table)
        seq.block_table = []
        seq.num_cached_tokens = 0
        seq.num_registered_blocks = 0

    def _schedule_recompute(self) -> list[ScheduledSeq]:
        """KV cache off: each running sequence feeds its whole context again, into fresh blocks."""
        while self.waiting and len(self.running) < self._admission_limit():
            seq = self.waiting.popleft()
            seq.status = SequenceStatus.RUNNING
            self.running.append(seq)
        batch = []
        for seq in self.running:
            need = self.pool.blocks_for(len(seq))
            if not self.pool.can_allocate(need):
                break
            seq.block_table = self.pool.allocate(need)
            phase = "decode" if seq.output_token_ids else "prefill"
            batch.append(ScheduledSeq(seq, 0, len(seq), phase, True, recompute=True))
        if not batch and self.running:
            raise LabError("The KV pool cannot hold even one sequence's context; give the cache more memory.")
        return batch

    def postprocess(
        self,
        batch: list[ScheduledSeq],
        tokens: list[int | list[int] | None],
        now: float,
        eos_ids: set[int],
        max_model_len: int,
    ) -> list[Sequence]:
        """Advance each scheduled sequence by its token (or, after a verified draft, its tokens: those
        up to a finishing one are kept); return those that finished (their blocks are freed)."""
        finished = []
        for item, emitted in zip(batch, tokens):
            seq = item.seq
            emitted = [emitted] if isinstance(emitted, int) else (emitted or [])
            # a verify step's KV is right up to its accepted drafts; the last emitted token has none yet
            seq.num_cached_tokens = item.start + len(emitted) if item.draft else item.context_len
            if item.phase == "prefill" and self.config.prefix_caching:
                self._publish_prompt_blocks(seq)
            for token in emitted if item.samples else []:
                seq.output_token_ids.append(token)
                seq.token_times.append(now)
                if token in eos_ids and not seq.params.ignore_eos:
                    seq.finish_reason = "eos"
                elif seq.num_output_tokens >= seq.params.max_new_tokens or len(seq) >= max_model_len:
                    seq.finish_reason = "length"
                if seq.finish_reason:
                    break
            seq.draft = []
            if item.draft and not seq.finish_reason:
                self._roll_back(seq)
            if seq.finish_reason or item.recompute:  # KV off keeps nothing between steps
                self._release(seq)
            if seq.finish_reason:
                seq.status = SequenceStatus.FINISHED
                self.running.remove(seq)
                finished.append(seq)
        return finished

    def _roll_back(self, seq: Sequence) -> None:
        """Return the blocks past the sequence's accepted KV (those its rejected drafts were written to)."""
        keep = self.pool.blocks_for(seq.num_cached_tokens)
        if len(seq.block_table) > keep:
            self.pool.free(seq.block_table[keep:])
            seq.block_table = seq.block_table[:keep]

    def _publish_prompt_blocks(self, seq: Sequence) -> None:
        """Register the prompt blocks this sequence has now fully computed, for others to reuse."""
        if not seq.prompt_block_hashes:
            seq.prompt_block_hashes = prefix_hashes(seq.prompt_token_ids, self.pool.block_size)
        done = min(seq.num_cached_tokens, seq.num_prompt_tokens) // self.pool.block_size
        for i in range(seq.num_registered_blocks, min(done, len(seq.prompt_block_hashes))):
            self.pool.register(seq.block_table[i], *seq.prompt_block_hashes[i])
        seq.num_registered_blocks = max(seq.num_registered_blocks, done)
