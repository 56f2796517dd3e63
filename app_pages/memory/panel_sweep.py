"""The memory lab's first tab: a measured sweep of prefill peaks over prompt length, eager vs sdpa
vs chunked, against the score-matrix formula (C20). Each point is a real prefill through the
engine with the CPU tensor tracker (or CUDA's counters); progress is shown point by point. Then what
the scores cost in time: the same prefill each way, interleaved, eager ÷ sdpa with its interval and n
(ui/paired.py) beside the bytes eager writes (counted, whatever the load)."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from app_pages.memory import keys
from app_pages.memory.figures import breakdown_figure, difference_figure, sweep_peak_figure
from app_pages.memory.panel_timing import timing_download, timing_table
from app_pages.memory.strings import t
from app_pages.memory.sweep import (
    DEFAULT_ROUNDS,
    MAX_ROUNDS,
    SweepPlan,
    SweepResult,
    SweepStatus,
    Variant,
    comparisons,
    new_result,
    parse_chunks,
    parse_lengths,
    parse_timed,
    peak_slopes,
    run_sweep,
    seconds_left,
)
from engine.errors import LabError
from ui.errors import error_message, show_error, show_message
from ui.models import get_registry
from ui.paired import ratio_text
from ui.queue_wait import take_turn
from ui.tables import short_labels, show_table
from ui.text import download_name, with_eta
from ui.theme import MIB, fmt_bytes
from ui.widget_state import KEEP, seed
from ui.widgets import whole_number, whole_number_box

# About 20 s on the bundled model on 2 quiet AVX2 cores (docs/memory.md); 2048 would add about 40 s more.
# The timing, five rounds of an uninstrumented 1024-token prefill each way (~1.5 s each on 2 quiet cores,
# eager a little more), about 15 s: the default sweep within a minute.
DEFAULT_LENGTHS = (64, 128, 256, 512, 1024)


def _init_defaults(max_len: int) -> None:
    lengths = [L for L in DEFAULT_LENGTHS if L <= max_len] or [max_len]
    seed(
        {
            keys.LENGTHS: ", ".join(map(str, lengths)),
            keys.BACKENDS: ["eager", "sdpa"],
            keys.CHUNKS: "512",
            keys.WITH_WEIGHTS: False,
            keys.TIMED: str(lengths[-1]),  # the longest: where the scores weigh most
            keys.ROUNDS: DEFAULT_ROUNDS,
        }
    )


def _controls(max_len: int, lang: str) -> bool:
    _init_defaults(max_len)
    with st.form(keys.SWEEP_FORM):
        c1, c2, c3 = st.columns([2.2, 1.4, 1])
        c1.text_input(
            t("mem_lengths", lang), key=keys.LENGTHS, help=t("mem_lengths_help", lang, max=max_len), persist_state=KEEP
        )
        c2.multiselect(
            t("mem_backends", lang),
            ["eager", "sdpa"],
            key=keys.BACKENDS,
            help=t("mem_backends_help", lang),
            persist_state=KEEP,
        )
        c3.text_input(t("mem_chunks", lang), key=keys.CHUNKS, help=t("mem_chunks_help", lang), persist_state=KEEP)
        c4, c5, _ = st.columns([2.2, 1.4, 1])
        c4.text_input(t("mem_timed", lang), key=keys.TIMED, help=t("mem_timed_help", lang), persist_state=KEEP)
        whole_number_box(c5, t("mem_rounds", lang), 1, MAX_ROUNDS, keys.ROUNDS, help=t("mem_rounds_help", lang))
        return st.form_submit_button(
            t("mem_run_sweep", lang), type="primary", icon=":material/play_arrow:", key=keys.RUN_SWEEP
        )


def _plan(max_len: int, lang: str) -> SweepPlan:
    s = st.session_state
    if not s[keys.BACKENDS]:
        raise LabError(t("mem_err_no_backend", lang))
    rounds = whole_number(s[keys.ROUNDS])
    if rounds is None:
        raise LabError(t("mem_err_no_rounds", lang))
    return SweepPlan(
        parse_lengths(s[keys.LENGTHS], max_len, lang),
        list(s[keys.BACKENDS]),
        parse_chunks(s[keys.CHUNKS], lang),
        parse_timed(s[keys.TIMED], max_len, lang),
        rounds,
    )


def _line(result: SweepResult, i: int, lang: str) -> str:
    """What item i measured: a memory point, or (after them) a timing."""
    if i >= len(result.points):
        timing = result.timings[i - len(result.points)]
        return t("mem_timing_done", lang, L=timing.L, ratio=ratio_text(timing.ratio, lang), s=result.seconds[i])
    p, seconds = result.points[i], result.seconds[i]
    return t(
        "mem_point_done",
        lang,
        L=p.prompt_len,
        variant=Variant(p.backend, p.chunk).label(lang),
        peak=fmt_bytes(p.peak_bytes),
        scores=fmt_bytes(p.scores_bytes),
        s=seconds,
    )


def _run(bundle, max_len: int, lang: str) -> None:
    try:
        plan = _plan(max_len, lang)
    except LabError as exc:
        show_error(exc, lang)
        return
    result = new_result(bundle, plan)
    st.session_state[keys.SWEEP] = result
    points, n = plan.points(), plan.num_items
    at = ", ".join(map(str, plan.timed))
    running = (
        t("mem_sweep_running_timed", lang, n=len(points), at=at) if at else t("mem_sweep_running", lang, n=len(points))
    )
    slot = st.empty()  # the box goes when the sweep ends: its closing line is the result's (_show)
    with slot.status(running, expanded=True) as box:
        bar = st.progress(0.0)
        chart, lines = st.empty(), st.empty()
        try:
            for done in run_sweep(bundle, result, get_registry().step_lock):
                if done and done <= len(points):  # memory is not timed: the chart can grow with every point
                    chart.plotly_chart(sweep_peak_figure(result, lang), key=keys.so_far(keys.FIG_PEAK, done))
                if done:
                    lines.caption("  \n".join(_line(result, i, lang) for i in range(done)))
                if done < n:
                    bar.progress(done / n, text=with_eta(_next(plan, done, lang), seconds_left(result), lang))
        except Exception as exc:  # noqa: BLE001 - keep the points measured so far, say what failed
            result.status, result.error = SweepStatus.FAILED, error_message(exc, lang)
            box.update(label=t("mem_sweep_failed", lang), state="error")
            return
        chart.empty()  # the page draws the full result below
    slot.empty()


def _done_text(result: SweepResult, lang: str) -> str:
    """The closing line of a finished sweep, the same on every later visit and in either language."""
    n, s = len(result.plan.points()), sum(result.seconds)
    at = ", ".join(map(str, result.plan.timed))
    return t("mem_sweep_done_timed", lang, n=n, at=at, s=s) if at else t("mem_sweep_done", lang, n=n, s=s)


def _next(plan: SweepPlan, done: int, lang: str) -> str:
    """What the sweep measures next: a memory point, or a timed length."""
    points, n = plan.points(), plan.num_items
    if done < len(points):
        L, v = points[done]
        return t("mem_sweep_progress", lang, L=L, variant=v.label(lang), i=done + 1, n=n)
    return t("mem_timing_progress", lang, L=plan.timed[done - len(points)], rounds=plan.rounds, i=done + 1, n=n)


def _comparison_table(result: SweepResult, lang: str) -> None:
    rows = comparisons(result)
    if not rows:
        st.info(t("mem_cmp_needs_both", lang))
        return
    st.subheader(t("mem_cmp_header", lang))
    st.markdown(t("mem_cmp_explain", lang, heads=result.num_heads, bytes=result.elem_bytes, dtype=result.dtype))
    table = pd.DataFrame(
        {
            "L": [r.L for r in rows],
            t("mem_col_eager", lang): [r.eager_peak / MIB for r in rows],
            t("mem_col_sdpa", lang): [r.sdpa_peak / MIB for r in rows],
            t("mem_col_diff", lang): [r.difference / MIB for r in rows],
            t("mem_col_formula", lang): [r.formula / MIB for r in rows],
            t("mem_col_ratio", lang): [f"{r.ratio:.1%}" for r in rows],
            t("mem_col_scores", lang): [r.eager_scores / MIB for r in rows],
        }
    )
    show_table(
        table,
        key=keys.CMP_TABLE,
        short=short_labels(t, lang, "mem_col_scores"),
        column_config={  # three decimals: a short prompt's difference is a few KiB, not "0.00"
            c: st.column_config.NumberColumn(format="%.3f") for c in table.columns[1:5].tolist() + [table.columns[6]]
        },
    )
    lines = [
        t(
            "mem_why_line",
            lang,
            L=r.L,
            ratio=f"{r.ratio:.1%}",
            eager=_site(r.eager_site, lang),
            sdpa=_site(r.sdpa_site, lang),
            why=t(r.verdict, lang),
        )
        for r in rows
    ]
    st.markdown(t("mem_why_lead", lang) + "\n\n" + "\n".join(lines))  # what the percentage means, then each
    st.plotly_chart(difference_figure(rows, lang), key=keys.FIG_DIFF)


def _site(site: str | None, lang: str) -> str:
    return t(f"mem_site_{site}", lang) if site else "—"  # None: CUDA's counters give no split


def _points_csv(result: SweepResult) -> str:
    return pd.DataFrame(
        [
            {
                "prompt_len": p.prompt_len,
                "backend": p.backend,
                "chunk": p.chunk or "",
                "peak_bytes": p.peak_bytes,
                "scores_bytes": p.scores_bytes,
                "activations_bytes": p.activations_bytes,
                "kv_bytes": p.kv_bytes,
                "decode_peak_bytes": p.decode_peak_bytes,
                "formula_scores_bytes": p.formula_scores,
                "peak_in": p.site or "",
                "seconds": round(s, 3),
            }
            for p, s in zip(result.points, result.seconds)
        ]
    ).to_csv(index=False)


def _measured_slopes(result: SweepResult, lang: str) -> None:
    """What the chart shows, in numbers from this sweep (no sentence states a result it did not measure)."""
    slopes = peak_slopes(result)
    if not slopes:
        return
    items = "; ".join(
        t("mem_slope_item", lang, variant=s.variant.label(lang), k=s.exponent, L0=s.L0, L1=s.L1) for s in slopes
    )
    decode = max(p.decode_peak_bytes for p in result.points)
    prefill = max(p.peak_bytes for p in result.points)
    st.caption(t("mem_slopes", lang, slopes=items, decode=fmt_bytes(decode), prefill=fmt_bytes(prefill)))


def _show(result: SweepResult, lang: str) -> None:
    total = len(result.plan.points())
    if result.status == SweepStatus.STOPPED:
        st.warning(t("mem_sweep_stopped", lang, done=len(result.points), n=total), icon=":material/stop_circle:")
    elif result.status == SweepStatus.FAILED:
        show_message(result.error or t("err_unexpected", lang, kind="?"))
    elif result.status == SweepStatus.DONE:
        st.success(_done_text(result, lang), icon=":material/check_circle:")
    if not result.points:
        return
    over = [r for r in comparisons(result) if r.verdict == "mem_why_half"]
    if result.elem_bytes < 4 and over:
        r = over[-1]
        st.info(t("mem_half_note", lang, dtype=result.dtype, L=r.L, ratio=f"{r.eager_scores / r.formula:.0%}"))
    st.plotly_chart(sweep_peak_figure(result, lang), key=keys.FIG_PEAK)
    st.caption(t("mem_peak_caption", lang))
    _measured_slopes(result, lang)
    _comparison_table(result, lang)
    timing_table(result, lang)
    st.subheader(t("mem_breakdown_header", lang))
    with_weights = st.toggle(
        t("mem_with_weights", lang),
        key=keys.WITH_WEIGHTS,
        persist_state=KEEP,
        help=t("mem_with_weights_help", lang, weights=fmt_bytes(result.weight_bytes)),
    )
    st.plotly_chart(breakdown_figure(result, lang, with_weights), key=keys.FIG_BREAKDOWN)
    st.caption(t("mem_breakdown_caption", lang))
    st.download_button(
        t("mem_download_csv", lang),
        _points_csv(result),
        file_name=download_name("memory-sweep", result.model_name, ext="csv"),
        mime="text/csv",
        on_click="ignore",
        key=keys.SWEEP_CSV,
        icon=":material/download:",
    )
    timing_download(result, lang)


def sweep_panel(bundle, lang: str) -> None:
    st.markdown(t("mem_sweep_explain", lang))
    max_len = bundle.model.config.max_position - 1
    run = _controls(max_len, lang)
    result: SweepResult | None = st.session_state.get(keys.SWEEP)
    if result is not None and result.status == SweepStatus.RUNNING:
        result.status = SweepStatus.STOPPED  # still running at the start of a script run: cut short
    if run:
        with take_turn(lang) as go:
            if go:
                _run(bundle, max_len, lang)
    result = st.session_state.get(keys.SWEEP)
    if result is None:
        st.info(t("mem_sweep_none", lang))
        return
    _show(result, lang)
