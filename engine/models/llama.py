"""Our own forward pass for the Llama family (Llama, SmolLM, Mistral, Qwen2 with qkv bias, Qwen3
with q/k norm), on Hugging Face weights.

The model sees a flattened batch of new tokens (N, hidden): the linear layers run on all of
them in one GEMM, attention runs per sequence against the paged KV cache (one call per sequence,
so a sequence's numbers never depend on which others share its step). Only the last
position of each sequence reaches the LM head (C5): the other positions' logits are never made,
and past the last layer's attention (their K and V are all a later token needs of them) they skip
that layer's output product and MLP too (engine/observe/costmodel.py counts it so).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.nn.functional as F

from engine.config import ModelConfig
from engine.errors import LabError
from engine.layers.activation import swiglu
from engine.layers.attention import (
    BACKENDS,
    AttentionCapture,
    decode_attention,
    future_mask,
    needs_mask,
    prefill_attention,
)
from engine.layers.gguf_weights import GGUFBlocks, GGUFLinear
from engine.layers.kernel_plan import KernelPlan
from engine.layers.kv_cache import KVCache
from engine.layers.linear import Linear
from engine.layers.norm import rms_norm
from engine.layers.quant import QuantLinear, check_format, quantize_int8
from engine.layers.rotary import apply_rope, rope_inv_freq
from engine.models.decode_path import STEP_PRODUCTS, attach_fused_step, layer_kernels
from engine.observe.memory import ATTENTION, MLP, block

ROPE_START = 4096  # positions of RoPE table built at load; it grows when a longer context comes


@dataclass
class Segment:
    """One sequence's share of a forward: tokens [start, start + num_tokens) of the flat batch."""

    start: int
    num_tokens: int  # T: new tokens this step
    context_len: int  # C: cached prefix + T, the keys each new token can see
    read_start: int | None  # first slot when the context is contiguous in the pool
    read_blocks: torch.Tensor | None  # otherwise the blocks holding the context, in order
    mask: torch.Tensor | None = None  # (T, C) future mask, built once per step when the backend needs it


@dataclass
class ForwardBatch:
    input_ids: torch.Tensor  # (N,)
    positions: torch.Tensor  # (N,)
    write_slots: torch.Tensor  # (N,) where each new token's K and V go
    write_start: int | None  # first slot when those slots are consecutive (a slice copy suffices)
    segments: list[Segment]
    logits_rows: torch.Tensor  # (S,) flat index of each sampled sequence's last token
    max_position: int = 0  # the largest position in the batch (known on the host: no device sync)


def stack_rows(parts: list) -> torch.Tensor | GGUFBlocks:
    """Weights stacked row-wise into one (q/k/v, gate/up): tensors, or a GGUF file's blocks."""
    return GGUFBlocks.cat(parts) if isinstance(parts[0], GGUFBlocks) else torch.cat(parts)


