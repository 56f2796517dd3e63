"""The calibration section: the projection's formulas with THIS machine's measured ceilings against
the TTFT and TPOT the engine measures here on the loaded model; the ratio says how far the simple
model is from the machine. The lengths are measured in rounds, their order alternating (busy rounds
run again within the budget): each ratio is the median of the rounds' with its interval and n, the
load beside it (ui/paired.py), and ceilings measured busy are said to be so."""

from __future__ import annotations

import time
from dataclasses import dataclass, replace

import pandas as pd
import streamlit as st

from app_pages.roofline import keys
from app_pages.roofline.ceilings import busy_reading
from app_pages.roofline.figures import calibration_figure
from app_pages.roofline.strings import formula, t
from engine.errors import LabError
from lab.calibration import CalibrationRow, calibrate
from lab.complexity_math import prompt_of_length
from lab.hardware import DeviceCeilings
from ui.formula import show_formula
from ui.paired import busy_beside, explain_text, ratio_text, retaken_text
from ui.public_caps import cap_help, capped
from ui.queue_wait import take_turn
from ui.run_section import run_with_progress
from ui.tables import show_table
from ui.text import md_literal
from ui.widget_state import KEEP, seed
from ui.widgets import whole_number_box

LENGTH_CHOICES = [8, 16, 32, 64, 128, 256, 512, 1024]
# Five rounds of a 16- and a 128-token prompt with 16 new tokens: about 1 s a round on 2 quiet cores.
DEFAULTS = {keys.CAL_LENGTHS: [16, 128], keys.CAL_N: 16, keys.CAL_REPEATS: 5}
RETAKE_BUDGET_S = 60.0  # busy rounds are run again while the calibration is inside this


@dataclass
class CalibrationResult:
    model: str
    dtype: str
    new_tokens: int
    repeats: int
    rows: list[CalibrationRow]
    ceilings: DeviceCeilings


def render_controls(max_position: int, lang: str) -> tuple[list[int], int, int, bool]:
    seed(DEFAULTS)
    c1, c2, c3, c4 = st.columns([5, 2, 2, 3], vertical_alignment="bottom")
    lengths = c1.multiselect(
        t("rf_cal_lengths", lang),
        [x for x in LENGTH_CHOICES if x < max_position - 2],
        key=keys.CAL_LENGTHS,
        persist_state=KEEP,
    )
    new_tokens = whole_number_box(
        c2,
        t("rf_cal_N", lang),
        2,
        capped("max_new_tokens", 256, keys.CAL_N, 2),
        keys.CAL_N,
        step=8,
        help=cap_help("max_new_tokens", lang),
    )
    repeats = whole_number_box(
        c3,
        t("rf_cal_repeats", lang),
        1,
        capped("max_repeats", 30, keys.CAL_REPEATS),
        keys.CAL_REPEATS,
        help=cap_help("max_repeats", lang, t("rf_cal_repeats_help", lang)),
    )
    clicked = c4.button(t("rf_cal_run", lang), type="primary", key=keys.CAL_RUN, icon=":material/straighten:")
    return sorted(lengths), new_tokens, repeats, clicked


def measure_calibration(
    bundle, registry, ceilings: DeviceCeilings, lengths: list[int], new_tokens: int, repeats: int, lang: str
) -> None:
    """TTFT and TPOT measured at each length against their projection, with progress; kept, or why not shown."""
    st.session_state.pop(keys.CAL_RESULT, None)

    def measure(box) -> CalibrationResult:
        bar = box.progress(0.0, text=t("rf_progress_runs", lang, done=0, total=len(lengths) * repeats))

        def progress(done: int, total: int) -> None:
            bar.progress(done / total, text=t("rf_progress_runs", lang, done=done, total=total))

        if not lengths:
            raise LabError("Pick at least one prompt length.")
        c = bundle.model.config
        if max(lengths) + new_tokens > c.max_position:
            raise LabError(
                f"L = {max(lengths)} + N = {new_tokens} exceed this model's context of {c.max_position} tokens."
            )
        prompts = {L: prompt_of_length(bundle.tokenizer, L) for L in lengths}
        deadline = time.perf_counter() + RETAKE_BUDGET_S
        with registry.step_lock:  # a timing experiment: no other session's steps in between
            rows = calibrate(bundle.model, bundle.tokenizer, ceilings, prompts, new_tokens, repeats, progress, deadline)
        dtype = str(bundle.model.dtype).removeprefix("torch.")
        return CalibrationResult(bundle.name, dtype, new_tokens, repeats, rows, ceilings)

    run_with_progress(
        measure,
        lang,
        running=t("rf_cal_running", lang),
        failed=t("rf_failed", lang),
        done=t("rf_cal_done", lang),
        keep=keys.CAL_RESULT,
    )


