"""Our C kernels (engine/kernels/native.py): built here where a C compiler is, equal to torch's own operators
(matrix products on float32 and int8 weights, any row count, any width, a bias; RMSNorm; a prefill's
causal attention, grouped-query, after a cached prefix or not), the same at
one and two threads, built for AVX-512 and for AVX2 alike; and optional: switched off or failing to
build, the engine runs on torch's."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import torch
import torch.nn.functional as F

from engine.kernels import native
from engine.layers.linear import Linear
from engine.layers.quant import dequantize_int8, quantize_int8
from engine.loader.kernel_timing import runnable

HAS_CC = native._compiler() is not None
ROOT = Path(__file__).resolve().parents[1]


def close(got: torch.Tensor, ref: torch.Tensor) -> bool:
    """Equal up to float32 rounding of sums taken in another order."""
    return got.shape == ref.shape and (got - ref).abs().max().item() <= 1e-5 * ref.abs().max().item()


@pytest.fixture
def fresh(monkeypatch):
    """A library state of the test's own: the next library() builds or fails anew."""
    monkeypatch.setattr(native, "_state", {})
    return monkeypatch


def test_a_compiler_here_builds_the_kernels_once():
    if not HAS_CC:
        pytest.skip("no C compiler on this machine: the kernels are not built (the next tests cover that)")
    assert native.library() is not None, native.build_error()
    assert native.build_error() is None
    assert "gemv" in runnable(torch.float32) and "int8gemv" in runnable(torch.float32, "int8")
    assert "gemv" not in runnable(torch.bfloat16) and "int8gemv" not in runnable(torch.bfloat16, "int8")


