"""Our own C kernels (engine/kernels/csrc/): decode-sized matrix products on weights packed for streaming
(gemv.c; also the gate/up product with SiLU(gate) * up applied as it comes), RMSNorm in one pass
(norm.c), SiLU-times-up and RoPE in one pass each (pointwise.c), a prefill's causal attention
(attention.c), and a whole decode step's layers in one call (decode.c, driven by
engine/models/fused_decode.py).

The sources are compiled here, once per machine, with the system's C compiler (`-O3 -march=native
-fopenmp`) into the cache folder, and loaded with ctypes. It is an option, never a requirement: with
no compiler, a failed build, or PDLAB_NATIVE=0, `library()` is None and the kernel is simply not a
candidate (engine/loader/kernel_timing.py times it against oneDNN and MKL where it exists, as every kernel).
Where the build failed, `build_error()` says why. CPU, float32 activations only.
"""

from __future__ import annotations

import ctypes
import hashlib
import logging
import os
import shlex
import shutil
import subprocess
import threading
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path

import torch

from engine.observe.machine import cpu_capability, cpu_flags, cpu_model
from engine.paths import cache_dir

SOURCES = [
    Path(__file__).parent / "csrc" / name
    for name in ("block.h", "expv.h", "gemv.c", "gguf.c", "norm.c", "pointwise.c", "decode.c", "attention.c")
]
# -fopenmp: the loops run on torch's own libgomp (the process has loaded it; the soname matches)
FLAGS = ["-O3", "-march=native", "-fopenmp", "-shared", "-fPIC", "-std=gnu11", "-Wno-psabi"]
DISABLE_ENV = "PDLAB_NATIVE"
# more compiler flags, e.g. -mno-avx512f: the AVX2 build on an AVX-512 machine (the tests run both)
FLAGS_ENV = "PDLAB_NATIVE_FLAGS"
BLOCK = 16  # output rows per packed block, as in the C source

log = logging.getLogger(__name__)
_lock = threading.Lock()
_state: dict[str, object] = {}  # "lib": the loaded library or None, "error": why not


def _compiler() -> str | None:
    return os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")


def extra_flags() -> list[str]:
    """The compiler flags PDLAB_NATIVE_FLAGS adds (a build of other code: its timings are its own)."""
    return shlex.split(os.environ.get(FLAGS_ENV, ""))


def _flags() -> list[str]:
    return FLAGS + extra_flags()


def _library_path(cc: str) -> Path:
    """One file per source, flags, compiler and CPU: -march=native code must not run on another CPU."""
    version = subprocess.run([cc, "--version"], capture_output=True, text=True, timeout=30).stdout
    key = "\n".join(
        [*(f.read_text() for f in SOURCES), " ".join(_flags()), version, cpu_model(), cpu_capability(), cpu_flags()]
    )
    return cache_dir() / "native" / f"gemv-{hashlib.sha256(key.encode()).hexdigest()[:16]}.so"


def _build() -> ctypes.CDLL:
    cc = _compiler()
    if cc is None:
        raise OSError("no C compiler (cc or gcc) on PATH")
    path = _library_path(cc)
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        done = subprocess.run(
            [cc, *_flags(), *(str(f) for f in SOURCES if f.suffix == ".c"), "-o", str(tmp), "-lm"],
            capture_output=True,
            text=True,
            timeout=300,
        )
        if done.returncode != 0:
            tmp.unlink(missing_ok=True)
            raise OSError(f"{cc} failed: {done.stderr.strip()[-400:]}")
        tmp.replace(path)  # atomic: a second process never loads half a file
    lib = ctypes.CDLL(str(path))
    p, n, i = ctypes.c_void_p, ctypes.c_long, ctypes.c_int
    lib.gemv_f32.argtypes = [p, p, p, p, n, n, n, i]
    lib.gemv_i8.argtypes = [p, p, p, p, p, n, n, n, i]
    lib.rms_norm_f32.argtypes = [p, p, p, n, n, ctypes.c_float, i]
    lib.decode_layers.argtypes = [p, p, p, p, p, n, i]
    lib.decode_scratch_floats.argtypes = [p, n]
    lib.attention_prefill.argtypes = [p, n, n, p, n, n, p, n, n, p, n, n, n, n, n, n, n, ctypes.c_float, p, p, i]
    lib.attention_prefill.restype = i
    lib.silu_mul_f32.argtypes = [p, p, n, n, i]
    lib.gemv_silu_f32.argtypes = [p, p, p, n, n, n, p, i]
    lib.gemv_quant.argtypes, lib.gemv_quant.restype = [p, i, p, p, p, n, n, n, i], None
    lib.gemv_quant_silu.argtypes, lib.gemv_quant_silu.restype = [p, i, p, p, n, n, n, p, p, i], None
    lib.rope_f32.argtypes = [p, n, p, n, n, n, p, p, n, i]
    lib.silu_mul_f32.restype = lib.rope_f32.restype = lib.gemv_silu_f32.restype = None
    lib.vector_lanes.argtypes, lib.vector_lanes.restype = [], i
    lib.decode_scratch_floats.restype = n
    lib.gemv_f32.restype = lib.gemv_i8.restype = lib.rms_norm_f32.restype = lib.decode_layers.restype = None
    return lib


