"""Replay the columns side by side: a step slider per column, and one button that plays every
column at once on the clock it was measured on (scaled to a few seconds), so a column that was
slower visibly falls behind. A fragment: scrubbing reruns only this section, and playing reruns it
once per frame, moving the sliders themselves.

The chips and step captions are the playground's (ui/chips.py, ui/replay.py)."""

from __future__ import annotations

import time

import streamlit as st

from app_pages.compare import keys
from app_pages.compare.state import ColumnOutcome
from app_pages.compare.strings import t
from ui.chips import chips_html, legend_html
from ui.replay import in_fragment_rerun, step_caption
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


def _start() -> None:
    st.session_state[keys.PLAYING] = time.perf_counter()


def _stop() -> None:
    st.session_state.pop(keys.PLAYING, None)


def _clock(outcomes: list[ColumnOutcome]) -> tuple[float, float, float] | None:
    """(measured seconds shown, measured seconds in all, playback seconds per measured second) while the
    replay plays, else None
    (just ended, or a full page run: every slider then shows its last step). Sets the sliders before
    they are drawn, so each slider, caption and chip row show the same step."""
    started = st.session_state.get(keys.PLAYING)
    if started is None:
        return None
    longest, scale = playback_scale(outcomes)
    elapsed = (time.perf_counter() - started) / scale
    playing = elapsed < longest and in_fragment_rerun()
    if not playing:
        _stop()
    for c in outcomes:
        r = c.result
        st.session_state[keys.replay(c.settings.index)] = step_at(r, elapsed) if playing else r.steps[-1].step
    return (elapsed, longest, scale) if playing else None


@st.fragment
def replay_section(outcomes: list[ColumnOutcome], lang: str) -> None:
    """Replay of every column that finished, each in its own column of the page."""
    clock = _clock(outcomes)
    if clock is None:
        st.button(
            t("cmp_replay_all", lang),
            key=keys.PLAY,
            icon=":material/replay:",
            on_click=_start,
            help=t("cmp_replay_all_help", lang),
        )
    else:
        st.button(t("cmp_replay_stop", lang), key=keys.PLAY_STOP, icon=":material/stop:", on_click=_stop)
        elapsed, longest, scale = clock
        st.markdown(t("cmp_replay_clock", lang, s=elapsed, total=longest, x=1 / scale))
    st.html(legend_html(lang))
    for c, box in zip(outcomes, st.columns(len(outcomes), border=True)):
        r = c.result
        last, k = r.steps[-1].step, keys.replay(c.settings.index)
        if not isinstance(st.session_state.get(k), int) or not -1 <= st.session_state[k] <= last:
            st.session_state[k] = last  # a new run: show the end
        with box:
            st.markdown(f"**{t('cmp_column', lang, n=c.settings.index + 1)}**")
            step = st.slider(
                t("cmp_replay_step", lang),
                min_value=-1,
                max_value=last,
                key=k,
                on_change=_stop,
                help=t("cmp_replay_step_help", lang),
                persist_state=KEEP,
            )
            st.markdown(step_caption(r, step, lang))
            st.html(chips_html(r, step, lang))
    if clock is not None:  # the next frame
        time.sleep(FRAME_S)
        st.rerun(scope="fragment")