@pytest.mark.parametrize("n, k", [(48, 80), (37, 20), (960, 576)])  # 37: a padded last block
@pytest.mark.parametrize("rows", [1, 3, 15])
def test_gemv_equals_f_linear(n, k, rows):
    if native.library() is None:
        pytest.skip(f"the kernels are not built here: {native.build_error()}")
    torch.manual_seed(n + rows)
    w, b, x = torch.randn(n, k), torch.randn(n), torch.randn(rows, k)
    packed = native.pack(w)
    assert packed.data.shape == (-(-n // 16), k, 16)
    assert close(native.gemv(x, packed, b), F.linear(x, w, b))
    assert close(native.gemv(x, packed), F.linear(x, w))
    q, s = quantize_int8(w)
    assert close(native.gemv(x, native.pack(q, s), b), F.linear(x, dequantize_int8(q, s, torch.float32), b))


def test_one_and_two_threads_give_the_same_numbers():
    if native.library() is None:
        pytest.skip(f"the kernels are not built here: {native.build_error()}")
    w, x = torch.randn(3072, 576), torch.randn(2, 576)
    packed, before = native.pack(w), torch.get_num_threads()
    try:
        torch.set_num_threads(1)
        one = native.gemv(x, packed)
        torch.set_num_threads(2)
        two = native.gemv(x, packed)
    finally:
        torch.set_num_threads(before)
    assert torch.equal(one, two)  # each output is one block's sum: no thread splits a sum


def test_a_row_gets_the_same_numbers_alone_or_with_others():
    """Rows run four at a time (a prefill) or one at a time (a decode), summing in the same order."""
    if native.library() is None:
        pytest.skip(f"the kernels are not built here: {native.build_error()}")
    w, x = torch.randn(40, 100), torch.randn(7, 100)
    q, s = quantize_int8(w)
    for packed in (native.pack(w), native.pack(q, s)):
        together = native.gemv(x, packed)
        assert all(torch.equal(together[r], native.gemv(x[r : r + 1], packed)[0]) for r in range(7))


def test_rms_norm_equals_torch():
    if native.library() is None:
        pytest.skip(f"the kernels are not built here: {native.build_error()}")
    x, w = torch.randn(5, 576) * 3, torch.randn(576)
    assert torch.allclose(native.rms_norm(x, w, 1e-5), F.rms_norm(x, (576,), w, 1e-5), rtol=1e-6, atol=1e-6)
    assert native.rms_norm(x[:, ::2], w[::2], 1e-5) is None  # a strided view: torch's instead
    assert native.rms_norm(x.bfloat16(), w.bfloat16(), 1e-5) is None


def test_switched_off_the_engine_runs_on_torch(fresh):
    fresh.setenv(native.DISABLE_ENV, "0")
    assert native.library() is None and native.build_error() == "PDLAB_NATIVE=0"
    assert native.pack(torch.randn(16, 8)) is None and native.rms_norm(torch.randn(2, 8), torch.ones(8), 1e-5) is None
    assert "gemv" not in runnable(torch.float32)
    lin = Linear(torch.randn(32, 8), None, ("gemv", "gemv"))
    assert lin.kernels == ("linear", "linear")  # a plan or a forced kernel that cannot run falls back


def test_a_failed_build_is_named_and_nothing_else_breaks(fresh, tmp_path):
    fresh.setenv("PDLAB_CACHE_DIR", str(tmp_path))
    fresh.setenv("CC", shutil.which("false") or "/bin/false")
    assert native.library() is None
    assert "failed" in native.build_error()
    assert not list(tmp_path.glob("native/*.so"))  # no half-built library left to load next time
    x, w = torch.randn(2, 8), torch.randn(16, 8)
    assert torch.equal(Linear(w, None, ("gemv", "linear"))(x), F.linear(x, w))


def test_the_library_is_built_once_per_machine(fresh, tmp_path):
    if not HAS_CC:
        pytest.skip("no C compiler on this machine")
    fresh.setenv("PDLAB_CACHE_DIR", str(tmp_path))
    assert native.library() is not None
    built = list(tmp_path.glob("native/gemv-*.so"))
    assert len(built) == 1
    stamp = built[0].stat().st_mtime_ns
    fresh.setattr(native, "_state", {})
    assert native.library() is not None and built[0].stat().st_mtime_ns == stamp  # loaded, not rebuilt


def causal_sdpa(q, k, v, scale):
    T, C = q.shape[2], k.shape[2]
    allowed = torch.arange(C)[None, :] <= torch.arange(T)[:, None] + (C - T)
    return F.scaled_dot_product_attention(q, k, v, attn_mask=allowed, scale=scale, enable_gqa=True)


@pytest.mark.parametrize(
    "T, C, H, G, D",
    [(256, 256, 9, 3, 64), (7, 30, 4, 2, 16), (33, 33, 4, 4, 32), (100, 140, 8, 1, 128), (1, 17, 2, 1, 16)],
)
def test_prefill_attention_equals_sdpa(T, C, H, G, D):
    """A prompt (T = C) and chunks after a cached prefix; grouped-query; row and tile counts the loops
    do not divide; queries and keys as the model passes them (strided views)."""
    if native.library() is None:
        pytest.skip(f"the kernels are not built here: {native.build_error()}")
    torch.manual_seed(T + C)
    q = torch.randn(T, H, D).transpose(0, 1).unsqueeze(0)  # (1, H, T, D), rows H * D apart
    k, v = (torch.randn(G, 2 * C, D)[:, C:].unsqueeze(0) for _ in range(2))  # a window of a larger pool
    got = native.prefill_attention(q, k, v, D**-0.5)
    assert got.shape == (1, H, T, D)
    assert close(got, causal_sdpa(q, k, v, D**-0.5))


def test_prefill_attention_declines_what_it_cannot_run():
    if native.library() is None:
        pytest.skip(f"the kernels are not built here: {native.build_error()}")
    q, k = torch.randn(1, 2, 5, 12), torch.randn(1, 1, 5, 12)
    assert native.prefill_attention(q, k, k, 0.3) is None  # a head size not a multiple of 16
    q, k = torch.randn(1, 2, 5, 16), torch.randn(1, 1, 5, 16)
    assert native.prefill_attention(q.bfloat16(), k.bfloat16(), k.bfloat16(), 0.25) is None
    assert native.prefill_attention(q, k, k, 0.25) is not None


def test_prefill_attention_same_numbers_on_one_and_two_threads():
    if native.library() is None:
        pytest.skip(f"the kernels are not built here: {native.build_error()}")
    q, k, v = torch.randn(1, 6, 70, 64), torch.randn(1, 2, 90, 64), torch.randn(1, 2, 90, 64)
    before = torch.get_num_threads()
    try:
        torch.set_num_threads(1)
        one = native.prefill_attention(q, k, v, 0.125)
        torch.set_num_threads(2)
        two = native.prefill_attention(q, k, v, 0.125)
    finally:
        torch.set_num_threads(before)
    assert torch.equal(one, two)  # each query's row is one thread's work


def test_silu_mul_and_rope_equal_torch():
    if native.library() is None:
        pytest.skip(f"the kernels are not built here: {native.build_error()}")
    from engine.layers.rotary import apply_rope

    gate_up = torch.randn(5, 2 * 40) * 8  # 40: a tail after the 16-wide loop; large values: exp's clamps
    gate, up = gate_up.chunk(2, dim=-1)
    assert close(native.silu_mul(gate_up), F.silu(gate) * up)
    qkv = torch.randn(6, 7 * 64)
    x = qkv[:, : 5 * 64].view(6, 5, 64)  # q and k heads of a fused product: rows 7 * 64 floats apart
    cos, sin = torch.randn(6, 1, 64), torch.randn(6, 1, 64)
    ref = torch.addcmul(x * cos, x.roll(32, -1), sin)
    assert close(native.rope(x, cos, sin), ref) and close(apply_rope(x, cos, sin), ref)
    assert native.rope(x.double(), cos.double(), sin.double()) is None  # float32 only


@pytest.mark.parametrize("rows", [1, 5, 70])  # 70: ROWS at a time, then the rest one by one
def test_gate_up_with_silu_in_one_call_equals_the_two_passes_exactly(rows):
    if native.library() is None:
        pytest.skip(f"the kernels are not built here: {native.build_error()}")
    f, k = 48, 40
    w, x = torch.randn(2 * f, k), torch.randn(rows, k) * 4  # large values: exp's clamps
    packed = native.pack(w)
    two_passes = native.silu_mul(native.gemv(x, packed))
    before = torch.get_num_threads()
    try:
        for threads in (1, 2):
            torch.set_num_threads(threads)
            assert torch.equal(native.gemv_silu(x, packed), two_passes)  # the same sums, the same SiLU
    finally:
        torch.set_num_threads(before)
    gate, up = F.linear(x, w).chunk(2, dim=-1)
    assert close(two_passes, F.silu(gate) * up)
    assert native.gemv_silu(x, native.pack(torch.randn(2 * 40, k))) is None  # a gate/up boundary inside a block
    q, s = quantize_int8(w)
    assert native.gemv_silu(x, native.pack(q, s)) is None  # float32 weights only
    assert native.gemv_silu(x.double(), packed) is None


@pytest.mark.slow
@pytest.mark.skipif(not HAS_CC, reason="no C compiler here")
def test_the_avx2_build_passes_the_same_tests():
    """The kernels use the machine's vector width (16 floats with AVX-512, 8 with AVX2): the narrow build,
    made here with -mno-avx512f, runs this file's, the one-call decode step's and the GGUF blocks' tests."""
    tests = [
        "tests/test_native.py",
        "tests/test_fused_decode.py",
        "tests/test_gguf_weights.py",
        "-k",
        "not avx2",
        "-p",
        "no:cacheprovider",
    ]
    run = subprocess.run(
        [sys.executable, "-m", "pytest", *tests, "--native-flags=-mno-avx512f"],
        cwd=ROOT, capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    assert "-mno-avx512f: 8 floats per vector" in run.stdout and run.returncode == 0, run.stdout[-3000:]


@pytest.mark.slow
@pytest.mark.skipif(not HAS_CC, reason="no C compiler here")
def test_the_build_without_avx_passes_the_gguf_tests():
    """Built without AVX, FMA or F16C (4 floats per vector, float16 converted by its bits), the GGUF
    blocks still give the float32 kernel's numbers to the bit."""
    flags = "--native-flags=-mno-avx512f -mno-avx2 -mno-fma -mno-f16c -mno-avx"
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "tests/test_gguf_weights.py", "-k", "not bundled", "-p", "no:cacheprovider", flags],
        cwd=ROOT, capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    assert ": 4 floats per vector" in run.stdout and run.returncode == 0, run.stdout[-3000:]
