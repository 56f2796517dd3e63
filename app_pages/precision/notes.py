"""The note beside the precision lab's ratio chart, where a bfloat16 row was measured: how it compares
with float32 here, whether this CPU has a fast bfloat16 kernel (its instruction set) and what a GPU
would show (the cost model's projection). A newcomer who reads "fewer bytes per weight" and then sees
bfloat16 ten times slower than float32 needs the reason beside the bars, not in a guide."""

from __future__ import annotations

from app_pages.precision.strings import t
from app_pages.precision.tables import bytes_ratio
from lab.pairing import GREATER, compare
from lab.precision_notes import bf16_kernel, gpu_projection, is_bfloat16, this_cpu
from lab.precision_run import PrecisionRun
from lab.projection import DEFAULT_EFFICIENCY
from ui.paired import ratio_text


def bf16_note(run: PrecisionRun, lang: str) -> str | None:
    """Markdown, or None where no bfloat16 configuration was measured."""
    rows = [r for r in run.results if is_bfloat16(r.config.weights) and r.decode_ratio is not None]
    if not rows:
        return None
    slow = [r for r in rows if compare(r.decode_ratio) == GREATER]
    r = slow[0] if slow else rows[0]
    context = round(r.timing.context)
    head = t(
        "pr_bf16_slow" if slow else "pr_bf16_here",
        lang,
        name=r.config.name,
        ratio=ratio_text(r.decode_ratio, lang),
        bytes=bytes_ratio(run, r, context, 1),
    )
    cpu, flags = this_cpu()
    kernel, named = bf16_kernel(flags)
    isa = t(f"pr_isa_{kernel}", lang, cpu=cpu, flags=", ".join(named))
    p = gpu_projection(run.model, context)
    gpu = t("pr_bf16_gpu", lang, gpu=p.gpu, bf16=p.bfloat16_ms, fp32=p.float32_ms, proj=p.ratio, eff=DEFAULT_EFFICIENCY)
    ref = run.results[0].decode_kernels
    kernels = (
        t("pr_bf16_kernels", lang, name=r.config.name, ref=", ".join(ref), kernels=", ".join(r.decode_kernels))
        if ref and r.decode_kernels
        else ""
    )
    return "\n\n".join(part for part in (head, isa, kernels, gpu) if part)
