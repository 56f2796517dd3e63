"""Prefill and decode on separate engines: a prompt's KV cache handed from one to the other.

A prefill engine runs the prompt and samples its first token; the sequence's KV (the slots of its
prompt tokens, in the pool's storage dtype, with int8's scales) is copied out as a `KVHandoff`, and
the prefill engine lets the sequence go. A decode engine on the same weights adopts the hand-off as
a running sequence: it allocates blocks, writes the slots bit for bit, and decodes from the first
token on as if it had prefilled the prompt itself. What travels is exactly
tokens × (layers × 2 × KV heads × head dim × element bytes, plus int8's float32 scale per layer,
K/V and head): `kv_bytes_per_token` × tokens. `to_bytes` / `from_bytes` put it on a wire.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass

import torch

from engine.errors import LabError
from engine.sampling_params import SamplingParams
from engine.sched.sequence import Sequence, SequenceStatus

STORAGE = {str(d).removeprefix("torch."): d for d in (torch.float32, torch.bfloat16, torch.float16, torch.int8)}
STORAGE["float8_e4m3fn"] = torch.uint8  # fp8 travels as its bytes: CPU has no index ops for it


@dataclass
class KVHandoff:
    prompt_ids: list[int]
    first_token: int
    params: SamplingParams
    arrival: float  # perf_counter of the request's arrival at the prefill engine
    first_token_time: float
    storage: str  # the pool's element type, e.g. "float32", "int8", "float8_e4m3fn"
    kv: torch.Tensor  # (layers, 2, kv heads, tokens, head dim) as stored (fp8 as uint8)
    scales: torch.Tensor | None = None  # int8: (layers, 2, kv heads, tokens) float32
    finished: bool = False  # the first token ended it (EOS, or one token asked): nothing to decode
    first_text: str = ""  # the text the first token adds (the prefill side sends it to the client)
    seconds: float = 0.0  # the prefill engine's time from arrival to the hand-off being packed
    timing: dict | None = None  # a prefill worker's wall-clock stamps (arrived, started, packed)

    @property
    def num_tokens(self) -> int:
        return self.kv.shape[3]

    @property
    def nbytes(self) -> int:
        """Bytes of KV that travel (scales included)."""
        return self.kv.numel() * self.kv.element_size() + (self.scales.numel() * 4 if self.scales is not None else 0)

    def to_bytes(self) -> bytes:
        """One JSON header line, then the raw KV, then the scales."""
        p = self.params
        header = {
            "prompt_ids": self.prompt_ids,
            "first_token": self.first_token,
            "params": {f: getattr(p, f) for f in p.__dataclass_fields__},
            "arrival": self.arrival,
            "first_token_time": self.first_token_time,
            "storage": self.storage,
            "shape": list(self.kv.shape),
            "scales": self.scales is not None,
            "finished": self.finished,
            "seconds": self.seconds,
            "first_text": self.first_text,
            "timing": self.timing or {},
        }
        body = self.kv.contiguous().view(torch.uint8).numpy().tobytes()
        if self.scales is not None:
            body += self.scales.contiguous().numpy().tobytes()
        return json.dumps(header).encode() + b"\n" + body

    @classmethod
    def from_bytes(cls, data: bytes) -> KVHandoff:
        head, _, body = data.partition(b"\n")
        try:
            h = json.loads(head)
            dtype = STORAGE[h["storage"]]
            shape = list(h["shape"])
            n = torch.Size(shape).numel() * torch.empty((), dtype=dtype).element_size()
            raw = bytearray(body)
            kv = torch.frombuffer(raw[:n], dtype=torch.uint8).view(dtype).reshape(shape).clone()
            scales = None
            if h["scales"]:
                scales = torch.frombuffer(raw[n:], dtype=torch.float32).reshape(shape[:4]).clone()
            elif len(raw) != n:
                raise ValueError("trailing bytes")
            params = SamplingParams(**h["params"])
        except (KeyError, ValueError, TypeError, RuntimeError) as e:
            raise LabError(f"Not a KV hand-off: {e}") from None
        return cls(
            h["prompt_ids"],
            h["first_token"],
            params,
            h["arrival"],
            h["first_token_time"],
            h["storage"],
            kv,
            scales,
            h["finished"],
            h["seconds"],
            h.get("first_text", ""),
            h.get("timing") or {},
        )


def _storage_name(kv_cache) -> str:
    return str(kv_cache.storage).removeprefix("torch.")


def prefill(engine, prompt: str | list[int], params: SamplingParams, chat: bool = False) -> KVHandoff:
    """Run the prompt's prefill (all its steps, chunked or not) and its first token on `engine`, pack
    the KV of the prompt tokens, and let the sequence go. The engine must be running nothing else."""
    if engine.has_unfinished:
        raise LabError("A prefill engine hands off one request at a time: it is still running others.")
    seq = engine.add_request(prompt, params, chat)
    start, first_text = time.perf_counter(), ""
    while seq.num_output_tokens == 0 and not seq.is_finished:
        event = engine.step()
        if seq.seq_id in event.failed:  # its sampling failed: the engine dropped it; say why
            raise event.failed[seq.seq_id]
        for tok in event.tokens:
            if tok.seq_id == seq.seq_id and tok.token_id not in engine.eos_ids:
                first_text = tok.text
    T, finished = seq.num_prompt_tokens, seq.is_finished
    kv, scales = _empty(engine.kv)
    if not finished:
        slots = engine.kv.slots(seq.block_table, 0, T)
        kv = engine.kv.raw.index_select(3, slots)
        scales = engine.kv.scales.index_select(3, slots) if engine.kv.quantized else None
        engine.abort(seq)
    return KVHandoff(
        list(seq.prompt_token_ids),
        seq.output_token_ids[0],
        params,
        seq.arrival_time,
        seq.token_times[0],
        _storage_name(engine.kv),
        kv,
        scales,
        finished=finished,
        seconds=time.perf_counter() - start,
        first_text=first_text,
    )


def _empty(kv_cache) -> tuple[torch.Tensor, torch.Tensor | None]:
    """A hand-off with no KV (a request the first token finished): the right shape, no tokens."""
    raw = kv_cache.raw
    c = kv_cache.config
    kv = torch.empty(c.num_layers, 2, c.num_kv_heads, 0, c.head_dim, dtype=raw.dtype)
    return kv, (torch.empty(c.num_layers, 2, c.num_kv_heads, 0) if kv_cache.quantized else None)


def adopt(engine, h: KVHandoff) -> Sequence:
    """A running sequence on the decode `engine` with the hand-off's KV in its pool, ready to decode
    its second token; LabError when the pools differ or this pool has no room for it now."""
    kv, c = engine.kv, engine.model.config
    if h.finished:
        raise LabError("This request finished with its first token: there is nothing to decode.")
    if h.storage != _storage_name(kv):
        raise LabError(
            f"The prefill worker's KV is {h.storage} and this decode worker's {_storage_name(kv)}: start both with one --kv-dtype."
        )
    shape = (c.num_layers, 2, c.num_kv_heads, h.num_tokens, c.head_dim)
    if tuple(h.kv.shape) != shape or h.num_tokens != len(h.prompt_ids):
        raise LabError(f"The hand-off's KV has shape {tuple(h.kv.shape)}; this model's is {shape}: not the same model.")
    ids = [*h.prompt_ids, h.first_token]
    if any(not isinstance(t, int) or not 0 <= t < c.vocab_size for t in ids):
        raise LabError(f"The hand-off's token ids must be whole numbers in [0, {c.vocab_size}): not this model's.")
    need = kv.pool.blocks_for(h.num_tokens + 1)
    if not kv.pool.can_allocate(need):
        raise LabError(f"The decode worker's KV pool has {kv.pool.num_free} free blocks; this request needs {need}.")
    # The prefill side's clock is not this process's: the first token is stamped now, and the arrival
    # as long before it as the prefill side measured (its TTFT); the hand-off's own time is not in them.
    now = time.perf_counter()
    seq = Sequence(list(h.prompt_ids), h.params, now - (h.first_token_time - h.arrival))
    seq.block_table = kv.pool.allocate(need)
    slots = kv.slots(seq.block_table, 0, h.num_tokens)
    kv.raw.index_copy_(3, slots, h.kv)
    if h.scales is not None:
        kv.scales.index_copy_(3, slots, h.scales)
    seq.num_cached_tokens = h.num_tokens
    seq.output_token_ids.append(h.first_token)
    seq.token_times.append(now)
    seq.status = SequenceStatus.RUNNING
    engine.adopt(seq)
    return seq
