"""Turns a scheduled batch into the model's flat input tensors and runs one forward."""

from __future__ import annotations

import torch

from engine.layers.attention import AttentionCapture
from engine.layers.kv_cache import KVCache
from engine.models.llama import ForwardBatch, LlamaModel, Segment
from engine.sched.scheduler import ScheduledSeq


class ModelRunner:
    def __init__(self, model: LlamaModel, kv: KVCache, backend: str):
        self.model = model
        self.kv = kv
        self.backend = backend

    def prepare(self, batch: list[ScheduledSeq]) -> ForwardBatch:
        ids, positions, write_slots, segments, logits_rows = [], [], [], [], []
        offset = 0
        for item in batch:
            seq, start, n = item.seq, item.start, item.num_tokens
            ctx = item.context_len
            ids.extend((seq.token_ids + item.draft)[start:ctx])
            positions.append(torch.arange(start, ctx))
            write_slots.append(self.kv.slots(seq.block_table, start, ctx))
            read_start = self.kv.contiguous_start(seq.block_table, ctx)
            read_blocks = (
                None
                if read_start is not None
                else torch.tensor(seq.block_table[: self.kv.pool.blocks_for(ctx)], dtype=torch.long)
            )
            segments.append(Segment(offset, n, ctx, read_start, read_blocks))
            if item.samples:  # a verify step: one row per drafted token and one after them
                logits_rows.extend(range(offset + n - 1 - len(item.draft), offset + n))
            offset += n
        dev = self.model.device
        slots = torch.cat(write_slots)
        first = int(slots[0])
        consecutive = bool((slots == torch.arange(first, first + len(slots))).all())
        return ForwardBatch(
            input_ids=torch.tensor(ids, dtype=torch.long, device=dev),
            positions=torch.cat(positions).to(dev),
            write_slots=slots.to(dev),
            write_start=first if consecutive else None,
            segments=[self._to_device(s, dev) for s in segments],
            logits_rows=torch.tensor(logits_rows, dtype=torch.long, device=dev),
            max_position=max(item.context_len for item in batch) - 1,
        )

    @staticmethod
    def _to_device(seg: Segment, dev: torch.device) -> Segment:
        if seg.read_blocks is not None:
            seg.read_blocks = seg.read_blocks.to(dev)
        return seg

    def run(self, batch: list[ScheduledSeq], capture: AttentionCapture | None = None) -> torch.Tensor:
        """fp32 logits (a row per sampled sequence, 1 + its draft's length when it has one; vocab), in
        batch order."""
        return self.model.forward(self.prepare(batch), self.kv, self.backend, capture)
