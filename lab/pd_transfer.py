"""What handing a prompt's KV cache from a prefill worker to a decode worker costs on real hardware:
the bytes (the same formula the engine's hand-off moves, engine/core/kv_transfer.py), the time on a link,
and whether that time hides behind the prefill that produced them (the roofline projection's TTFT on
a datasheet GPU). A transfer shorter than its prefill can overlap with it layer by layer (DistServe,
Mooncake); a longer one adds to TTFT.

    bytes   = prompt tokens × layers × 2 × KV heads × head dim × bytes per element (+ int8's scales)
    MLA     = prompt tokens × layers × (latent rank + RoPE key dim) × bytes per element: one compressed
              latent per token and layer instead of K and V per head (DeepSeek-V2/V3)
    seconds = bytes ÷ link bandwidth (one direction)
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.config import PRESETS, ModelConfig
from engine.errors import LabError
from lab.projection import GPU_PRESETS, predict_ttft

GIGA = 1e9
# One direction's bandwidth in bytes per second, as the specifications state it.
LINKS: dict[str, float] = {
    "25 GbE": 25 / 8 * GIGA,  # 25 Gb/s Ethernet
    "InfiniBand HDR 100 Gb/s": 100 / 8 * GIGA,
    "InfiniBand NDR 400 Gb/s": 400 / 8 * GIGA,
    "PCIe 4.0 x16": 32 * GIGA,  # 16 GT/s × 16 lanes, 128b/130b: ~31.5 GB/s
    "PCIe 5.0 x16": 64 * GIGA,
    "NVLink 4 (H100, per direction)": 450 * GIGA,  # 900 GB/s total, both directions
}
KV_ELEMENT_BYTES = {"float32": 4, "bfloat16": 2, "fp8": 1, "int8": 1}


@dataclass(frozen=True)
class MlaCache:
    """A multi-head latent attention model's cache: per token and layer one vector of `latent` numbers."""

    layers: int
    latent: int  # kv_lora_rank + qk_rope_head_dim


# From the published config.json: 61 layers, kv_lora_rank 512, qk_rope_head_dim 64.
MLA_PRESETS: dict[str, MlaCache] = {"DeepSeek-V3 (MLA)": MlaCache(61, 512 + 64)}


def _check(prompt_len: int, kv_dtype: str) -> None:
    if kv_dtype not in KV_ELEMENT_BYTES:
        raise LabError(f"Unknown KV dtype {kv_dtype!r}; choose one of {', '.join(KV_ELEMENT_BYTES)}.")
    if prompt_len < 1:
        raise LabError(f"A prompt has at least one token, got {prompt_len}.")


def mla_transfer_bytes(m: MlaCache, prompt_len: int, kv_dtype: str = "bfloat16") -> int:
    """Bytes of an MLA cache a prompt hands over (int8: one float32 scale per token and layer)."""
    _check(prompt_len, kv_dtype)
    per_token = m.layers * m.latent * KV_ELEMENT_BYTES[kv_dtype] + (4 * m.layers if kv_dtype == "int8" else 0)
    return prompt_len * per_token


def kv_transfer_bytes(c: ModelConfig, prompt_len: int, kv_dtype: str = "bfloat16") -> int:
    """Bytes of KV a prompt of prompt_len tokens hands over (int8 with one float32 scale per token,
    layer, K/V and KV head, as the engine stores it)."""
    _check(prompt_len, kv_dtype)
    per_token = c.kv_bytes_per_token(KV_ELEMENT_BYTES[kv_dtype])
    if kv_dtype == "int8":
        per_token += 2 * c.num_layers * c.num_kv_heads * 4
    return prompt_len * per_token


@dataclass(frozen=True)
class TransferRow:
    link: str
    bytes: int
    transfer_s: float
    prefill_s: float  # the projected prefill (TTFT) of the same prompt on the GPU

    @property
    def hides(self) -> bool:
        """The transfer fits inside the prefill's time: overlapped layer by layer, it adds ~nothing."""
        return self.transfer_s <= self.prefill_s


def transfer_rows(c: ModelConfig, prompt_len: int, gpu: str, kv_dtype: str = "bfloat16") -> list[TransferRow]:
    """Every link against the prefill of the same prompt on `gpu` (bf16 weights, default efficiency)."""
    g = GPU_PRESETS[gpu]
    prefill_s = predict_ttft(c, prompt_len, g.peak_flops_per_s, g.bytes_per_s).seconds
    n = kv_transfer_bytes(c, prompt_len, kv_dtype)
    return [TransferRow(name, n, n / bw, prefill_s) for name, bw in LINKS.items()]


def calculator_models() -> list[str]:
    """The calculator's models: the dense presets, then the MLA ones."""
    return [*PRESETS, *MLA_PRESETS]


def calculator(model: str, prompt_len: int, gpu: str, kv_dtype: str) -> tuple[int, list[TransferRow] | None, list]:
    """(bytes, rows against the projected prefill or None for an MLA model, [(link, seconds)])."""
    if model in MLA_PRESETS:
        n = mla_transfer_bytes(MLA_PRESETS[model], prompt_len, kv_dtype)
        return n, None, [(name, n / bw) for name, bw in LINKS.items()]
    rows = transfer_rows(PRESETS[model], prompt_len, gpu, kv_dtype)
    return rows[0].bytes, rows, [(r.link, r.transfer_s) for r in rows]
