"""The roofline section: run the loaded model through the engine at several batch sizes, raced a step
each in turn (lab/roofline.py), place every prefill and decode step on the measured roofline, and show
each phase's share of both ceilings, the largest batch's decode rate against B = 1's paired step by step
(ui/paired.py), and how busy other work kept the machine beside them."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd
import streamlit as st

from app_pages.roofline import keys
from app_pages.roofline.ceilings import busy_reading
from app_pages.roofline.figures import nvml_figure, roofline_figure
from app_pages.roofline.strings import formula, t
from engine.observe.costmodel import ridge_intensity
from lab.busy import MachineLoad
from lab.complexity_math import prompt_of_length
from lab.hardware import DeviceCeilings
from lab.nvml import NvmlSampler, NvmlSamples, nvml_status
from lab.roofline import PhaseSummary, RooflinePoint, rate_ratio, run_roofline, summarise
from ui.formula import show_formula
from ui.paired import busy_beside, ratio_text
from ui.public_caps import cap_help, capped
from ui.queue_wait import take_turn
from ui.run_section import run_with_progress
from ui.tables import show_table
from ui.text import md_literal
from ui.widget_state import KEEP, seed
from ui.widgets import whole_number_box

BATCH_CHOICES = [1, 2, 4, 8, 16, 32]
DEFAULTS = {keys.L: 32, keys.STEPS: 8, keys.BATCHES: [1, 2, 4, 8, 16]}


@dataclass
class RooflineResult:
    """One finished run, as kept in st.session_state (plain records, no tensors)."""

    model: str
    dtype: str
    prompt_len: int
    decode_steps: int
    points: list[RooflinePoint]
    summary: list[PhaseSummary]
    ceilings: DeviceCeilings
    nvml: NvmlSamples | None
    load: MachineLoad | None = None  # other processes' CPU use while the steps were timed


def render_controls(max_position: int, lang: str) -> tuple[int, int, list[int], bool]:
    seed(DEFAULTS)
    c1, c2, c3, c4 = st.columns([2, 2, 4, 2], vertical_alignment="bottom")
    prompt_len = whole_number_box(
        c1, t("rf_L", lang), 1, max(1, max_position - 2), keys.L, step=8, help=t("rf_L_help", lang)
    )
    steps = whole_number_box(
        c2,
        t("rf_steps", lang),
        1,
        capped("max_new_tokens", 256, keys.STEPS),
        keys.STEPS,
        step=4,
        help=cap_help("max_new_tokens", lang, t("rf_steps_help", lang)),
    )
    most = capped("max_batch", max(BATCH_CHOICES))
    allowed = [b for b in BATCH_CHOICES if b <= most]
    if any(b not in allowed for b in st.session_state.get(keys.BATCHES) or []):
        st.session_state[keys.BATCHES] = [b for b in st.session_state[keys.BATCHES] if b in allowed]
    batches = c3.multiselect(
        t("rf_batches", lang),
        allowed,
        key=keys.BATCHES,
        help=cap_help("max_batch", lang, t("rf_batches_help", lang)),
        persist_state=KEEP,
    )
    clicked = c4.button(t("rf_run", lang), type="primary", key=keys.RUN, icon=":material/speed:")
    return prompt_len, steps, list(batches), clicked


def measure_roofline(
    bundle, registry, ceilings: DeviceCeilings, prompt_len: int, steps: int, batches: list[int], lang: str
) -> None:
    """Every batch size's steps timed on the roofline, with progress; the result kept, or why not shown."""
    st.session_state.pop(keys.RESULT, None)

    def measure(box) -> RooflineResult:
        bar = box.progress(0.0, text=t("rf_progress", lang, done=0, total=len(batches) * (steps + 1)))
        live = box.empty()

        def progress(done: int, total: int) -> None:
            bar.progress(done / total, text=t("rf_progress", lang, done=done, total=total))

        dtype = str(bundle.model.dtype).removeprefix("torch.")
        ceilings.peak_flops(dtype)  # a clear message before the run if this dtype has no measured roof
        ids = prompt_of_length(bundle.tokenizer, prompt_len)
        device = str(bundle.model.device)

        def landed(points: list[RooflinePoint]) -> None:  # each round's steps on screen as they land
            partial = RooflineResult(bundle.name, dtype, prompt_len, steps, points, summarise(points), ceilings, None)
            with live.container():
                st.caption(t("rf_so_far", lang, n=len(points)))
                show_table(utilisation_table(partial, lang))

        with NvmlSampler(device) as sampler:
            points, load = run_roofline(
                bundle.model, bundle.tokenizer, ids, batches, steps, progress, registry.step_lock, landed
            )
        live.empty()  # the page draws the whole result below
        samples = sampler.samples if sampler.samples.times else None
        return RooflineResult(bundle.name, dtype, prompt_len, steps, points, summarise(points), ceilings, samples, load)

    run_with_progress(
        measure,
        lang,
        running=t("rf_running", lang, n=len(batches)),
        failed=t("rf_failed", lang),
        done=lambda r: t("rf_done", lang, n=len(r.points), L=prompt_len),
        keep=keys.RESULT,
    )


