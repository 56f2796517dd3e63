"""The kernel plan: which kernel each linear shape of the model runs at decode size and at prefill size
(engine/layers/linear.py runs it), with what each candidate measured, and which path an all-decode
step takes: the one-call C step (engine/models/fused_decode.py, every decode-sized product on our C
kernel) or the torch forward with each layer's own choice. A layer's kernel is chosen by timing that
layer alone; the step's path by timing whole steps both ways, since a few microseconds a layer can
lose or win the ~5 ms of Python and dispatch the one-call step saves. engine/loader/kernel_timing.py
and engine/loader/step_timing.py make the plan on this machine; a plan also comes forced
(PDLAB_KERNELS) or as the default, F.linear everywhere."""

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


STEP_PATHS = ("fused", "layers")  # the one-call C decode step; the torch forward, each layer's own kernel
MEASURE_STEP = "measure"  # the model holds both paths until the loader has timed them


@dataclass
class StepChoice:
    """The path all-decode steps take, and the whole-step times that chose it (ms, median of `n` steps
    each, the two paths interleaved at a context of `context` tokens)."""

    path: str
    fused_ms: float
    layers_ms: float
    n: int
    context: int
    source: str = "measured"  # or "cached"

    def __post_init__(self):
        if self.path not in STEP_PATHS:
            raise ValueError(f"step path {self.path!r}: choose one of {', '.join(STEP_PATHS)}")

    @property
    def saved_ms(self) -> float:
        """What the chosen path saves a step against the other (ms)."""
        return abs(self.layers_ms - self.fused_ms)


@dataclass
class KernelPlan:
    source: str  # "measured", "cached", "forced" or "default" (nothing to choose: GPU, or no oneDNN)
    choices: dict[tuple[int, int], ShapeChoice]
    forced: str | None = None
    # None: no choice of path (forced, default, gguf: the one-call step runs wherever every decode-sized
    # product is on the C kernels); "fused" or "layers": decided; MEASURE_STEP: to be timed at load
    step_path: str | None = None
    step: StepChoice | None = None

    def kernels(self, shape: tuple[int, int]) -> tuple[str, str]:
        if self.forced:
            return self.forced, self.forced
        choice = self.choices.get(tuple(shape))
        return choice.kernels if choice else ("linear", "linear")


# --- the plan of one model, cached per machine -------------------------------------------------------


# --- int8 weights: the activation dtype that decodes fastest here -----------------------------------
