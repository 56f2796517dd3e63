"""Replay a finished run: a step slider and a speed control, so "the whole prompt at once, then
one token per step" can be watched at any pace. A fragment: scrubbing reruns only this panel, and
Replay reruns it once per frame, moving the slider itself, so the slider, the caption and the chips
always show the same step."""

from __future__ import annotations

import time

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

from ui.chips import chips_html, legend_html
from ui.i18n import t
from ui.run_state import RunResult
from ui.widget_state import KEEP, seed

STEP_KEY = "pg_replay_step"
SPEED_KEY = "pg_speed"
PLAY_KEY = "pg_play"
STOP_KEY = "pg_play_stop"
PLAYING_KEY = "pg_replay_started"  # the perf_counter time Replay was pressed, while it plays
TRANSLATED = (STEP_KEY, SPEED_KEY)  # their labels follow the language (ui/widget_state.py)
SPEEDS = [1, 2, 4, 8, 16, 32]


def in_fragment_rerun() -> bool:
    """Whether this script run reruns only fragments: a replay plays by rerunning its fragment once
    per frame, which Streamlit allows only then. (Streamlit's run context; no public API says it.)"""
    ctx = get_script_run_ctx()
    return bool(ctx and ctx.fragment_ids_this_run)


def step_caption(result: RunResult, step: int, lang: str) -> str:
    """What happened in `step` (-1: before the first step)."""
    if step < 0:
        return t("replay_before", lang, L=result.num_prompt_tokens)
    s = next(x for x in result.steps if x.step == step)
    q = s.seqs[0]
    if q.drafted:
        return t(
            "replay_verify",
            lang,
            step=step,
            T=q.num_tokens,
            C=q.context_len,
            ms=s.ms,
            k=q.drafted,
            a=q.accepted,
            n=q.accepted + 1,
        )
    key = "replay_prefill" if s.phase == "prefill" else ("replay_recompute" if q.recompute else "replay_decode")
    return t(key, lang, step=step, T=q.num_tokens, C=q.context_len, ms=s.ms)


def _frames(result: RunResult) -> list[int]:
    return [-1] + [s.step for s in result.steps]


def _start() -> None:
    st.session_state[PLAYING_KEY] = time.perf_counter()


def _stop() -> None:
    st.session_state.pop(PLAYING_KEY, None)


def _playing_frame(frames: list[int]) -> int | None:
    """The frame index the clock of a playing replay is at, or None (not playing, or just ended:
    the slider then shows the last step). Sets the slider before it is drawn: one source of truth."""
    started = st.session_state.get(PLAYING_KEY)
    if started is None:
        return None
    index = int((time.perf_counter() - started) * st.session_state[SPEED_KEY])
    if index >= len(frames) - 1 or not in_fragment_rerun():  # the end, or a full page run: show the end
        _stop()
        st.session_state[STEP_KEY] = frames[-1]
        return None
    st.session_state[STEP_KEY] = frames[index]
    return index


@st.fragment
def replay_panel(result: RunResult, lang: str) -> None:
    frames = _frames(result)
    seed({SPEED_KEY: 8})
    index = _playing_frame(frames)
    if st.session_state.get(STEP_KEY) not in frames:
        st.session_state[STEP_KEY] = frames[-1]
    c1, c2 = st.columns([1, 3], vertical_alignment="bottom")
    if index is None:
        c1.button(t("replay_play", lang), key=PLAY_KEY, icon=":material/replay:", on_click=_start)
    else:
        c1.button(t("replay_stop", lang), key=STOP_KEY, icon=":material/stop:", on_click=_stop)
    speed = c2.select_slider(
        t("replay_speed", lang),
        options=SPEEDS,
        key=SPEED_KEY,
        format_func=lambda v: t("replay_speed_fmt", lang, n=v),
        persist_state=KEEP,
    )
    frame = st.select_slider(
        t("replay_step", lang),
        options=frames,
        key=STEP_KEY,
        on_change=_stop,
        format_func=lambda f: t("replay_frame_before", lang) if f < 0 else str(f),
        persist_state=KEEP,
    )
    st.markdown(step_caption(result, frame, lang))
    st.html(chips_html(result, frame, lang))
    st.html(legend_html(lang, speculative=bool(result.settings.speculative_k)))
    if index is not None:  # the next frame, on the clock
        time.sleep(max(0.0, st.session_state[PLAYING_KEY] + (index + 1) / speed - time.perf_counter()))
        st.rerun(scope="fragment")