def ratio_range(ratios: list[float]) -> str:
    """'1.19–1.49×': three significant digits, so a ratio of 100 on a busy machine still fits its column."""
    return f"{min(ratios):.3g}–{max(ratios):.3g}×"


def _interval_text(row: CalibrationRow, with_overhead: bool, lang: str) -> str:
    """The ratio, its interval and n; the load is said once, in the column's name."""
    return ratio_text(replace(row.interval(with_overhead), load=None), lang)


def calibration_table(r: CalibrationResult, lang: str) -> pd.DataFrame:
    """Each length and metric: predicted, measured (the median of the rounds) and measured ÷ predicted
    over the rounds, the load other work put on the machine beside the ratio columns' names."""
    beside = busy_beside(r.rows[0].load if r.rows else None, lang)
    return pd.DataFrame(
        [
            {
                t("rf_col_metric", lang): row.metric,
                "L": row.prompt_len,
                t("rf_col_predicted", lang): round(row.predicted_ms, 2),
                t("rf_col_overhead", lang): round(row.overhead_ms, 2),
                t("rf_col_measured", lang): round(row.measured_ms, 2),
                t("rf_col_ratio", lang) + beside: _interval_text(row, False, lang),
                t("rf_col_ratio_oh", lang) + beside: _interval_text(row, True, lang),
            }
            for row in r.rows
        ]
    )


def render_calibration_section(bundle, registry, ceilings: DeviceCeilings, lang: str) -> None:
    st.markdown(t("rf_cal_intro", lang))
    c1, c2 = st.columns([2, 3])
    show_formula(
        formula(
            r"\widehat{\mathrm{TTFT}}(L) = \frac{\mathrm{FLOPs}_{<prefill>}(L)}{P_{<here>}} + \frac{W}{B_{<here>}}",
            lang,
        ),
        c1,
    )
    show_formula(
        formula(
            r"\widehat{\mathrm{TPOT}} = \operatorname{mean}_{C}\,\max(t_{<read>}(C), t_{<compute>}(C)) \qquad "
            r"t_{<read>}(C) = \frac{<bytes>(C)}{B_{<here>}} \qquad t_{<compute>}(C) = \frac{\mathrm{FLOPs}(C)}{P_{<here>}}",
            lang,
        ),
        c2,
    )
    show_formula(
        formula(r"<overhead> = n_{<ops>}(<step>) \times t_{<op>} \qquad <ratio> = \frac{<measured>}{<predicted>}", lang)
    )
    lengths, new_tokens, repeats, clicked = render_controls(bundle.model.config.max_position, lang)
    if clicked:
        with take_turn(lang) as go:
            if go:
                measure_calibration(bundle, registry, ceilings, lengths, new_tokens, repeats, lang)
    r = st.session_state.get(keys.CAL_RESULT)
    if r is None or r.model != bundle.name:
        st.info(t("rf_cal_not_run", lang))
        return
    ttft = [row.ratio for row in r.rows if row.metric == "TTFT"]
    tpot = [row.ratio for row in r.rows if row.metric == "TPOT"]
    ttft_oh = [row.ratio_with_overhead for row in r.rows if row.metric == "TTFT"]
    tpot_oh = [row.ratio_with_overhead for row in r.rows if row.metric == "TPOT"]
    c1, c2, c3, c4 = st.columns(4)
    c1.metric(t("rf_m_ratio_ttft", lang), ratio_range(ttft))
    c2.metric(t("rf_m_ratio_tpot", lang), ratio_range(tpot))
    c3.metric(t("rf_m_ratio_ttft_oh", lang), ratio_range(ttft_oh))
    c4.metric(t("rf_m_ratio_tpot_oh", lang), ratio_range(tpot_oh))
    labels = [f"{row.metric} L={row.prompt_len}" for row in r.rows]
    st.plotly_chart(
        calibration_figure(labels, [row.predicted_ms for row in r.rows], [row.measured_ms for row in r.rows], lang),
        key=keys.FIG_CAL,
    )
    show_table(calibration_table(r, lang), key=keys.CAL_TABLE)
    notes = [
        t(
            "rf_cal_caption",
            lang,
            model=md_literal(r.model),
            dtype=r.dtype,
            N=r.new_tokens,
            k=r.repeats,
            P=r.ceilings.peak_flops(r.dtype) / 1e9,
            B=r.ceilings.read_bytes_per_s / 1e9,
            op=1e6 * (r.ceilings.op_overhead_s or 0.0),
        ),
    ]
    if r.ceilings.busy:  # the predictions stand on these roofs: low roofs, low ratios
        notes.append(t("rf_ceilings_were_busy", lang, reading=busy_reading(r.ceilings, lang)))
    notes.append(retaken_text(r.rows[0].retaken if r.rows else 0, lang))
    st.caption(" ".join(n for n in notes if n))
    with st.expander(t("rf_pair_header", lang)):
        st.markdown(explain_text(lang))
    st.markdown(t("rf_cal_reading", lang))