def utilisation_table(r: RooflineResult, lang: str) -> pd.DataFrame:
    peak, bw = r.ceilings.peak_flops(r.dtype), r.ceilings.read_bytes_per_s
    ridge = ridge_intensity(peak, bw)
    rows = []
    for s in r.summary:
        rows.append(
            {
                t("rf_col_phase", lang): t(f"rf_phase_{s.phase}", lang),
                t("rf_col_batch", lang): s.batch,
                t("rf_col_steps", lang): s.num_steps,
                t("rf_col_ms", lang): round(s.ms, 1),
                t("rf_col_gflop", lang): round(s.flops / 1e9, 3),
                t("rf_col_mb", lang): round(s.bytes_moved / 1e6, 1),
                t("rf_col_intensity", lang): round(s.intensity, 2),
                t("rf_col_achieved", lang): round(s.flops_per_s / 1e9, 1),
                t("rf_col_gbs", lang): round(s.bytes_per_s / 1e9, 1),
                t("rf_col_compute_share", lang): f"{100 * s.flops_per_s / peak:.0f} %",
                t("rf_col_bw_share", lang): f"{100 * s.bytes_per_s / bw:.0f} %",
                t("rf_col_bound", lang): t("rf_bound_compute" if s.intensity >= ridge else "rf_bound_memory", lang),
            }
        )
    return pd.DataFrame(rows)


def _share(r: RooflineResult, phase: str, batch: int) -> PhaseSummary | None:
    return next((s for s in r.summary if s.phase == phase and s.batch == batch), None)


def _roof_shares(r: RooflineResult, lang: str) -> str:
    """How much of its own roof each phase's median step reached, from this run's numbers, with the
    other work that shared the machine beside them."""
    peak, bw = r.ceilings.peak_flops(r.dtype), r.ceilings.read_bytes_per_s
    shares = ", ".join(
        t(
            "rf_roof_share",
            lang,
            phase=t(f"rf_phase_{s.phase}", lang),
            B=s.batch,
            share=s.flops_per_s / min(peak, s.intensity * bw),
        )
        for s in r.summary
    )
    return t("rf_reading_measured", lang, shares=shares + busy_beside(r.load, lang))


def _load_caption(r: RooflineResult, lang: str) -> None:
    """How busy other work kept the machine while the steps raced, and the ceilings' own reading."""
    said = []
    if r.load is not None:
        known = r.load.other_cores is not None
        said.append(
            t("rf_run_load", lang, other=r.load.other_cores, cores=r.load.cores) if known else t("load_unknown", lang)
        )
    if r.ceilings.busy:
        said.append(t("rf_ceilings_were_busy", lang, reading=busy_reading(r.ceilings, lang)))
    if said:
        st.caption(" ".join(said))


def render_result(r: RooflineResult, lang: str) -> None:
    _load_caption(r, lang)
    peak, bw = r.ceilings.peak_flops(r.dtype), r.ceilings.read_bytes_per_s
    first = min(s.batch for s in r.summary)
    last = max(s.batch for s in r.summary)
    pre, dec1, dec_n = _share(r, "prefill", first), _share(r, "decode", first), _share(r, "decode", last)
    cols = st.columns(4)
    if pre:
        cols[0].metric(t("rf_m_prefill_compute", lang, B=first), f"{100 * pre.flops_per_s / peak:.0f} %")
    if dec1:
        cols[1].metric(t("rf_m_decode_bw", lang, B=first), f"{100 * dec1.bytes_per_s / bw:.0f} %")
        cols[2].metric(t("rf_m_decode_compute", lang, B=first), f"{100 * dec1.flops_per_s / peak:.1f} %")
    if dec_n and dec1 and last != first:
        cols[3].metric(t("rf_m_decode_compute", lang, B=last), f"{100 * dec_n.flops_per_s / peak:.1f} %")
        paired = rate_ratio(r.points, last, first, load=r.load)  # the steps raced: the i-th pair saw one load
        st.caption(t("rf_rate_ratio", lang, B=last, b=first, ratio=ratio_text(paired, lang)))
    roofs = {d: v for d, v in r.ceilings.gemm_flops_per_s.items() if v}
    st.plotly_chart(roofline_figure(r.points, r.summary, roofs, bw, r.dtype, lang), key=keys.FIG_ROOFLINE)
    st.caption(
        t(
            "rf_result_caption",
            lang,
            model=md_literal(r.model),
            dtype=r.dtype,
            L=r.prompt_len,
            N=r.decode_steps,
            n=len(r.points),
        )
    )
    st.markdown(t("rf_util_header", lang))
    show_formula(
        formula(
            r"<compute_share> = \frac{\text{FLOPs}/t}{<peak>} \qquad "
            r"<bandwidth_share> = \frac{<bytes>/t}{<read_bw>} \qquad I = \frac{\text{FLOPs}}{<bytes>}",
            lang,
        )
    )
    show_table(utilisation_table(r, lang), key=keys.UTIL_TABLE)
    st.markdown(t("rf_reading", lang, ridge=ridge_intensity(peak, bw), measured=_roof_shares(r, lang)))
    render_nvml(r, lang)


def render_nvml(r: RooflineResult, lang: str) -> None:
    st.markdown(t("rf_nvml_header", lang))
    if r.nvml is not None:
        s = r.nvml
        st.plotly_chart(nvml_figure(s.times, s.utilisation_pct, s.power_w, lang), key=keys.FIG_NVML)
        return
    why = nvml_status(r.ceilings.device)
    st.caption(t("rf_nvml_cpu" if why == "cpu" else "rf_nvml_missing", lang, why=md_literal(why or "")))


def render_roofline_section(bundle, registry, ceilings: DeviceCeilings, lang: str) -> None:
    st.markdown(t("rf_run_intro", lang))
    prompt_len, steps, batches, clicked = render_controls(bundle.model.config.max_position, lang)
    if clicked:
        with take_turn(lang) as go:
            if go:
                measure_roofline(bundle, registry, ceilings, prompt_len, steps, batches, lang)
    result = st.session_state.get(keys.RESULT)
    if result is None or result.model != bundle.name:
        st.info(t("rf_not_run", lang))
        return
    render_result(result, lang)
