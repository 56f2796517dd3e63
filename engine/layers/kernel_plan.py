"""The kernel plan: which kernel each linear shape of the model runs at decode size and at prefill size
(engine/layers/linear.py runs it), with what each candidate measured. engine/loader/kernel_timing.py
makes the plan by timing the candidates on this machine; a plan also comes forced (PDLAB_KERNELS) or
as the default, F.linear everywhere."""

from __future__ import annotations

from dataclasses import dataclass

PREFILL_ROWS = 256


@dataclass
class ShapeChoice:
    """One weight shape: the kernel per regime and what each candidate measured (ms per call)."""

    out_features: int
    in_features: int
    decode: str
    prefill: str
    decode_ms: dict[str, float]
    prefill_ms: dict[str, float]

    @property
    def kernels(self) -> tuple[str, str]:
        return self.decode, self.prefill

    def decode_gbs(self, elem_bytes: int) -> float:
        """The chosen decode kernel's weight-read rate (GB/s)."""
        return self.out_features * self.in_features * elem_bytes / self.decode_ms[self.decode] / 1e6

    def prefill_gflops(self) -> float:
        return 2 * PREFILL_ROWS * self.out_features * self.in_features / self.prefill_ms[self.prefill] / 1e6


@dataclass
class KernelPlan:
    source: str  # "measured", "cached", "forced" or "default" (nothing to choose: GPU, or no oneDNN)
    choices: dict[tuple[int, int], ShapeChoice]
    forced: str | None = None

    def kernels(self, shape: tuple[int, int]) -> tuple[str, str]:
        if self.forced:
            return self.forced, self.forced
        choice = self.choices.get(tuple(shape))
        return choice.kernels if choice else ("linear", "linear")


# --- the plan of one model, cached per machine -------------------------------------------------------


# --- int8 weights: the activation dtype that decodes fastest here -----------------------------------
