"""How each roof was measured, in the reader's language. lab/hardware.py keeps the kernels' names as
English phrases in the hardware cache ("our C gemv, one row over 1 GiB", "float32: oneDNN packed
linear, 2048x2048; ..."), so measurements already cached word the same way; this module reads those
phrases back and words them from the catalogues. A phrase it does not know is shown as it is."""

from __future__ import annotations

import re

from app_pages.roofline.strings import t

# The phrases lab/hardware.py writes (measure_read, measure_device_gemm) and their catalogue keys
KERNEL_KEYS = {"our C gemv, one row": "rf_how_gemv", "oneDNN packed linear": "rf_how_packed"}
STAGE_KEYS = {"read bandwidth": "rf_stage_read", "per-op overhead": "rf_stage_overhead", "done": "rf_stage_done"}
READ = re.compile(r"(?P<how>.+?) over (?P<gib>[\d.]+) GiB(?:, (?P<threads>\d+) threads)?")
GEMM = re.compile(r"(?P<dtype>\w+): (?:unsupported: (?P<why>.*)|(?P<kernel>.+?), (?P<n>\d+)x(?P<m>\d+))")


def kernel_words(name: str, lang: str) -> str:
    """A kernel's name: ours and oneDNN's described in the language, torch's own names as they are."""
    key = KERNEL_KEYS.get(name)
    return t(key, lang) if key else name


def read_words(how: str, lang: str) -> str:
    """'our C gemv, one row over 1 GiB' (and the threads, where kept) in the language."""
    m = READ.fullmatch(how.strip())
    if m is None:
        return how
    text = t("rf_how_read", lang, how=kernel_words(m["how"], lang), gib=m["gib"])
    return text if m["threads"] is None else t("rf_how_threads", lang, what=text, threads=int(m["threads"]))


def gemm_words(kernels: str, lang: str) -> str:
    """'float32: oneDNN packed linear, 2048x2048; float16: unsupported: ...' in the language."""
    parts = []
    for part in kernels.split("; "):
        m = GEMM.fullmatch(part.strip())
        if m is None:
            parts.append(part)
        elif m["why"] is not None:
            parts.append(t("rf_how_unsupported", lang, dtype=m["dtype"], why=m["why"]))
        else:
            kernel = kernel_words(m["kernel"], lang)
            parts.append(t("rf_how_gemm", lang, dtype=m["dtype"], kernel=kernel, n=int(m["n"]), m=int(m["m"])))
    return t("rf_how_sep", lang).join(parts)


def stage_words(stage: str, lang: str) -> str:
    """A measuring stage as lab/hardware.py reports it ('float32 matrix multiply') in the language."""
    if stage in STAGE_KEYS:
        return t(STAGE_KEYS[stage], lang)
    m = re.fullmatch(r"(\w+) matrix multiply", stage)
    return t("rf_stage_gemm", lang, dtype=m[1]) if m else stage