def library() -> ctypes.CDLL | None:
    """The compiled kernels, built on first use; None where they cannot be (build_error says why)."""
    with _lock:
        if "lib" not in _state:
            if os.environ.get(DISABLE_ENV, "").strip() == "0":
                _state.update(lib=None, error=f"{DISABLE_ENV}=0")
            else:
                try:
                    _state.update(lib=_build(), error=None)
                except (OSError, subprocess.SubprocessError) as exc:
                    log.warning("native kernels unavailable: %s", exc)
                    _state.update(lib=None, error=str(exc))
        return _state["lib"]


def build_error() -> str | None:
    library()
    return _state["error"]


def vector_lanes() -> int | None:
    """Floats per vector the kernels were built for: 16 (AVX-512), 8 (AVX2), else 4; None unbuilt."""
    lib = library()
    return lib.vector_lanes() if lib is not None else None


@dataclass
class PackedWeight:
    """A weight in the kernels' layout: blocks of 16 rows, k-major, zero rows padding the last block;
    int8 weights carry their float32 scale per row."""

    data: torch.Tensor
    out_features: int
    scale: torch.Tensor | None = None
    gguf: str | None = None  # "Q4_1" or "Q8_0": a GGUF file's own blocks (engine/layers/gguf_weights.py), data uint8


def pack(weight: torch.Tensor, scale: torch.Tensor | None = None) -> PackedWeight | None:
    """`weight` (float32, or int8 with `scale`) packed for gemv; None where the kernels cannot take it
    (not on the CPU, another dtype, or no library)."""
    if weight.device.type != "cpu" or weight.dim() != 2 or library() is None:
        return None
    if weight.dtype != (torch.int8 if scale is not None else torch.float32):
        return None
    n, k = weight.shape
    padded = torch.cat([weight, weight.new_zeros(-n % BLOCK, k)]) if n % BLOCK else weight
    data = padded.reshape(-1, BLOCK, k).transpose(1, 2).contiguous()
    return PackedWeight(data, n, scale.float().contiguous() if scale is not None else None)


def profiled(name: str):
    """Under torch's profiler, a range named for the kernel (a ctypes call is no operator it sees);
    otherwise nothing (one cheap check per call)."""
    return torch.profiler.record_function(name) if torch.autograd._profiler_enabled() else nullcontext()


def gemv(x: torch.Tensor, w: PackedWeight, bias: torch.Tensor | None = None) -> torch.Tensor:
    """x (m, k) float32 against the packed weight: (m, out_features)."""
    with profiled("pdlab::gemv"):
        return _gemv(x, w, bias)


def _gemv(x: torch.Tensor, w: PackedWeight, bias: torch.Tensor | None) -> torch.Tensor:
    x = x.contiguous()
    m, k = x.shape
    y = torch.empty(m, w.out_features, dtype=torch.float32)
    lib, threads = _state["lib"], torch.get_num_threads()
    b = bias.data_ptr() if bias is not None else None
    if w.scale is not None:
        lib.gemv_i8(w.data.data_ptr(), w.scale.data_ptr(), b, x.data_ptr(), y.data_ptr(), m, w.out_features, k, threads)
    else:
        lib.gemv_f32(w.data.data_ptr(), b, x.data_ptr(), y.data_ptr(), m, w.out_features, k, threads)
    return y


def gemv_quant(x: torch.Tensor, w: PackedWeight, bias: torch.Tensor | None = None) -> torch.Tensor:
    """x (m, k) float32 against a weight packed from a GGUF file's Q4_1 or Q8_0 blocks: (m, out_features),
    the same numbers as the float32 weight those blocks de-quantise to."""
    with profiled("pdlab::gemv_quant"):
        x = x.contiguous()
        m, k = x.shape
        y = torch.empty(m, w.out_features, dtype=torch.float32)
        b = bias.data_ptr() if bias is not None else None
        _state["lib"].gemv_quant(
            w.data.data_ptr(), int(w.gguf == "Q4_1"), b, x.data_ptr(), y.data_ptr(), m, w.out_features, k,
            torch.get_num_threads(),
        )  # fmt: skip
    return y


