"""Replay the columns side by side: a step slider per column, and one button that plays every
column at once on the clock it was measured on (scaled to a few seconds), so a column that was
slower visibly falls behind. A fragment: scrubbing reruns only this section.

The chips and step captions are the playground's (ui/chips.py, ui/replay.py)."""
from __future__ import annotations

import time

import streamlit as st

from app_pages.compare import keys
from app_pages.compare.state import ColumnOutcome
from app_pages.compare.strings import t
from ui.chips import chips_html, legend_html
from ui.replay import step_caption
from ui.run_state import RunResult
from ui.widget_state import KEEP

PLAY_SECONDS = (2.0, 8.0)  # a clocked replay lasts at least / at most this long, whatever was measured
FRAME_S = 0.1


def step_at(result: RunResult, elapsed_s: float) -> int:
    """The last engine step whose token had appeared `elapsed_s` after the request arrived (-1: none)."""
    shown = [tok.step for tok in result.tokens if tok.time - result.arrival <= elapsed_s]
    return max(shown, default=-1)


def playback_scale(outcomes: list[ColumnOutcome]) -> tuple[float, float]:
    """(measured seconds to replay, playback seconds per measured second)."""
    longest = max(c.result.metrics.e2e_ms / 1e3 for c in outcomes)
    play = min(max(longest, PLAY_SECONDS[0]), PLAY_SECONDS[1])
    return longest, play / max(longest, 1e-9)


def _frame(result: RunResult, step: int, caption, chips, lang: str) -> None:
    caption.markdown(step_caption(result, step, lang))
    chips.html(chips_html(result, step, lang))


def _play(outcomes: list[ColumnOutcome], views: list, clock, lang: str) -> None:
    longest, scale = playback_scale(outcomes)
    frames = int(longest * scale / FRAME_S) + 1
    for f in range(frames + 1):
        elapsed = min(longest, f * FRAME_S / scale)
        clock.markdown(t("cmp_replay_clock", lang, s=elapsed, total=longest, x=1 / scale))
        for c, (caption, chips) in zip(outcomes, views):
            _frame(c.result, step_at(c.result, elapsed), caption, chips, lang)
        time.sleep(FRAME_S)


@st.fragment
def replay_section(outcomes: list[ColumnOutcome], lang: str) -> None:
    """Replay of every column that finished, each in its own column of the page."""
    play = st.button(t("cmp_replay_all", lang), key=keys.PLAY, icon=":material/replay:",
                     help=t("cmp_replay_all_help", lang))
    clock = st.empty()
    st.html(legend_html(lang))
    views, sliders = [], []
    for c, box in zip(outcomes, st.columns(len(outcomes), border=True)):
        with box:
            st.markdown(f"**{t('cmp_column', lang, n=c.settings.index + 1)}**")
            sliders.append(st.container())
            views.append((st.empty(), st.empty()))
    if play:
        _play(outcomes, views, clock, lang)
    for c, slider_box, (caption, chips) in zip(outcomes, sliders, views):
        r = c.result
        last, k = r.steps[-1].step, f"{keys.REPLAY_PREFIX}{c.settings.index}"
        if play or not isinstance(st.session_state.get(k), int) or not -1 <= st.session_state[k] <= last:
            st.session_state[k] = last  # a new run, or just replayed: show the end
        with slider_box:
            step = st.slider(t("cmp_replay_step", lang), min_value=-1, max_value=last, key=k,
                             help=t("cmp_replay_step_help", lang), persist_state=KEEP)
        if not play:
            _frame(r, step, caption, chips, lang)
