"""Section 1 of the complexity lab (C13, C14): generate with and without the KV cache on the loaded
model, with progress, then per-step and cumulative cost, measured and counted, and fitted exponents.

The whole comparison holds the registry's step lock: it is a timing experiment, and another
session's steps interleaved with it would show up as noise in both curves.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import pandas as pd
import streamlit as st

from app_pages.complexity import keys
from app_pages.complexity.figures import cumulative_figure, step_flops_figure, step_time_figure
from app_pages.complexity.strings import t
from engine.errors import LabError
from lab.busy import LoadMeter, MachineLoad
from lab.complexity import CacheRun, crossover_context, run_with_and_without_cache
from lab.complexity_math import measured_exponents, prompt_of_length, scaled_theory
from ui.errors import show_error
from ui.load_note import show_load, was_busy
from ui.public import check_run_work
from ui.public_caps import cap_help, capped
from ui.queue_wait import take_turn
from ui.run_section import run_with_progress
from ui.text import md_literal, with_eta
from ui.widget_state import seed
from ui.widgets import whole_number_box

# N = 96 after L = 32 takes about 30 s on the bundled model on 2 quiet AVX2 cores (docs/complexity.md)
DEFAULT_L, DEFAULT_N, MIN_N, MAX_N = 32, 96, 8, 1024
REDRAW_S = 1.0  # the progress bar's redraw interval: each redraw costs the browser CPU (docs/playground.md)
SETTLE_S = 1.0  # after a chart is sent: the browser draws it before the next timed step starts


@dataclass
class Comparison:
    """One finished comparison, as kept in st.session_state (plain lists, no tensors)."""

    model: str
    prompt_len: int
    max_new_tokens: int
    runs: dict[bool, CacheRun]
    text: str
    crossover: int  # C* of the model, with the cache
    crossover_uncached: int  # and without it
    load: MachineLoad | None = None  # other processes' CPU use while both runs were timed

    @property
    def tokens_match(self) -> bool:
        return self.runs[True].tokens == self.runs[False].tokens

    @property
    def num_steps(self) -> int:
        return len(self.runs[True].step_ms)


def run_comparison(bundle, prompt_len: int, max_new_tokens: int, lock, progress, finished=None) -> Comparison:
    """Both runs, KV cache on then off; ValueError (readable) on settings the model cannot run.
    progress and finished: as lab/complexity.run_with_and_without_cache calls them."""
    if max_new_tokens < MIN_N:
        raise LabError(f"N must be at least {MIN_N}: a slope needs a few decode steps to fit on.")
    c = bundle.model.config
    if prompt_len + max_new_tokens > c.max_position:
        raise LabError(
            f"L = {prompt_len} + N = {max_new_tokens} exceed this model's context of "
            f"{c.max_position} tokens; lower one of them."
        )
    ids = prompt_of_length(bundle.tokenizer, prompt_len)
    with lock:
        # A two-token pass first: a fresh process pays one-off costs on the first steps of new shapes
        # (oneDNN primitives, allocator growth) that would otherwise bend the start of both curves.
        run_with_and_without_cache(bundle.model, bundle.tokenizer, ids, 2)
        runs = run_with_and_without_cache(
            bundle.model, bundle.tokenizer, ids, max_new_tokens, progress=progress, finished=finished
        )
    text = bundle.tokenizer.decode(runs[True].tokens, skip_special_tokens=True)
    return Comparison(
        bundle.name, prompt_len, max_new_tokens, runs, text, crossover_context(c, True), crossover_context(c, False)
    )


def render_controls(max_position: int, lang: str) -> tuple[int, int, bool]:
    max_l = max(1, max_position - MIN_N)
    seed({keys.L: min(DEFAULT_L, max_l), keys.N: DEFAULT_N})
    c1, c2, c3 = st.columns([1, 1, 1], vertical_alignment="bottom")
    prompt_len = whole_number_box(c1, t("cx_L", lang), 1, max_l, keys.L, help=t("cx_L_help", lang))
    most = capped("max_new_tokens", MAX_N, keys.N, MIN_N)
    max_new = whole_number_box(
        c2, t("cx_N", lang), MIN_N, most, keys.N, step=8, help=cap_help("max_new_tokens", lang, t("cx_N_help", lang))
    )
    clicked = c3.button(t("cx_run", lang), type="primary", key=keys.RUN, icon=":material/speed:")
    return prompt_len, max_new, clicked


def measure_comparison(bundle, registry, prompt_len: int, max_new: int, lang: str) -> None:
    """Run the comparison under an st.status with a progress bar; keep the result or show why not."""
    try:
        check_run_work(prompt_len, max_new, kv_cache=False)  # its second pass runs without the cache
    except LabError as exc:
        show_error(exc, lang)
        return
    st.session_state.pop(keys.RESULT, None)

    def measure(box) -> Comparison:
        bar = box.progress(0.0, text=t("cx_progress_on", lang, done=0, N=max_new))
        last_drawn = [0.0]

        def progress(fraction: float, left: float | None) -> None:
            # Every redraw costs the server and the browser CPU the measured steps then lack (2 cores):
            # redraw a few times a second, and at the switch to the second run.
            done = round(fraction * 2 * max_new)
            now = time.perf_counter()
            if now - last_drawn[0] < REDRAW_S and done not in (max_new, max_new + 1, 2 * max_new):
                return
            last_drawn[0] = now
            key, step = ("cx_progress_on", done) if done <= max_new else ("cx_progress_off", done - max_new)
            bar.progress(min(max(fraction, 0.0), 1.0), text=with_eta(t(key, lang, done=step, N=max_new), left, lang))

        so_far = box.empty()

        def finished(run: CacheRun) -> None:
            """The cached run's steps, drawn once it ends: a result to look at while the slow run goes on.
            Only between the runs, with a pause to draw it: a chart drawn during a timed step takes its CPU."""
            if run.kv_cache:
                with so_far.container():
                    st.plotly_chart(step_time_figure({True: run}, prompt_len, lang), key=keys.FIG_STEP_MS_SO_FAR)
                    st.caption(t("cx_so_far", lang))
                time.sleep(SETTLE_S)

        with LoadMeter() as meter:
            result = run_comparison(bundle, prompt_len, max_new, registry.step_lock, progress, finished)
        result.load = meter.load
        so_far.empty()  # the full charts follow
        return result

    run_with_progress(
        measure,
        lang,
        running=t("cx_running", lang, L=prompt_len, N=max_new),
        failed=t("cx_failed", lang),
        done=t("cx_done", lang, L=prompt_len, N=max_new),
        keep=keys.RESULT,
    )


def exponent_table(r: Comparison, lang: str) -> pd.DataFrame:
    rows = []
    for kv in (True, False):
        run = r.runs[kv]
        ms_slope, flops_slope = measured_exponents(run)
        theory = scaled_theory(r.prompt_len, run.cumulative_flops, 1 if kv else 2)
        rows.append(
            {
                t("cx_col_mode", lang): t("cx_cache_on" if kv else "cx_cache_off", lang),
                t("cx_col_total_ms", lang): round(sum(run.step_ms)),
                t("cx_col_slope_ms", lang): None if ms_slope is None else round(ms_slope, 2),
                t("cx_col_slope_flops", lang): None if flops_slope is None else round(flops_slope, 2),
                t("cx_col_slope_doc_range", lang): None if theory.slope is None else round(theory.slope, 2),
                t("cx_col_slope_doc", lang): "2 (C14)" if kv else "3 (C13)",
            }
        )
    return pd.DataFrame(rows)


def _measured_slopes(r: Comparison, lang: str) -> str:
    """The slopes this run measured, in words; a time slope taken on a busy machine is not given."""
    (on_ms, on_f), (off_ms, off_f) = measured_exponents(r.runs[True]), measured_exponents(r.runs[False])

    def word(x: float | None, timed: bool) -> str:
        if x is None:
            return t("cx_slope_none", lang)
        return t("cx_slope_busy", lang) if timed and was_busy(r.load) else f"{x:.2f}"

    return t(
        "cx_reading_measured",
        lang,
        on_ms=word(on_ms, True),
        off_ms=word(off_ms, True),
        on_f=word(on_f, False),
        off_f=word(off_f, False),
    )


def render_result(r: Comparison, lang: str) -> None:
    on, off = r.runs[True], r.runs[False]
    c = st.columns(4)
    c[0].metric(
        t("cx_m_match", lang), t("cx_yes" if r.tokens_match else "cx_no", lang), help=t("cx_m_match_help", lang)
    )
    c[1].metric(t("cx_m_on", lang), f"{sum(on.step_ms) / 1e3:.2f} s")
    c[2].metric(t("cx_m_off", lang), f"{sum(off.step_ms) / 1e3:.2f} s")
    if was_busy(r.load):  # a ratio of timings taken on a busy machine is not given
        c[3].metric(t("cx_m_ratio", lang), t("busy_ratio_value", lang), help=t("busy_ratio_help", lang))
    else:
        c[3].metric(t("cx_m_ratio", lang), f"{sum(off.step_ms) / max(sum(on.step_ms), 1e-9):.1f}×")
    st.caption(
        t(
            "cx_result_caption",
            lang,
            model=md_literal(r.model),
            L=r.prompt_len,
            N=r.max_new_tokens,
            n=r.num_steps,
            last=r.prompt_len + r.num_steps,
        )
    )
    st.dataframe(exponent_table(r, lang), hide_index=True, key=keys.EXPONENTS)
    last = r.prompt_len + r.num_steps
    st.markdown(
        t(
            "cx_reading" if last < r.crossover else "cx_reading_beyond",
            lang,
            last=last,
            cross=f"{r.crossover:,}",
            cross2=f"{r.crossover_uncached:,}",
            measured=_measured_slopes(r, lang),
        )
    )
    c1, c2 = st.columns(2)
    c1.plotly_chart(cumulative_figure(r.runs, r.prompt_len, "ms", lang), key=keys.FIG_CUM_MS)
    c2.plotly_chart(cumulative_figure(r.runs, r.prompt_len, "flops", lang), key=keys.FIG_CUM_FLOPS)
    c1, c2 = st.columns(2)
    c1.plotly_chart(step_time_figure(r.runs, r.prompt_len, lang), key=keys.FIG_STEP_MS)
    c2.plotly_chart(step_flops_figure(r.runs, r.prompt_len, lang), key=keys.FIG_STEP_FLOPS)
    st.caption(t("cx_noise_note", lang))
    with st.expander(t("cx_text_header", lang)):
        st.text(r.text)  # st.text shows it literally: model output never becomes markup


def render_cache_section(bundle, registry, lang: str) -> None:
    st.markdown(t("cx_cache_intro", lang))
    prompt_len, max_new, clicked = render_controls(bundle.model.config.max_position, lang)
    if clicked:
        with take_turn(lang) as go:
            if go:
                measure_comparison(bundle, registry, prompt_len, max_new, lang)
    result = st.session_state.get(keys.RESULT)
    if result is None:
        st.info(t("cx_not_run", lang))
        return
    show_load(result.load, lang)
    render_result(result, lang)
