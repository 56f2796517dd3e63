"""The engine: one data path for everything, from a single prompt to a batch of many.

    add_request(prompt, params) -> Sequence (WAITING)
    step(): schedule -> run the model over the batch -> sample -> postprocess -> StepRecord

The weights (`LlamaModel`) are loaded once and may be shared by many engines; an engine is cheap
(a scheduler and a lazily touched KV pool), so each run with its own settings gets its own.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field, replace
from functools import partial

import torch

from engine.config import dtype_name
from engine.core.detokenizer import Detokenizer
from engine.core.speculative import SpeculativeConfig, accept_forced, accept_greedy, accept_sampled
from engine.errors import LabError
from engine.layers.attention import BACKENDS, AttentionCapture
from engine.layers.kv_cache import KV_DTYPES, KVCache, kv_bytes_per_token, kv_storage
from engine.models.llama import LlamaModel
from engine.observe.costmodel import SeqWork, chunk_flops, step_cost
from engine.observe.memory import MemoryReading, device_memory_bytes, measure_peak
from engine.observe.trace import LayerShapes, RequestRecord, SeqStep, StepRecord, TokenEvent, Trace
from engine.sampling_params import SamplingParams
from engine.sched.scheduler import ScheduledSeq, Scheduler, SchedulerConfig
from engine.sched.sequence import Sequence
from engine.worker.model_runner import ModelRunner
from engine.worker.sampler import Sampler


@dataclass
class EngineConfig:
    attention: str = "sdpa"  # "eager" materialises the scores; "sdpa" never does
    kv_cache: bool = True
    block_size: int = 16
    kv_cache_bytes: int = 1 << 30  # pool budget; at least one max-length sequence always fits
    max_num_seqs: int = 64
    max_num_batched_tokens: int = 8192
    chunked_prefill: bool = False
    policy: str = "continuous"  # "sequential", "static" or "continuous" batching
    prefix_caching: bool = False  # reuse full prompt blocks already in the pool
    max_model_len: int | None = None  # default: the model's context length
    trace: bool = True  # build a StepRecord (shapes, KV, cost) every step
    probe_memory: bool = True  # peak tensor memory per step (part of the trace)
    capture_attention: bool = False  # eager only: keep attention probabilities of the first sequence
    capture_layers: list[int] | None = None
    capture_max_bytes: int = 64 << 20
    # with chunked prefill, the most FLOPs one step may do (the cost model's count): a chunk deep into a
    # long prompt attends to everything before it, so the same tokens cost more there. None: tokens only
    max_step_flops: float | None = None
    kv_dtype: str = "auto"  # how the pool stores K and V (engine/kv_cache.KV_DTYPES); "auto": the model's dtype
    speculative: SpeculativeConfig | None = (
        None  # draft and verify tokens each decode step (engine/core/speculative.py)
    )

    def __post_init__(self):
        if self.attention not in BACKENDS:
            raise LabError(f"Unknown attention backend {self.attention!r}; choose one of {', '.join(BACKENDS)}.")
        if self.capture_attention and self.attention != "eager":
            raise LabError("Attention capture needs the eager backend: sdpa never materialises the scores.")
        if self.block_size <= 0:
            raise LabError(f"block_size must be positive, got {self.block_size}.")
        if self.max_model_len is not None and self.max_model_len <= 0:
            raise LabError(f"max_model_len must be positive, got {self.max_model_len}.")
        if self.kv_dtype not in KV_DTYPES:
            raise LabError(f"Unknown KV cache dtype {self.kv_dtype!r}; choose one of {', '.join(KV_DTYPES)}.")
        if self.speculative is not None and not self.kv_cache:
            raise LabError("Speculative decoding verifies drafts against the KV cache: turn the KV cache on.")


@dataclass
class EngineEvent:
    """What stream() yields after each step: its record, the tokens it produced, the requests it finished."""

    step: StepRecord | None
    tokens: list[TokenEvent] = field(default_factory=list)
    finished: list[RequestRecord] = field(default_factory=list)
    failed: dict[int, Exception] = field(default_factory=dict)  # seq_id -> why: that request alone was dropped


class Engine:
    """clock: where the engine reads the time (arrivals, step starts, token times). The default is the
    wall clock; a comparison that interleaves several engines a step at a time gives each a clock that
    runs only during its own steps (lab/pairing.OwnClock), so each one's TTFT and TPOT are its own."""

    def __init__(
        self,
        model: LlamaModel,
        tokenizer,
        config: EngineConfig | None = None,
        name: str = "model",
        clock: Callable[[], float] = time.perf_counter,
    ):
        self.clock = clock
        self.model = model
        self.tokenizer = tokenizer
        self.config = config = config or EngineConfig()
        self.name = name
        mc = model.config
        self.max_model_len = min(config.max_model_len or mc.max_position, mc.max_position)
        self.kv_bytes_per_token = kv_bytes_per_token(mc, kv_storage(config.kv_dtype, model.dtype))
        budget_blocks = config.kv_cache_bytes // (self.kv_bytes_per_token * config.block_size)
        num_blocks = max(budget_blocks, -(-self.max_model_len // config.block_size))
        self._check_pool_fits(num_blocks * config.block_size)
        self.kv = KVCache(mc, num_blocks, config.block_size, model.dtype, model.device, config.kv_dtype)
        self.scheduler = Scheduler(
            SchedulerConfig(
                max_num_seqs=config.max_num_seqs,
                max_num_batched_tokens=config.max_num_batched_tokens,
                chunked_prefill=config.chunked_prefill,
                kv_cache=config.kv_cache,
                policy=config.policy,
                prefix_caching=config.prefix_caching,
                max_step_work=config.max_step_flops,
                work=partial(chunk_flops, mc) if config.max_step_flops is not None else None,
            ),
            self.kv.pool,
        )
        self.runner = ModelRunner(model, self.kv, config.attention)
        self.sampler = Sampler()
        self.eos_ids = set(mc.eos_token_ids) | (
            {tokenizer.eos_token_id} if tokenizer.eos_token_id is not None else set()
        )
        self.trace = Trace(model=name, settings=self.settings())
        self._detok: dict[int, Detokenizer] = {}
        self._num_steps = 0

    def _check_pool_fits(self, num_slots: int) -> None:
        """The pool always holds one max-length sequence: refuse a context no memory here can hold."""
        mc, per_token = self.model.config, self.kv_bytes_per_token
        need, have = num_slots * per_token, device_memory_bytes(self.model.device)
        if have is not None and need > have:
            raise LabError(
                f"A context of {self.max_model_len:,} tokens needs {need / 1e9:,.1f} GB of KV cache for one sequence "
                f"({per_token / 1e3:.1f} kB per token) and this {self.model.device.type} has {have / 1e9:.1f} GB. "
                f"Lower max_position_embeddings in the model's config.json (now {mc.max_position:,}), or the "
                f"engine's max_model_len, to at most {have // per_token:,} tokens."
            )

    def settings(self) -> dict:
        spec = self.config.speculative  # its own fields only: a draft model's loaded engine is not a setting
        return asdict(replace(self.config, speculative=None)) | {
            "speculative": None if spec is None else spec.settings(),
            "dtype": dtype_name(self.model.dtype),
            "device": str(self.model.device),
            "max_model_len": self.max_model_len,
            "weights": self.model.weight_format,
        }

    # --- requests -------------------------------------------------------------------------
    def encode(self, prompt: str, chat: bool = False) -> list[int]:
        if not isinstance(prompt, str) or not prompt.strip():
            raise LabError("The prompt is empty: type some text to run.")
        check_utf8(prompt, "The prompt")
        if chat:
            if not getattr(self.tokenizer, "chat_template", None):
                raise LabError("This model has no chat template; turn the chat template off.")
            text = self.tokenizer.apply_chat_template(
                [{"role": "user", "content": prompt}], add_generation_prompt=True, tokenize=False
            )
            return self.tokenizer(text, add_special_tokens=False).input_ids
        return self.tokenizer(prompt).input_ids

    def add_request(
        self,
        prompt: str | list[int],
        params: SamplingParams | None = None,
        chat: bool = False,
        arrival: float | None = None,
        forced_output: list[int] | None = None,
        forced_drafts: list[list[int]] | None = None,
    ) -> Sequence:
        """forced_output: replay these output tokens instead of the sampled ones (the sampler still
        runs, so a replayed step does the same work); the request stops after the last of them.
        forced_drafts: with speculative decoding on, the draft of each decode step of the run being
        replayed (an empty list where it drafted nothing), so the replay verifies the same chunks."""
        params = params or SamplingParams()
        if forced_output is not None:
            if not forced_output or any(not 0 <= t < self.model.config.vocab_size for t in forced_output):
                raise LabError(
                    f"Forced output tokens must be a non-empty list of ids in [0, {self.model.config.vocab_size})."
                )
            params = replace(params, max_new_tokens=len(forced_output))
        ids = list(prompt) if isinstance(prompt, (list, tuple)) else self.encode(prompt, chat)
        if not ids:
            raise LabError("The prompt is empty: type some text to run.")
        if any(not 0 <= t < self.model.config.vocab_size for t in ids):
            raise LabError(f"Prompt token ids must be in [0, {self.model.config.vocab_size}).")
        if len(ids) >= self.max_model_len:
            raise LabError(
                f"The prompt is {len(ids)} tokens; this model's context holds {self.max_model_len}, "
                f"leaving no room to generate. Shorten the prompt."
            )
        if len(ids) + params.max_new_tokens > self.max_model_len:
            raise LabError(
                f"{len(ids)} prompt tokens + max_new_tokens {params.max_new_tokens} exceed the context "
                f"of {self.max_model_len} tokens; lower max_new_tokens to at most "
                f"{self.max_model_len - len(ids)}."
            )
        seq = Sequence(
            ids,
            params,
            arrival if arrival is not None else self.clock(),
            forced_output=list(forced_output) if forced_output is not None else None,
            forced_drafts=[list(d) for d in forced_drafts] if forced_drafts is not None else None,
        )
        self._detok[seq.seq_id] = Detokenizer(self.tokenizer)
        self.scheduler.add(seq)
        return seq

    def adopt(self, seq: Sequence) -> None:
        """Take over a running sequence whose prompt KV another engine computed and whose first
        token is out (engine/core/kv_transfer.py): it decodes from its next step on."""
        detok = Detokenizer(self.tokenizer)
        for token in seq.output_token_ids:  # their text went out already; the next tokens' text follows on
            detok.add(token)
        self._detok[seq.seq_id] = detok
        self.scheduler.running.append(seq)

    def abort(self, seq: Sequence) -> None:
        """Stop a request between steps; it produces nothing more and leaves no record."""
        if seq.is_finished:
            return
        self.scheduler.abort(seq)
        self.sampler.forget(seq.seq_id)
        self._detok.pop(seq.seq_id, None)

    @property
    def has_unfinished(self) -> bool:
        return self.scheduler.has_unfinished

    # --- one step -------------------------------------------------------------------------
    def step(self) -> EngineEvent:
        cfg = self.config
        start = self.clock()
        capture = AttentionCapture(cfg.capture_layers, cfg.capture_max_bytes) if cfg.capture_attention else None
        with measure_peak(self.model.device, enabled=cfg.trace and cfg.probe_memory) as mem:
            self._draft()
            batch = self.scheduler.schedule()
            logits = self.runner.run(batch, capture)
            sampled = [item for item in batch if item.samples]
            tokens, failed = self._choose(logits, sampled)
            del logits
        now = self.clock()  # the tokens exist (sampling synchronised the device)
        token_iter = iter(tokens)
        per_item = [next(token_iter) if item.samples else None for item in batch]
        before = [item.seq.num_output_tokens for item in batch]
        finished = self.scheduler.postprocess(batch, per_item, now, self.eos_ids, self.max_model_len)
        for item in batch:
            if item.seq.seq_id in failed:  # its row failed: it emitted nothing, and goes; the others step on
                self.abort(item.seq)
        per_item = [item.seq.output_token_ids[n:] if item.samples else None for item, n in zip(batch, before)]
        step_no = self._num_steps
        self._num_steps += 1
        events = self._token_events(batch, per_item, step_no, now)
        record = self._record(step_no, start, now, batch, per_item, events, mem, capture) if cfg.trace else None
        if record is not None:
            self.trace.steps.append(record)
        self.trace.tokens.extend(events)
        done = [self._finish(seq) for seq in finished]
        return EngineEvent(record, events, done, failed)

    def _draft(self) -> None:
        """Speculative decoding: each decoding sequence's draft for this step, as long as its budget of
        new tokens and the context allow (none for a replay, or while EOS is still held back)."""
        spec = self.config.speculative
        if spec is None:
            return
        for seq in self.scheduler.running:
            seq.draft = []
            if seq.forced_output is not None:  # a replay drafts what the replayed run drafted, step for step
                if seq.forced_drafts and self.scheduler.is_decoding(seq):
                    seq.draft = seq.forced_drafts.pop(0)
                continue
            if seq.num_output_tokens < seq.params.min_new_tokens:
                continue
            room = min(
                seq.spec_k or spec.num_tokens,
                seq.params.max_new_tokens - seq.num_output_tokens - 1,
                self.max_model_len - len(seq) - 1,
            )
            if room > 0 and self.scheduler.is_decoding(seq):
                seq.draft = spec.draft(seq.token_ids, room)

    def _choose(
        self, logits: torch.Tensor, sampled: list[ScheduledSeq]
    ) -> tuple[list[list[int]], dict[int, Exception]]:
        """The tokens each sampled sequence emits, and the sequences whose choice failed (by seq_id):
        a failure in one row is that request's alone, so it emits nothing and the others go on."""
        failed: dict[int, Exception] = {}
        if not any(item.draft for item in sampled):  # the common path: one row each, sampled together
            logits = _hold_eos(logits, [i.seq for i in sampled], self.eos_ids)
            params, ids = [i.seq.params for i in sampled], [i.seq.seq_id for i in sampled]
            tokens = self.sampler.sample(logits, params, ids, failed)
            return [[] if i.seq.seq_id in failed else [_forced(i.seq, t)] for i, t in zip(sampled, tokens)], failed
        out = []
        for item, rows in zip(sampled, logits.split([1 + len(i.draft) for i in sampled])):
            try:
                out.append(self._emit(item, rows))
            except Exception as exc:  # noqa: BLE001 - any failure of one row: reported with its request
                failed[item.seq.seq_id] = exc
                out.append([])
        return out, failed

    def _emit(self, item: ScheduledSeq, rows: torch.Tensor) -> list[int]:
        """One sequence's tokens: one sampled (or replayed) token, or after a draft the verified prefix
        and one token of the model's own (engine/core/speculative.py)."""
        seq, params = item.seq, item.seq.params
        if not item.draft:
            rows = _hold_eos(rows, [seq], self.eos_ids)
            return [_forced(seq, self.sampler.sample(rows, [params], [seq.seq_id])[0])]
        if params.is_greedy:
            emitted = accept_greedy(rows, item.draft)
        else:
            probs = self.sampler.distribution(rows, params)
            emitted = accept_sampled(probs, item.draft, self.sampler.generator(seq.seq_id, params))
        if seq.forced_output is not None:  # a replay (the same work done): the replayed run's tokens
            emitted = accept_forced(seq.forced_output[seq.num_output_tokens :], item.draft)
        item.accepted = len(emitted) - 1
        spec = self.config.speculative
        seq.spec_k = spec.next_k(seq.spec_k or spec.num_tokens, len(item.draft), item.accepted)
        return emitted

    def _token_events(
        self, batch: list[ScheduledSeq], tokens: list[list[int] | None], step: int, now: float
    ) -> list[TokenEvent]:
        events = []
        for item, emitted in zip(batch, tokens):
            first = item.seq.num_output_tokens - len(emitted or [])
            for j, tok in enumerate(emitted or []):
                text = self._detok[item.seq.seq_id].add(tok)
                events.append(TokenEvent(item.seq.seq_id, first + j, tok, text, item.phase, step, now))
        return events

    def _record(
        self,
        step: int,
        start: float,
        now: float,
        batch: list[ScheduledSeq],
        tokens: list[list[int] | None],
        events: list[TokenEvent],
        mem: MemoryReading,
        capture: AttentionCapture | None,
    ) -> StepRecord:
        mc = self.model.config
        texts: dict[int, str] = {}
        for e in events:
            texts[e.seq_id] = texts.get(e.seq_id, "") + e.text
        seqs = [
            SeqStep(
                i.seq.seq_id,
                i.phase,
                i.num_tokens,
                i.context_len,
                i.recompute,
                LayerShapes.for_step(mc, i.num_tokens, i.context_len),
                emitted[-1] if emitted else None,
                texts.get(i.seq.seq_id),
                len(i.draft),
                i.accepted,
                list(i.draft),
            )
            for i, emitted in zip(batch, tokens)
        ]
        cost = step_cost(
            mc,
            [SeqWork(i.num_tokens, i.context_len, int(i.samples) * (1 + len(i.draft))) for i in batch],
            self.model.dtype.itemsize,
            weight_dtype_bytes=self.model.weight_elem_bytes,
            kv_token_bytes=self.kv_bytes_per_token,
        )
        # KV held at the end of the step (sequences that just finished or recomputed have released theirs)
        holders = [s for s in self.scheduler.running if s.block_table]
        usage = self.kv.usage([(s.block_table, s.num_cached_tokens) for s in holders])
        return StepRecord(
            step=step,
            start=start,
            ms=(now - start) * 1e3,
            seqs=seqs,
            kv_tokens=usage.tokens,
            kv_bytes=usage.bytes,
            kv_blocks=usage.blocks,
            kv_reserved_bytes=usage.reserved_bytes,
            kv_wasted_slots=usage.wasted_slots,
            kv_free_blocks=usage.free_blocks,
            flops=cost.flops,
            flops_linear=cost.flops_linear,
            flops_attention=cost.flops_attention,
            bytes_moved=cost.bytes_moved,
            peak_bytes=mem.peak_bytes if self.config.probe_memory else None,
            peak_by_label=mem.peak_by_label if self.config.probe_memory else None,
            attention=capture.probs if capture is not None else None,
            block_tables={s.seq_id: list(s.block_table) for s in holders},
            cached_free_blocks=self.kv.pool.cached_free_blocks,
            prefix_hit_tokens=self.scheduler.num_prefix_hit_tokens,
            num_waiting=len(self.scheduler.waiting),
        )

    def _finish(self, seq: Sequence) -> RequestRecord:
        self.sampler.forget(seq.seq_id)
        self._detok.pop(seq.seq_id, None)
        text = self.tokenizer.decode(seq.output_token_ids, skip_special_tokens=True)
        record = RequestRecord(
            seq.seq_id,
            seq.prompt_token_ids,
            list(seq.output_token_ids),
            text,
            seq.arrival_time,
            list(seq.token_times),
            seq.finish_reason,
            seq.num_preemptions,
        )
        self.trace.requests.append(record)
        return record

    # --- driving loops ----------------------------------------------------------------------
    def stream(self) -> Iterator[EngineEvent]:
        """Step until every request has finished, yielding after each step."""
        while self.has_unfinished:
            yield self.step()

    def generate(self, prompt: str | list[int], params: SamplingParams | None = None, chat: bool = False) -> Trace:
        """Run one prompt to completion; the trace holds its request, steps and tokens."""
        self.add_request(prompt, params, chat)
        for _ in self.stream():
            pass
        return self.trace


def check_utf8(text: str, what: str) -> None:
    """Refuse text that is not UTF-8: bytes that were not reach Python as lone surrogates."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as e:
        code = ord(text[e.start])
        char = f"the byte 0x{code - 0xDC00:02x}" if 0xDC80 <= code <= 0xDCFF else f"U+{code:04X}"
        raise LabError(
            f"{what} is not valid UTF-8 text: character {e.start} is {char}, which is not part of any "
            f"character; check the terminal's or the file's encoding."
        ) from None


def _hold_eos(logits: torch.Tensor, seqs: list[Sequence], eos_ids) -> torch.Tensor:
    """A sequence short of its min_new_tokens cannot sample EOS yet: its EOS logits become -inf
    (in a copy: the model's logits are an inference tensor)."""
    rows = [row for row, seq in enumerate(seqs) if seq.num_output_tokens < seq.params.min_new_tokens]
    if not rows or not eos_ids:
        return logits
    held = logits.clone()
    held[torch.tensor(rows)[:, None], torch.tensor(sorted(eos_ids))] = float("-inf")
    return held


def _forced(seq: Sequence, sampled: int) -> int:
    """The token a replayed sequence must produce next, or the sampled one."""
    return sampled if seq.forced_output is None else seq.forced_output[seq.num_output_tokens]
