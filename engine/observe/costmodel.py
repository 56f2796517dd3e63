"""Analytic FLOPs and bytes moved per step, for any ModelConfig.

The same formulas label the measured charts, so they are written to be shown:
  linear FLOPs    = 2 x T x layers x (hidden x (q + 2 kv) + q x hidden + 3 x hidden x ffn)
                    + 2 x hidden x vocab per sampled row (the LM head sees the last position only)
                    - 2 x (q x hidden + 3 x hidden x ffn) per row not sampled (the last layer's output
                      product and MLP serve only the sampled rows: the others' K and V are made by then)
  attention FLOPs = 2 x 2 x layers x heads x head_dim x K       (Q K^T and P V over the visible scores)
                    K = T x P + T (T + 1) / 2 causal query-key pairs, P = C - T cached tokens
                    (L (L + 1) / 2 for a whole prompt, C for one decode token; the eager backend
                    computes the full T x C matrix and masks the rest)
  bytes moved     = weights read once per step + KV read (C tokens) + KV written (T tokens)
where T is the number of new tokens a sequence feeds and C the keys it attends to.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.config import ModelConfig
from engine.errors import LabError


@dataclass
class SeqWork:
    num_tokens: int  # T
    context_len: int  # C
    samples: int = 1  # rows of logits: 1 (a decode or a prompt's last chunk), k + 1 (a verify of k drafts), else 0


@dataclass
class StepCost:
    flops_linear: float
    flops_attention: float
    weight_bytes: float
    kv_read_bytes: float
    kv_write_bytes: float

    @property
    def flops(self) -> float:
        return self.flops_linear + self.flops_attention

    @property
    def bytes_moved(self) -> float:
        return self.weight_bytes + self.kv_read_bytes + self.kv_write_bytes

    @property
    def intensity(self) -> float:
        """Arithmetic intensity, FLOPs per byte moved."""
        return self.flops / self.bytes_moved if self.bytes_moved else 0.0


def linear_flops_per_token(c: ModelConfig) -> int:
    """All layers' projections and MLP for one token (excluding the LM head)."""
    per_layer = c.hidden_size * (c.q_size + 2 * c.kv_size) + c.q_size * c.hidden_size + 3 * c.hidden_size * c.ffn_size
    return 2 * c.num_layers * per_layer


def lm_head_flops(c: ModelConfig) -> int:
    return 2 * c.hidden_size * c.vocab_size


def last_layer_tail_flops(c: ModelConfig) -> int:
    """The last layer's output product and MLP for one token: only the rows that are sampled pay them."""
    return 2 * (c.q_size * c.hidden_size + 3 * c.hidden_size * c.ffn_size)


def causal_pairs(num_tokens: int, context_len: int) -> int:
    """Query-key pairs a causal mask leaves visible: new token i (0-based) sees P + i + 1 keys."""
    prefix = context_len - num_tokens
    return num_tokens * prefix + num_tokens * (num_tokens + 1) // 2


def attention_flops(c: ModelConfig, num_tokens: int, context_len: int) -> int:
    return 4 * c.num_layers * c.num_heads * c.head_dim * causal_pairs(num_tokens, context_len)


def chunk_flops(c: ModelConfig, num_tokens: int, start: int) -> float:
    """The FLOPs of feeding `num_tokens` tokens after `start` cached ones (a prompt chunk, or a decode
    token at start = its context before it): every layer's products and its causal attention, which
    grows with the context the chunk attends to. What the scheduler's work budget counts."""
    return float(num_tokens * linear_flops_per_token(c) + attention_flops(c, num_tokens, start + num_tokens))


def layer_weight_bytes(c: ModelConfig, dtype_bytes: int) -> int:
    """Every weight that every step reads in full: layers, final norm and the LM head matrix."""
    embed = c.vocab_size * c.hidden_size
    body = c.num_params - embed - (0 if c.tie_word_embeddings else embed)
    return (body + embed) * dtype_bytes  # the LM head matrix (tied or not) is read whole


