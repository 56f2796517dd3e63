"""Which path an all-decode step takes: the one-call C step (fused_decode.py), which needs every
decode-sized product of every layer on our C kernel, or the torch forward, each layer on the kernel
that won its own timing. The plan says which (engine/layers/kernel_plan.py); where it is still to be
measured, the model holds both (the C kernel's copy of a weight as a spare) until the loader has timed
whole steps both ways (engine/loader/step_timing.py) and settles on one, dropping the other's copies."""

from __future__ import annotations

from engine.errors import LabError
from engine.layers.kernel_plan import MEASURE_STEP, KernelPlan, StepChoice
from engine.models.fused_decode import FusedDecode

STEP_PRODUCTS = ("qkv", "o", "gate_up", "down")  # a layer's products; the LM head is not in the C step
C_KERNEL = {"native": "gemv", "int8": "int8gemv"}  # the C kernel of each weight format that has a torch path


def layer_kernels(plan: KernelPlan, fmt: str, shape: tuple[int, int]) -> tuple[tuple[str, str], tuple[str, ...]]:
    """(decode, prefill) kernels of a layer's product, and the spare decode kernels to hold as well."""
    kernels = plan.kernels(shape)
    c_kernel = C_KERNEL.get(fmt)
    if c_kernel is None or plan.step_path is None:
        return kernels, ()
    if plan.step_path == "fused":
        return (c_kernel, kernels[1]), ()
    if plan.step_path == MEASURE_STEP and kernels[0] != c_kernel:
        return kernels, (c_kernel,)
    return kernels, ()


def attach_fused_step(model) -> None:
    """Build the one-call step where it can run, and turn it on unless the plan chose the torch forward.
    A model held for measuring starts on the C kernels; where a layer has no C copy it stays as it is."""
    plan = model.kernel_plan
    if plan.step_path == MEASURE_STEP:
        try:
            for lin in _products(model):
                lin.use_decode_kernel(C_KERNEL[model.weight_format])
        except LabError:  # the C kernel cannot take some weight here: no step to measure
            use_path(model, "layers")
            plan.step_path = None
    model.fused_step = FusedDecode.build(model) if plan.step_path != "layers" else None
    model.fused = model.fused_step


def _products(model):
    return [layer[name] for layer in model.layers for name in STEP_PRODUCTS]


def use_path(model, path: str) -> None:
    """Run all-decode steps on `path` from now on: "fused" switches every layer's decode-sized products
    to the C kernel and turns the one-call step on; "layers" puts each back on its own kernel."""
    fmt = model.weight_format
    if path == "fused":
        if model.fused_step is None:
            raise LabError("The one-call decode step cannot run on this model here (no C kernels for its layers).")
        for lin in _products(model):
            lin.use_decode_kernel(C_KERNEL[fmt])
        model.fused = model.fused_step
    elif path == "layers":
        for lin in _products(model):
            lin.use_decode_kernel(lin.own_decode_kernel)
        model.fused = None
    else:
        raise LabError(f"Unknown decode path {path!r}; choose fused or layers.")


def settle(model, choice: StepChoice) -> None:
    """Keep `choice.path` for good: the other path's weight copies are dropped."""
    use_path(model, choice.path)
    for lin in _products(model):
        lin.release_spares()
    if choice.path == "layers":
        model.fused_step = None  # it points into copies just dropped
    model.kernel_plan.step_path, model.kernel_plan.step = choice.path, choice
