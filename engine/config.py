"""Model and engine configuration.

`ModelConfig` describes a Llama-family transformer (Llama, SmolLM, Qwen2, Qwen3, Mistral): enough
to run it, to size its KV cache and to count its FLOPs. It is read from a Hugging Face
`config.json`; `PRESETS` holds famous models for the analytic pages (no weights needed).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

import torch

from engine.errors import LabError

SUPPORTED_MODEL_TYPES = ("llama", "mistral", "qwen2", "qwen3")
SIZE_FIELDS = (
    "num_hidden_layers",
    "hidden_size",
    "num_attention_heads",
    "intermediate_size",
    "vocab_size",
    "num_key_value_heads",
    "head_dim",
    "max_position_embeddings",
)
OPTIONAL_SIZES = ("num_key_value_heads", "head_dim")  # null means "derive it", as transformers reads them
SUPPORTED_ROPE_TYPES = ("default", "linear", "llama3")
# What each RoPE scaling divides by or counts with: each must be a positive number (a factor of 0
# scaled every frequency to infinity, and the model said token 0 forever; a text raised TypeError).
ROPE_NUMBERS = {
    "linear": ("factor",),
    "llama3": ("factor", "low_freq_factor", "high_freq_factor", "original_max_position_embeddings"),
}
DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}
DTYPE_ALIASES = {"fp32": "float32", "bf16": "bfloat16", "fp16": "float16", "half": "float16"}


def parse_dtype(name: str | torch.dtype) -> torch.dtype:
    """'fp32' / 'float32' / torch.float32 -> torch.float32; a clear ValueError otherwise."""
    if isinstance(name, torch.dtype):
        if name not in DTYPES.values():
            raise LabError(f"Unsupported dtype {name}; choose one of {', '.join(DTYPES)}.")
        return name
    key = DTYPE_ALIASES.get(str(name).lower(), str(name).lower())
    if key not in DTYPES:
        raise LabError(f"Unknown dtype {name!r}; choose one of {', '.join(DTYPES)} (or fp32/bf16/fp16).")
    return DTYPES[key]


def dtype_name(dtype: torch.dtype) -> str:
    return str(dtype).removeprefix("torch.")


@dataclass
class ModelConfig:
    name: str
    num_layers: int
    hidden_size: int
    num_heads: int
    num_kv_heads: int
    head_dim: int
    ffn_size: int
    vocab_size: int
    max_position: int = 4096
    rope_theta: float = 10000.0
    rope_scaling: dict | None = None
    rms_norm_eps: float = 1e-6
    qkv_bias: bool = False
    qk_norm: bool = False  # Qwen3: RMSNorm over head_dim on q and k before RoPE
    tie_word_embeddings: bool = False
    model_type: str = "llama"
    bos_token_id: int | None = None
    eos_token_ids: list[int] = field(default_factory=list)

    def __post_init__(self):
        for name in (
            "num_layers",
            "hidden_size",
            "num_heads",
            "num_kv_heads",
            "head_dim",
            "ffn_size",
            "vocab_size",
            "max_position",
        ):
            if int(getattr(self, name)) <= 0:
                raise LabError(f"Model config {self.name!r}: {name} must be positive, got {getattr(self, name)}.")
        if self.num_heads % self.num_kv_heads:
            raise LabError(
                f"Model config {self.name!r}: num_heads ({self.num_heads}) must be a multiple of "
                f"num_kv_heads ({self.num_kv_heads})."
            )
        if self.model_type not in SUPPORTED_MODEL_TYPES:
            raise LabError(
                f"Model type {self.model_type!r} is not supported; this engine runs {', '.join(SUPPORTED_MODEL_TYPES)}."
            )
        self._check_rope()

    def _check_rope(self) -> None:
        scaling = self.rope_scaling or {}
        rope_type = scaling.get("rope_type", "default")
        if rope_type not in SUPPORTED_ROPE_TYPES:
            raise LabError(
                f"RoPE scaling {rope_type!r} is not supported; supported: {', '.join(SUPPORTED_ROPE_TYPES)}."
            )
        for key in ROPE_NUMBERS.get(rope_type, ()):
            value = scaling.get(key)
            if not _is_positive_number(value):
                got = "nothing" if value is None else json.dumps(value)
                raise LabError(
                    f"Model config {self.name!r}: RoPE scaling {rope_type!r} needs rope_parameters.{key} to be a "
                    f"positive number, got {got}."
                )
        if rope_type == "llama3" and scaling["high_freq_factor"] <= scaling["low_freq_factor"]:
            raise LabError(
                f"Model config {self.name!r}: RoPE scaling 'llama3' needs high_freq_factor above low_freq_factor, "
                f"got {scaling['high_freq_factor']} and {scaling['low_freq_factor']}."
            )

    # Derived sizes used by the KV accounting, the cost model and the UI formulas.
    @property
    def q_size(self) -> int:
        return self.num_heads * self.head_dim

    @property
    def kv_size(self) -> int:
        return self.num_kv_heads * self.head_dim

    @property
    def num_params(self) -> int:
        attn = self.hidden_size * (self.q_size + 2 * self.kv_size) + self.q_size * self.hidden_size
        if self.qkv_bias:
            attn += self.q_size + 2 * self.kv_size
        if self.qk_norm:
            attn += 2 * self.head_dim
        mlp = 3 * self.hidden_size * self.ffn_size
        per_layer = attn + mlp + 2 * self.hidden_size
        embed = self.vocab_size * self.hidden_size
        head = 0 if self.tie_word_embeddings else embed
        return self.num_layers * per_layer + embed + head + self.hidden_size

    def kv_bytes_per_token(self, dtype_bytes: int) -> int:
        """2 (K and V) x layers x kv_heads x head_dim x bytes per element."""
        return 2 * self.num_layers * self.num_kv_heads * self.head_dim * dtype_bytes

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_hf_dict(cls, d: dict, name: str = "model") -> ModelConfig:
        """Build from a Hugging Face config.json dict (transformers 4.x or 5.x layout); ValueError naming
        the field for anything that is not one (a list, a null or a text where a size belongs)."""
        if not isinstance(d, dict):
            raise LabError(f"config.json of {name!r} should hold a JSON object {{...}}, not a {type(d).__name__}.")
        model_type = d.get("model_type", "llama")
        if model_type not in SUPPORTED_MODEL_TYPES:
            raise LabError(
                f"Model type {model_type!r} is not supported; this engine runs "
                f"{', '.join(SUPPORTED_MODEL_TYPES)} (Llama-family) models."
            )
        missing = [
            k
            for k in ("num_hidden_layers", "hidden_size", "num_attention_heads", "intermediate_size", "vocab_size")
            if k not in d
        ]
        if missing:
            raise LabError(f"config.json of {name!r} lacks {', '.join(missing)}.")
        for key in SIZE_FIELDS:
            value = d.get(key)
            if (key in d and key in OPTIONAL_SIZES and value is None) or key not in d:
                continue
            if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
                raise LabError(
                    f"config.json of {name!r}: {key} should be a positive whole number, got {json.dumps(value)}."
                )
        _check_kinds(d, name)
        heads = d["num_attention_heads"]
        rope = dict(d.get("rope_parameters") or d.get("rope_scaling") or {})
        rope_theta = rope.pop("rope_theta", None) or d.get("rope_theta", 10000.0)
        if "type" in rope and "rope_type" not in rope:
            rope["rope_type"] = rope.pop("type")
        if rope.get("rope_type", "default") == "default":
            rope = {}
        eos = d.get("eos_token_id")
        eos_ids = [] if eos is None else ([eos] if isinstance(eos, int) else list(eos))
        return cls(
            name=name,
            num_layers=d["num_hidden_layers"],
            hidden_size=d["hidden_size"],
            num_heads=heads,
            num_kv_heads=d.get("num_key_value_heads") or heads,
            head_dim=d.get("head_dim") or d["hidden_size"] // heads,
            ffn_size=d["intermediate_size"],
            vocab_size=d["vocab_size"],
            max_position=d.get("max_position_embeddings", 4096),
            rope_theta=float(rope_theta),
            rope_scaling=rope or None,
            rms_norm_eps=d.get("rms_norm_eps", 1e-6),
            qkv_bias=model_type == "qwen2" or bool(d.get("attention_bias", False)),
            qk_norm=model_type == "qwen3",
            tie_word_embeddings=bool(d.get("tie_word_embeddings", False)),
            model_type=model_type,
            bos_token_id=d.get("bos_token_id"),
            eos_token_ids=eos_ids,
        )

    @classmethod
    def from_json(cls, path: str | Path, name: str | None = None) -> ModelConfig:
        path = Path(path)
        try:
            d = json.loads(path.read_text())
        except (OSError, json.JSONDecodeError) as e:
            raise LabError(f"Cannot read model config {path}: {e}") from e
        except ValueError as e:  # valid JSON that Python will not read: a number of over 4,300 digits
            raise LabError(f"Cannot read model config {path}: it holds a number too long to read ({e}).") from None
        return cls.from_hf_dict(d, name=name or path.parent.name)


def _preset(name, layers, hidden, heads, kv_heads, ffn, vocab, max_pos, theta, tie=False) -> ModelConfig:
    return ModelConfig(
        name=name,
        num_layers=layers,
        hidden_size=hidden,
        num_heads=heads,
        num_kv_heads=kv_heads,
        head_dim=hidden // heads,
        ffn_size=ffn,
        vocab_size=vocab,
        max_position=max_pos,
        rope_theta=theta,
        tie_word_embeddings=tie,
    )


# Famous models, from their published config.json files; used by the analytic pages only.
PRESETS: dict[str, ModelConfig] = {
    c.name: c
    for c in [
        _preset("LLaMA-7B", 32, 4096, 32, 32, 11008, 32000, 2048, 10000.0),
        _preset("Llama-2-7B", 32, 4096, 32, 32, 11008, 32000, 4096, 10000.0),
        _preset("Llama-3-8B", 32, 4096, 32, 8, 14336, 128256, 8192, 500000.0),
        _preset("Qwen2.5-7B", 28, 3584, 28, 4, 18944, 152064, 32768, 1000000.0),
        _preset("Llama-2-70B", 80, 8192, 64, 8, 28672, 32000, 4096, 10000.0),
        _preset("Llama-3-70B", 80, 8192, 64, 8, 28672, 128256, 8192, 500000.0),
        _preset("SmolLM2-135M", 30, 576, 9, 3, 1536, 49152, 8192, 100000.0, tie=True),
    ]
}
PRESETS["Qwen2.5-7B"].qkv_bias = True
PRESETS["Qwen2.5-7B"].model_type = "qwen2"


def _is_id(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and v >= 0


def _is_positive_number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0 and v == v and v != float("inf")


# field -> (what it should be, the check); a field that is absent or null takes its default
KIND_RULES = {
    "eos_token_id": (
        "a token id or a list of token ids",
        lambda v: _is_id(v) or (isinstance(v, list) and all(_is_id(x) for x in v)),
    ),
    "bos_token_id": ("a token id", _is_id),
    "rope_parameters": ("an object {...}", lambda v: isinstance(v, dict)),
    "rope_scaling": ("an object {...}", lambda v: isinstance(v, dict)),
    "rope_theta": ("a positive number", _is_positive_number),
    "rms_norm_eps": ("a positive number", _is_positive_number),
    "tie_word_embeddings": ("true or false", lambda v: isinstance(v, bool)),
    "attention_bias": ("true or false", lambda v: isinstance(v, bool)),
}


def _check_kinds(d: dict, name: str) -> None:
    """Name the field and the file for a value of the wrong kind (it would fail later, unnamed)."""
    for key, (should, ok) in KIND_RULES.items():
        value = d.get(key)
        if value is not None and not ok(value):
            raise LabError(f"config.json of {name!r}: {key} should be {should}, got {json.dumps(value)}.")
    rope = d.get("rope_parameters") or d.get("rope_scaling") or {}
    theta = rope.get("rope_theta")
    if theta is not None and not _is_positive_number(theta):
        raise LabError(
            f"config.json of {name!r}: rope_parameters.rope_theta should be a positive number, got {json.dumps(theta)}."
        )
