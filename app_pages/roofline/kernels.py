"""The kernels section of the roofline lab: which matmul kernel each linear layer of the loaded model
runs, for decode-sized and prefill-sized calls, and the rate each candidate measured on this machine
(engine/loader/kernel_timing.py chose by those timings)."""

from __future__ import annotations

import pandas as pd
import streamlit as st
import torch

from app_pages.roofline import keys
from app_pages.roofline.strings import formula, t
from engine.kernels import native
from engine.layers.kernel_plan import PREFILL_ROWS
from engine.observe.machine import cpu_capability, cpu_model
from ui.formula import show_formula
from ui.tables import show_table
from ui.text import md_literal


def kernel_table(model, lang: str) -> pd.DataFrame:
    plan, rows = model.kernel_plan, []
    elem = model.weight_elem_bytes
    for name, lin in model.linears().items():
        choice = plan.choices.get((lin.out_features, lin.in_features))
        row = {
            t("rf_k_layer", lang): f"{name} ({lin.out_features}×{lin.in_features})",
            t("rf_k_decode", lang): lin.decode_kernel,
        }
        if choice is not None:
            row |= {
                t("rf_k_decode_us", lang, kernels=" · ".join(choice.decode_ms)): _times(choice.decode_ms, 1e3, 0),
                t("rf_k_decode_gbs", lang): round(choice.decode_gbs(elem), 1),
            }
        row[t("rf_k_prefill", lang)] = lin.prefill_kernel
        if choice is not None:
            row |= {
                t("rf_k_prefill_ms", lang, rows=PREFILL_ROWS, kernels=" · ".join(choice.prefill_ms)): _times(
                    choice.prefill_ms, 1, 2
                ),
                t("rf_k_prefill_gflops", lang): round(choice.prefill_gflops()),
            }
        rows.append(row)
    return pd.DataFrame(rows)


def kernel_short(model, lang: str) -> dict[str, str]:
    """Short labels of the timing columns: their headers name every candidate kernel, which the
    column's help keeps."""
    short = {}
    for choice in model.kernel_plan.choices.values():
        for key, ms, rows in (
            ("rf_k_decode_us", choice.decode_ms, 1),
            ("rf_k_prefill_ms", choice.prefill_ms, PREFILL_ROWS),
        ):
            kernels = " · ".join(ms)
            short[t(key, lang, rows=rows, kernels=kernels)] = t(key + "_short", lang, rows=rows, kernels=kernels)
    return short


def _times(ms: dict[str, float], scale: float, digits: int) -> str:
    """Each candidate's time, in the order the column header names them."""
    return " · ".join(f"{v * scale:.{digits}f}" for v in ms.values())


def step_path_text(model, lang: str) -> str:
    """Which path an all-decode step takes, and the whole-step timings that chose it
    (engine/loader/step_timing.py)."""
    plan, step = model.kernel_plan, model.kernel_plan.step
    path = t("rf_k_path_fused" if model.fused is not None else "rf_k_path_layers", lang)
    if step is None:
        return t("rf_k_step_fixed", lang, path=path, source=plan.forced or plan.source)
    when = t("rf_k_step_measured" if step.source == "measured" else "rf_k_step_cached", lang)
    return t(
        "rf_k_step_chosen", lang, path=path, when=when, n=step.n, context=step.context,
        fused=step.fused_ms, layers=step.layers_ms,
    )  # fmt: skip


def render_kernels_section(bundle, lang: str) -> None:
    st.subheader(t("rf_k_header", lang))
    st.markdown(t("rf_k_intro", lang, rows=PREFILL_ROWS))
    plan = bundle.model.kernel_plan
    table = kernel_table(bundle.model, lang)
    widths = {c: st.column_config.Column(width=150 if "(" in c else 80) for c in table.columns}
    show_table(table, key=keys.KERNEL_TABLE, short=kernel_short(bundle.model, lang), column_config=widths)
    cpu = t("rf_cpu", lang, cpu=cpu_model(), isa=cpu_capability(), n=torch.get_num_threads(), torch=torch.__version__)
    st.caption(t(f"rf_k_source_{plan.source}", lang, cpu=md_literal(cpu), forced=plan.forced or ""))
    st.caption(step_path_text(bundle.model, lang))
    why = native.build_error()
    if why and plan.source != "default":
        st.caption(t("rf_k_native_missing", lang, why=md_literal(why)))
    rows = str(PREFILL_ROWS)
    show_formula(
        formula(
            r"\text{GB/s} = \frac{<out> \times <in> \times <bytes_per_weight>}{t_{1\ <row>}} \qquad "
            r"\text{GFLOP/s} = \frac{2 \times " + rows + r" \times <out> \times <in>}{t_{" + rows + r"\ <rows>}}",
            lang,
        )
    )
