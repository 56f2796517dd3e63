"""The sweeps page's controls and its run: lengths as comma-separated lists, rounds, then the sweep in
rounds on the real engine under the registry's step lock (a timing experiment: another session's
steps interleaved with it would be noise), with a progress bar that names each request's result as it
lands, the charts and verdicts so far after each round, and a Stop button.

The result goes into session state before the first request and fills a round at a time: Stop (which
interrupts this script) leaves the rounds measured so far behind, marked incomplete."""

from __future__ import annotations

import time

import pandas as pd
import streamlit as st

from app_pages.sweeps import keys
from app_pages.sweeps.charts import render_charts
from app_pages.sweeps.strings import t
from app_pages.sweeps.verdicts import render_verdicts
from engine.errors import LabError
from lab.sweeps import (
    MAX_REPEATS,
    MIN_JUDGED_ROUNDS,
    SweepPoint,
    SweepResult,
    SweepSettings,
    run_sweep,
    seconds_left,
    sweep_plan,
)
from ui.public_caps import cap_help, capped, check_count, check_size
from ui.run_section import run_with_progress
from ui.tables import show_table
from ui.text import with_eta
from ui.widget_state import KEEP, seed
from ui.widgets import whole_number_box

REDRAW_S = 1.0  # each redraw takes the server and the browser CPU the timed requests then lack
STEP_REDRAW_S = 2.0  # within one request only a slow machine waits this long for the next
SETTLE_S = 0.5  # after charts are sent: the browser draws them before the next round starts
BUDGET_S = 60.0  # no busy round is measured again past this many seconds into the sweep
# The page's defaults are sized for under a minute on the bundled model on 2 quiet cores: 40 requests,
# about 1,500 decode steps of work (lab/sweeps.sweep_work) at ~20 ms a step, plus a redraw a round; the
# lab's own (lab/sweeps.SweepSettings, bench/claims.py) are the fuller 55-request sweep.
DEFAULTS = SweepSettings(prompt_lens=(16, 64, 256, 1024), output_lens=(4, 16, 32, 96), repeats=5)


def parse_lengths(text: str, lang: str) -> tuple[int, ...]:
    """'16, 64,256' -> (16, 64, 256); ValueError (readable) for anything else."""
    try:
        values = tuple(int(x) for x in text.replace("，", ",").split(",") if x.strip())
    except ValueError:
        raise LabError(t("sw_bad_list", lang, text=text)) from None
    if not values:
        raise LabError(t("sw_bad_list", lang, text=text))
    return tuple(sorted(set(values)))


def render_controls(lang: str) -> tuple[str, str, int, int, int, bool]:
    seed(
        {
            keys.LS: ", ".join(map(str, DEFAULTS.prompt_lens)),
            keys.NEW: DEFAULTS.prompt_new_tokens,
            keys.OUT_L: DEFAULTS.output_prompt_len,
            keys.NS: ", ".join(map(str, DEFAULTS.output_lens)),
            keys.REPEATS: DEFAULTS.repeats,
        }
    )
    c1, c2, c3 = st.columns([3, 1, 1])
    Ls = c1.text_input(t("sw_prompt_lens", lang), key=keys.LS, help=t("sw_prompt_lens_help", lang), persist_state=KEEP)
    new = whole_number_box(
        c2,
        t("sw_prompt_new", lang),
        2,
        capped("max_new_tokens", 256, keys.NEW, 2),
        keys.NEW,
        help=cap_help("max_new_tokens", lang),
    )
    repeats = whole_number_box(
        c3,
        t("sw_repeats", lang),
        1,
        capped("max_repeats", MAX_REPEATS, keys.REPEATS, MIN_JUDGED_ROUNDS),
        keys.REPEATS,
        help=cap_help("max_repeats", lang, t("sw_repeats_help", lang), MIN_JUDGED_ROUNDS),
    )
    c1, c2, c3 = st.columns([3, 1, 1], vertical_alignment="bottom")
    Ns = c1.text_input(t("sw_output_lens", lang), key=keys.NS, persist_state=KEEP)
    out_L = whole_number_box(
        c2,
        t("sw_output_L", lang),
        1,
        capped("max_step_tokens", 8192, keys.OUT_L),
        keys.OUT_L,
        help=cap_help("max_step_tokens", lang),
    )
    clicked = c3.button(t("sw_run", lang), type="primary", key=keys.RUN, icon=":material/speed:")
    return Ls, Ns, new, out_L, repeats, clicked


def settings_from(Ls: str, Ns: str, new: int, out_L: int, repeats: int, max_position: int, lang: str) -> SweepSettings:
    s = SweepSettings(
        prompt_lens=parse_lengths(Ls, lang),
        prompt_new_tokens=new,
        output_prompt_len=out_L,
        output_lens=parse_lengths(Ns, lang),
        repeats=repeats,
    )
    s.validate(max_position)
    check_count("max_sweep_points", len(s.prompt_lens) + len(s.output_lens), t("sw_what_points", lang))
    check_size("max_step_tokens", max(s.prompt_lens), t("sw_prompt_lens", lang))
    check_size("max_new_tokens", max(s.output_lens), t("sw_output_lens", lang))
    return s