def step_cost(
    c: ModelConfig,
    work: list[SeqWork],
    dtype_bytes: int,
    kv_dtype_bytes: int | None = None,
    weight_dtype_bytes: float | None = None,
    kv_token_bytes: int | None = None,
) -> StepCost:
    """dtype_bytes: the activations' element size; weight_dtype_bytes: the weights' when they are stored
    otherwise (1 for int8); kv_token_bytes: one token's K and V as the pool stores them (int8's
    scales included), else from kv_dtype_bytes."""
    kv_dtype_bytes = kv_dtype_bytes or dtype_bytes
    kv_token = kv_token_bytes or c.kv_bytes_per_token(kv_dtype_bytes)
    tokens = sum(w.num_tokens for w in work)
    sampled = sum(w.samples for w in work)
    return StepCost(
        flops_linear=float(
            tokens * linear_flops_per_token(c)
            + sampled * lm_head_flops(c)
            - (tokens - sampled) * last_layer_tail_flops(c)
        ),
        flops_attention=float(sum(attention_flops(c, w.num_tokens, w.context_len) for w in work)),
        weight_bytes=float(
            layer_weight_bytes(c, weight_dtype_bytes or dtype_bytes) + tokens * c.hidden_size * dtype_bytes
        ),
        kv_read_bytes=float(sum(w.context_len for w in work) * kv_token),
        kv_write_bytes=float(tokens * kv_token),
    )


# --- whole phases and the roofline ------------------------------------------------------------------
# A roofline bounds a step's rate by the slower of two ceilings: attainable FLOP/s = min(peak FLOP/s,
# intensity x bandwidth). The two meet at the ridge point, intensity = peak / bandwidth; a step left
# of it is bandwidth-bound, right of it compute-bound.


def prefill_cost(
    c: ModelConfig, prompt_len: int, dtype_bytes: int, kv_dtype_bytes: int | None = None, batch: int = 1
) -> StepCost:
    """One step that prefills `batch` prompts of `prompt_len` tokens each."""
    if prompt_len < 1 or batch < 1:
        raise LabError(
            f"A prefill needs at least one prompt of at least one token (got batch {batch}, "
            f"prompt length {prompt_len})."
        )
    return step_cost(c, [SeqWork(prompt_len, prompt_len)] * batch, dtype_bytes, kv_dtype_bytes)


def decode_cost(
    c: ModelConfig, batch: int, context_len: int, dtype_bytes: int, kv_dtype_bytes: int | None = None
) -> StepCost:
    """One decode step of `batch` sequences, each attending to `context_len` keys (its new one included)."""
    if batch < 1 or context_len < 1:
        raise LabError(f"A decode step needs batch >= 1 and context >= 1 (got {batch}, {context_len}).")
    return step_cost(c, [SeqWork(1, context_len)] * batch, dtype_bytes, kv_dtype_bytes)


def attainable_flops_per_s(intensity: float, peak_flops_per_s: float, bytes_per_s: float) -> float:
    """The roofline: min(peak, intensity x bandwidth)."""
    return min(peak_flops_per_s, intensity * bytes_per_s)


def ridge_intensity(peak_flops_per_s: float, bytes_per_s: float) -> float:
    """FLOP/byte where the bandwidth slope meets the compute roof."""
    return peak_flops_per_s / bytes_per_s


@dataclass
class Utilisation:
    """How much of each ceiling a measured step used:
    compute share   = (FLOPs / t) / peak FLOP/s
    bandwidth share = (bytes / t) / read bandwidth"""

    flops_per_s: float
    bytes_per_s: float
    compute_share: float
    bandwidth_share: float


def utilisation(cost: StepCost, seconds: float, peak_flops_per_s: float, bytes_per_s: float) -> Utilisation:
    if seconds <= 0:
        raise LabError(f"A measured step time must be positive, got {seconds} s.")
    achieved_flops, achieved_bytes = cost.flops / seconds, cost.bytes_moved / seconds
    return Utilisation(achieved_flops, achieved_bytes, achieved_flops / peak_flops_per_s, achieved_bytes / bytes_per_s)
