"""Replay a finished run: a step slider and a speed control, so "the whole prompt at once, then
one token per step" can be watched at any pace. A fragment: scrubbing reruns only this panel."""
from __future__ import annotations

import time

import streamlit as st

from ui.chips import chips_html, legend_html
from ui.i18n import t
from ui.run_state import RunResult
from ui.widget_state import KEEP, seed

STEP_KEY = "pg_replay_step"
SPEED_KEY = "pg_speed"
PLAY_KEY = "pg_play"
TRANSLATED = (STEP_KEY, SPEED_KEY)  # their labels follow the language (ui/widget_state.py)
SPEEDS = [1, 2, 4, 8, 16, 32]


def step_caption(result: RunResult, step: int, lang: str) -> str:
    """What happened in `step` (-1: before the first step)."""
    if step < 0:
        return t("replay_before", lang, L=result.num_prompt_tokens)
    s = next(x for x in result.steps if x.step == step)
    q = s.seqs[0]
    key = "replay_prefill" if s.phase == "prefill" else ("replay_recompute" if q.recompute else "replay_decode")
    return t(key, lang, step=step, T=q.num_tokens, C=q.context_len, ms=s.ms)


def _frames(result: RunResult) -> list[int]:
    return [-1] + [s.step for s in result.steps]


@st.fragment
def replay_panel(result: RunResult, lang: str) -> None:
    frames = _frames(result)
    if st.session_state.get(STEP_KEY) not in frames:
        st.session_state[STEP_KEY] = frames[-1]
    seed({SPEED_KEY: 8})
    c1, c2 = st.columns([1, 3], vertical_alignment="bottom")
    play = c1.button(t("replay_play", lang), key=PLAY_KEY, icon=":material/replay:")
    speed = c2.select_slider(t("replay_speed", lang), options=SPEEDS, key=SPEED_KEY,
                             format_func=lambda v: t("replay_speed_fmt", lang, n=v), persist_state=KEEP)
    slider_box = st.container()
    caption, chips = st.empty(), st.empty()
    st.html(legend_html(lang))
    if play:
        for frame in frames:
            caption.markdown(step_caption(result, frame, lang))
            chips.html(chips_html(result, frame, lang))
            time.sleep(1.0 / speed)
        st.session_state[STEP_KEY] = frames[-1]  # the slider is drawn below, after this, so this is allowed
    with slider_box:
        frame = st.select_slider(t("replay_step", lang), options=frames, key=STEP_KEY,
                                 format_func=lambda f: t("replay_frame_before", lang) if f < 0 else str(f),
                                 persist_state=KEEP)
    if not play:
        caption.markdown(step_caption(result, frame, lang))
        chips.html(chips_html(result, frame, lang))