def draw_so_far(slot, result: SweepResult, lang: str) -> None:
    """The charts and verdicts of the rounds measured so far, between two rounds, then a pause for the
    browser to draw them: a chart drawn during a timed request would take its CPU."""
    with slot.container():
        st.caption(t("sw_so_far", lang, rounds=result.rounds, total=result.settings.repeats))
        render_verdicts(result, lang)
        render_charts(result, lang, draw=result.rounds)
    time.sleep(SETTLE_S)


def draw_first_round(slot, points: list[SweepPoint], lang: str) -> None:
    """Round 1's requests as they are measured: the first numbers on screen within seconds (the
    rounds' charts and verdicts replace them when the round ends)."""
    rows = [
        {
            t("sw_col_L", lang): p.prompt_len,
            t("sw_col_N", lang): p.max_new_tokens,
            t("sw_col_gflop", lang): round(p.prefill_flops / 1e9, 2),
            t("sw_col_ttft", lang): round(p.ttft_ms, 1),
            t("sw_col_tpot", lang): round(p.tpot_ms, 1),
        }
        for p in points
    ]
    with slot.container():
        st.caption(t("sw_first_round", lang))
        show_table(pd.DataFrame(rows))
    time.sleep(SETTLE_S / 2)  # the browser draws it before the next request is timed


def point_text(point, lang: str) -> str:
    """The request just measured, in a few words: the first numbers on screen within seconds."""
    return t("sw_point", lang, ttft=point.ttft_ms, tpot=point.tpot_ms)


def measure_sweep(bundle, registry, settings: SweepSettings, lang: str) -> None:
    """The sweep with progress, its charts and verdicts so far and a Stop; a failed sweep keeps nothing."""
    result = SweepResult(bundle.name, settings)
    st.session_state[keys.RESULT] = result

    def measure(box) -> SweepResult:
        bar = st.progress(0.0, text=t("sw_warming", lang))
        so_far = st.empty()
        last, first_done, plan, shown = [0.0], [None], sweep_plan(settings), [0, settings.num_runs, ""]
        first_round: list[SweepPoint] = []

        def progress(done: int, total: int, what: str, point) -> None:
            now = time.perf_counter()
            shown[:] = done, total, what
            if done == 1:
                first_done[0] = now  # the pace is measured from here: the warm-up and first request are slower
            if point is not None and result.rounds == 0:
                first_round.append(point)
                if len(first_round) & (len(first_round) - 1) == 0:  # the 1st, 2nd, 4th, ...: a few draws
                    drawn = time.perf_counter()
                    draw_first_round(so_far, first_round, lang)
                    if first_done[0]:
                        first_done[0] += time.perf_counter() - drawn  # the pace counts requests only
            if 1 < done < total and now - last[0] < REDRAW_S:
                return  # each redraw takes CPU from the timed requests
            last[0] = now
            plan_done = min(done, len(plan))
            left = seconds_left(plan, plan_done, now - first_done[0]) if first_done[0] else None
            if done == 0:
                text = t("sw_warming", lang)
            else:
                what = f"{what} · {point_text(point, lang)}" if point is not None else what
                text = with_eta(t("sw_progress", lang, done=done, total=total, what=what), left, lang)
            bar.progress(min(1.0, done / total), text=text)

        def step(L: int, N: int, fraction: float) -> None:
            """Within a long request (a slow machine's): the bar moves on, its text stays."""
            now = time.perf_counter()
            if now - last[0] >= STEP_REDRAW_S:
                last[0] = now
                done, total, what = shown
                bar.progress(
                    min(1.0, (done + fraction) / total), text=t("sw_progress", lang, done=done, total=total, what=what)
                )

        def round_done(r: SweepResult) -> None:
            if r.rounds < settings.repeats:
                now = time.perf_counter()
                draw_so_far(so_far, r, lang)
                if first_done[0]:
                    first_done[0] += time.perf_counter() - now  # the pace counts requests, not the drawing

        with registry.step_lock:
            deadline = time.perf_counter() + BUDGET_S
            run_sweep(
                bundle.model,
                bundle.tokenizer,
                settings,
                bundle.name,
                progress,
                result,
                deadline,
                round_done,
                None,
                step,
            )
        return result

    ran = run_with_progress(
        measure,
        lang,
        running=t("sw_running", lang, runs=settings.num_runs),
        failed=t("sw_failed", lang),
        stop_key=keys.STOP,
    )
    if ran is None:
        st.session_state.pop(keys.RESULT, None)