def gemv_silu(x: torch.Tensor, w: PackedWeight) -> torch.Tensor | None:
    """SiLU(x G^T) * (x U^T) for a packed float32 [gate | up] weight of 2f rows (or a GGUF file's blocks
    of one; f a multiple of 16, no bias): (m, f) in one call, the (m, 2f) product never written; the
    same numbers as gemv (gemv_quant) then silu_mul. None where it cannot run."""
    if w.scale is not None or w.out_features % (2 * BLOCK) or not _float32_cpu(x):
        return None
    x = x.contiguous()
    (m, k), f = x.shape, w.out_features // 2
    y = torch.empty(m, f)
    threads, lib = torch.get_num_threads(), _state["lib"]
    scratch = torch.empty(threads * m * BLOCK)  # each thread's gate block, m x 16, until its up block comes
    with profiled("pdlab::gemv_silu"):
        if w.gguf:  # each thread's gate and up blocks de-quantised, 2 x k x 16
            copies = torch.empty(threads * 2 * k * BLOCK)
            lib.gemv_quant_silu(
                w.data.data_ptr(), int(w.gguf == "Q4_1"), x.data_ptr(), y.data_ptr(), m, f, k, copies.data_ptr(),
                scratch.data_ptr(), threads,
            )  # fmt: skip
        else:
            lib.gemv_silu_f32(w.data.data_ptr(), x.data_ptr(), y.data_ptr(), m, f, k, scratch.data_ptr(), threads)
    return y


def rms_norm(x: torch.Tensor, weight: torch.Tensor, eps: float) -> torch.Tensor | None:
    """RMSNorm of float32 rows on the C kernel; None where it cannot run (the caller uses torch's)."""
    lib = library()
    if lib is None or x.dtype != torch.float32 or weight.dtype != torch.float32 or x.device.type != "cpu":
        return None
    if not (x.is_contiguous() and weight.is_contiguous()):
        return None
    y = torch.empty_like(x)
    k = x.shape[-1]
    with profiled("pdlab::rms_norm"):
        lib.rms_norm_f32(x.data_ptr(), weight.data_ptr(), y.data_ptr(), x.numel() // k, k, eps, torch.get_num_threads())
    return y


def _float32_cpu(*tensors: torch.Tensor) -> bool:
    return all(t.dtype == torch.float32 and t.device.type == "cpu" for t in tensors)


def silu_mul(gate_up: torch.Tensor) -> torch.Tensor | None:
    """SiLU(gate) * up of (N, 2f) rows [gate | up]: (N, f); None where it cannot run."""
    lib = library()
    if lib is None or not _float32_cpu(gate_up) or not gate_up.is_contiguous():
        return None
    n, f = gate_up.shape[0], gate_up.shape[1] // 2
    out = torch.empty(n, f)
    with profiled("pdlab::silu_mul"):
        lib.silu_mul_f32(gate_up.data_ptr(), out.data_ptr(), n, f, torch.get_num_threads())
    return out


def rope(x: torch.Tensor, cos: torch.Tensor, sin_rot: torch.Tensor) -> torch.Tensor | None:
    """x (N, heads, D) (rows any distance apart) rotated by cos, sin_rot (N, 1, D) as
    engine/model.apply_rope: a new contiguous (N, heads, D); None where it cannot run."""
    lib = library()
    N, heads, D = x.shape
    if lib is None or not _float32_cpu(x, cos, sin_rot) or x.stride(2) != 1 or x.stride(1) != D:
        return None
    if cos.stride(-1) != 1 or sin_rot.stride(-1) != 1 or cos.stride(0) != sin_rot.stride(0):
        return None
    out = torch.empty(N, heads, D)
    with profiled("pdlab::rope"):
        lib.rope_f32(
            x.data_ptr(), x.stride(0), out.data_ptr(), N, heads, D,
            cos.data_ptr(), sin_rot.data_ptr(), cos.stride(0), torch.get_num_threads(),
        )  # fmt: skip
    return out


def prefill_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, scale: float) -> torch.Tensor | None:
    """Causal attention of T new queries q (1, H, T, D) against C keys k, v (1, G, C, D), query t seeing
    keys up to C - T + t (a prompt, or a chunk after a cached prefix), on attention.c: (1, H, T, D), or
    None where it cannot run (no library, not float32 on the CPU, a head size not a multiple of 16)."""
    lib = library()
    _, H, T, D = q.shape
    G, C = k.shape[1], k.shape[2]
    if lib is None or D % BLOCK or D > 256 or not _float32_cpu(q, k, v):
        return None
    if any(t.stride(-1) != 1 for t in (q, k, v)):
        return None
    out = torch.empty(T, H, D)
    threads, key_slots = torch.get_num_threads(), -(-C // BLOCK) * BLOCK
    # working memory, O(C) and not the T x C score matrix (which a fused kernel never holds): the memory
    # lab counts it with the activations, as PyTorch's own fused kernel's
    packed = torch.empty(G * key_slots * D)  # the keys, packed once
    scratch = torch.empty(threads * 16 * (D + key_slots))  # a tile of 16 queries and their scores per thread
    with profiled("pdlab::attention"):
        lib.attention_prefill(
            q.data_ptr(), q.stride(2), q.stride(1), k.data_ptr(), k.stride(2), k.stride(1),
            v.data_ptr(), v.stride(2), v.stride(1), out.data_ptr(), H * D, D,
            T, C, H, G, D, scale, packed.data_ptr(), scratch.data_ptr(), threads,
        )  # fmt: skip
    return out.transpose(0, 1).unsqueeze(0)