class LlamaModel:
    """Weights plus the forward. Not an nn.Module: inference only, no autograd, no hooks."""

    def __init__(
        self,
        config: ModelConfig,
        state_dict: dict[str, torch.Tensor],
        dtype: torch.dtype,
        device: str | torch.device,
        kernels: KernelPlan | None = None,
        weight_format: str = "native",
    ):
        self.config = config
        self.dtype = dtype
        self.device = torch.device(device)
        check_format(weight_format, dtype, self.device)
        # "native" (the dtype's own weights), "int8" or "w8a8" (engine/layers/quant.py), "gguf" (engine/layers/gguf_weights.py)
        self.weight_format = weight_format
        self.kernel_plan = kernels or KernelPlan("default", {})  # F.linear everywhere unless a plan says else
        self.scale = config.head_dim**-0.5
        try:
            self._load(state_dict)
        except RuntimeError as e:  # e.g. torch.cat over matrices whose sizes disagree with the config
            raise LabError(f"The weights do not fit the model's config.json: {e}") from e
        self.inv_freq = rope_inv_freq(config)
        self.cos = self.sin = self.sin_rot = torch.empty(0, config.head_dim, dtype=dtype, device=self.device)
        self.ensure_rope(min(config.max_position, ROPE_START))
        # all-decode steps in one C call, where it can run and the plan has not chosen the torch forward
        # (engine/models/decode_path.py): `fused_step` is the step, `fused` the one in use (or None)
        self.fused_step = self.fused = None
        attach_fused_step(self)

    def ensure_rope(self, num_positions: int) -> None:
        """cos/sin tables (positions, D) for at least num_positions positions, grown by doubling.
        Sized by the context used, not the config's: a 1M-context config would otherwise cost
        gigabytes of tables at load."""
        have = self.cos.shape[0]
        if num_positions <= have:
            return
        n = min(max(num_positions, 2 * have), self.config.max_position)
        freqs = torch.outer(torch.arange(n, dtype=torch.float32), self.inv_freq)
        emb = torch.cat((freqs, freqs), dim=-1)
        self.cos, self.sin = emb.cos().to(self.device, self.dtype), emb.sin().to(self.device, self.dtype)
        half = self.config.head_dim // 2
        self.sin_rot = torch.cat((-self.sin[:, :half], self.sin[:, half:]), dim=-1)  # apply_rope's signed table

    def _w(self, state: dict[str, torch.Tensor], name: str) -> torch.Tensor:
        if name not in state:
            raise LabError(f"Weights lack {name!r}: they do not match the {self.config.model_type} architecture.")
        if isinstance(state[name], GGUFBlocks):  # the gguf format's weights stay as the file holds them
            return state[name]
        return state[name].to(self.device, self.dtype)

    def _load(self, state: dict[str, torch.Tensor]) -> None:
        c = self.config
        state = {k.removeprefix("model."): v for k, v in state.items()}
        self.embed = self._w(state, "embed_tokens.weight")
        if tuple(self.embed.shape) != (c.vocab_size, c.hidden_size):
            raise LabError(f"Embedding is {tuple(self.embed.shape)}, config says ({c.vocab_size}, {c.hidden_size}).")
        self.final_norm = self._w(state, "norm.weight")
        tied = c.tie_word_embeddings or "lm_head.weight" not in state
        self.embed_q = None  # quantised formats hold the table as int8 rows (the tied LM head's own numbers)
        self.embed_blocks = None  # gguf: the file's table, de-quantised a row at a time as tokens come
        if isinstance(self.embed, GGUFBlocks):
            self.embed_blocks, self.embed = self.embed, None
            self.lm_head = GGUFLinear(self.embed_blocks if tied else self._w(state, "lm_head.weight"))
        elif self.weight_format in ("int8", "w8a8"):
            self.embed_q = quantize_int8(self.embed)
            head = self.embed_q if tied and self.weight_format == "int8" else None
            self.lm_head = QuantLinear(
                self.embed if tied else self._w(state, "lm_head.weight"),
                None,
                self.weight_format,
                self.kernel_plan.kernels((c.vocab_size, c.hidden_size)),
                quantized=head,
            )
            self.embed = None
        else:
            self.lm_head = self._linear(self.embed if tied else self._w(state, "lm_head.weight"))
        self.layers = []
        for i in range(c.num_layers):
            p = f"layers.{i}."
            a = p + "self_attn."
            layer = {
                "attn_norm": self._w(state, p + "input_layernorm.weight"),
                "mlp_norm": self._w(state, p + "post_attention_layernorm.weight"),
                # q, k, v fused into one GEMM; gate and up into another (fewer, larger matmuls)
                "qkv": self._linear(
                    stack_rows([self._w(state, a + f"{n}_proj.weight") for n in "qkv"]),
                    torch.cat([self._w(state, a + f"{n}_proj.bias") for n in "qkv"]) if c.qkv_bias else None,
                    in_step=True,
                ),
                "o": self._linear(self._w(state, a + "o_proj.weight"), in_step=True),
                "gate_up": self._linear(
                    stack_rows([self._w(state, p + "mlp.gate_proj.weight"), self._w(state, p + "mlp.up_proj.weight")]),
                    in_step=True,
                ),
                "down": self._linear(self._w(state, p + "mlp.down_proj.weight"), in_step=True),
                "q_norm": self._w(state, a + "q_norm.weight") if c.qk_norm else None,
                "k_norm": self._w(state, a + "k_norm.weight") if c.qk_norm else None,
            }
            if layer["qkv"].out_features != c.q_size + 2 * c.kv_size:
                raise LabError(
                    f"Layer {i}: q/k/v weights have {layer['qkv'].out_features} rows; the config "
                    f"implies {c.q_size + 2 * c.kv_size}."
                )
            self.layers.append(layer)

    def _linear(
        self, weight: torch.Tensor, bias: torch.Tensor | None = None, in_step: bool = False
    ) -> Linear | QuantLinear | GGUFLinear:
        """in_step: one of a layer's products (STEP_PRODUCTS), which the one-call decode step runs."""
        if isinstance(weight, GGUFBlocks):
            return GGUFLinear(weight, bias)
        if self.weight_format == "gguf":
            raise LabError("gguf weights are a GGUF file's own blocks; this model's weights are float tensors.")
        shape = tuple(weight.shape)
        kernels, spare = layer_kernels(self.kernel_plan, self.weight_format, shape) if in_step else (None, ())
        own = self.kernel_plan.kernels(shape)
        if self.weight_format == "native":
            lin = Linear(weight, bias, kernels or own, spare)
        else:
            lin = QuantLinear(weight, bias, self.weight_format, kernels or own, spare=spare)
        if kernels and kernels[0] != own[0] and lin.decode_kernel == kernels[0]:
            lin.own_decode_kernel = own[0]  # on the C kernel for the one-call step; its own choice was another
        return lin

    def linears(self) -> dict[str, Linear | QuantLinear]:
        """One linear of each kind (every layer has the same shapes), for the kernel report."""
        return {name: self.layers[0][name] for name in STEP_PRODUCTS} | {"lm_head": self.lm_head}

    @property
    def weight_bytes(self) -> int:
        """Bytes of every weight (a tied LM head counted once, as in the checkpoint)."""
        norms = [self.final_norm] + [
            t
            for layer in self.layers
            for t in (layer["attn_norm"], layer["mlp_norm"], layer["q_norm"], layer["k_norm"])
            if t is not None
        ]
        linears = [layer[k] for layer in self.layers for k in ("qkv", "o", "gate_up", "down")]
        if not self.config.tie_word_embeddings or self.weight_format != "native":  # a quantised head is its own copy
            linears.append(self.lm_head)
        if self.embed_blocks is not None:
            embed = [self.embed_blocks.raw]
        else:
            embed = [self.embed] if self.embed is not None else list(self.embed_q)
        # int8's tied head, gguf's: the table's own numbers, one copy in the checkpoint
        shared = (self.embed_q is not None and self.lm_head.q is self.embed_q[0]) or (
            self.embed_blocks is not None and self.config.tie_word_embeddings
        )
        return (
            sum(t.numel() * t.element_size() for t in embed + norms)
            + sum(lin.num_bytes for lin in linears)
            - (self.lm_head.num_bytes if shared else 0)
        )

    @property
    def weight_elem_bytes(self) -> float:
        """Bytes per element of the linear weights as a forward reads them (1 for int8 formats, 5/8 for
        gguf's Q4_1 layers)."""
        if self.weight_format == "gguf":
            first = self.layers[0]["gate_up"]
            return first.num_bytes / (first.out_features * first.in_features)
        return self.dtype.itemsize if self.weight_format == "native" else 1

    def embed_tokens(self, ids: torch.Tensor) -> torch.Tensor:
        if self.embed_blocks is not None:
            return self.embed_blocks.dequantize(ids.reshape(-1)).reshape(*ids.shape, -1)
        if self.embed_q is None:
            return F.embedding(ids, self.embed)
        q, scale = self.embed_q
        return (F.embedding(ids, q).float() * scale[ids, None]).to(self.dtype)

    @torch.inference_mode()
    def forward(
        self, batch: ForwardBatch, kv: KVCache, backend: str, capture: AttentionCapture | None = None
    ) -> torch.Tensor:
        """Returns fp32 logits (S, vocab) for the last token of each sampled sequence."""
        if backend not in BACKENDS:
            raise LabError(f"Unknown attention backend {backend!r}; choose one of {', '.join(BACKENDS)}.")
        c = self.config
        for seg in batch.segments:
            if needs_mask(backend, seg.num_tokens, seg.context_len):
                seg.mask = future_mask(seg.num_tokens, seg.context_len, self.device)
        self.ensure_rope(batch.max_position + 1)
        h = self.embed_tokens(batch.input_ids)  # (N, hidden)
        if self.fused is not None and self.fused.takes(batch, kv, capture):
            return self._logits(self.fused.run(self, batch, kv, h)[batch.logits_rows])  # every row is sampled
        cos = self.cos[batch.positions].unsqueeze(1)  # (N, 1, D)
        sin = self.sin_rot[batch.positions].unsqueeze(1)
        last_layer = len(self.layers) - 1
        for i, layer in enumerate(self.layers):
            # past the last attention only the sampled rows matter: the rest skip o and the MLP (the left
            # operand is taken first, so the norm still sees every row)
            rows = batch.logits_rows if i == last_layer else None
            h = (h if rows is None else h[rows]) + self._attention_out(
                i, layer, rms_norm(h, layer["attn_norm"], c.rms_norm_eps), cos, sin, batch, kv, backend, capture, rows
            )
            h = h + self._mlp(layer, rms_norm(h, layer["mlp_norm"], c.rms_norm_eps))
        return self._logits(h)

    # Each block returns its output only: its temporaries are gone when the next block runs, which is what
    # lets a memory probe's peak say which block it happened in (engine/memory.block).
    def _attention_out(self, i, layer, x, cos, sin, batch, kv, backend, capture, rows) -> torch.Tensor:
        with block(ATTENTION):
            att = self._attention(i, layer, x, cos, sin, batch, kv, backend, capture)
            return layer["o"](att if rows is None else att[rows])

    def _mlp(self, layer: dict, x: torch.Tensor) -> torch.Tensor:
        with block(MLP):
            return layer["down"](swiglu(layer["gate_up"], x))

    def _logits(self, last: torch.Tensor) -> torch.Tensor:
        """(S, vocab) float32 from the sampled rows' hidden states: only they reach the LM head (C5)."""
        return self.lm_head(rms_norm(last, self.final_norm, self.config.rms_norm_eps)).float()

    def _attention(
        self,
        i: int,
        layer: dict,
        x: torch.Tensor,
        cos,
        sin,
        batch: ForwardBatch,
        kv: KVCache,
        backend: str,
        capture: AttentionCapture | None,
    ) -> torch.Tensor:
        """The attention block up to its output product: (N, heads x head_dim)."""
        c = self.config
        N, H, n_kv = x.shape[0], c.num_heads, c.num_kv_heads
        qkv = layer["qkv"](x)  # (N, (H + 2 n_kv) D)
        qk = qkv[:, : c.q_size + c.kv_size].view(N, H + n_kv, c.head_dim)
        if layer["q_norm"] is not None:  # Qwen3 normalises q and k per head before RoPE
            qk = torch.cat(
                [
                    rms_norm(qk[:, :H], layer["q_norm"], c.rms_norm_eps),
                    rms_norm(qk[:, H:], layer["k_norm"], c.rms_norm_eps),
                ],
                dim=1,
            )
        qk = apply_rope(qk, cos, sin).transpose(0, 1).unsqueeze(0)  # (1, H + n_kv, N, D): q and k in one go
        q, k = qk[:, :H], qk[:, H:]
        v = qkv[:, c.q_size + c.kv_size :].view(N, n_kv, c.head_dim).transpose(0, 1).unsqueeze(0)  # (1, n_kv, N, D)
        kv.write(i, batch.write_start, batch.write_slots, k, v)  # the new tokens' K and V enter the cache
        if len(batch.segments) == 1:  # one sequence: no slicing, no scatter
            out = self._attend(batch.segments[0], i, q, k, v, kv, backend, capture)
        else:
            out = torch.empty_like(q)
            for n, seg in enumerate(batch.segments):
                rows = slice(seg.start, seg.start + seg.num_tokens)
                out[:, :, rows] = self._attend(
                    seg, i, q[:, :, rows], k[:, :, rows], v[:, :, rows], kv, backend, capture if n == 0 else None
                )
        return out[0].transpose(0, 1).reshape(N, c.q_size)

    def _attend(
        self, seg: Segment, i: int, q, k, v, kv: KVCache, backend: str, capture: AttentionCapture | None
    ) -> torch.Tensor:
        """One sequence: q (1, H, T, D) against its context; k, v are its fresh (1, n_kv, T, D)."""
        if seg.num_tokens != seg.context_len:  # a chunk or a decode: the whole context comes from the cache
            k, v = kv.read(i, seg.read_start, seg.read_blocks, seg.context_len)
        if seg.num_tokens == 1 and seg.context_len > 1:
            return decode_attention(q, k, v, backend, self.scale, capture, i)
        return prefill_attention(q, k, v, backend, self.scale, seg.mask, capture, i)


def linear_shapes(c: ModelConfig) -> list[tuple[int, int]]:
    """(out, in) of every distinct linear weight: qkv and gate/up fused as the model holds them."""
    return [
        (c.q_size + 2 * c.kv_size, c.hidden_size),
        (c.hidden_size, c.q_size),
        (2 * c.ffn_size, c.hidden_size),
        (c.hidden_size, c.ffn_size),
        (c.vocab_size, c.hidden_size),
    ]
