"""The finished (or stopped) run: output text, headline numbers and one tab per topic.

The tabs show as soon as the timed run ends. What needs the untimed second pass's readings (the
attention heatmaps, memory, the step table's peaks, and the downloads, which save them) holds its
progress until the pass has run, then is drawn (`render_results` returns those places and the
function that draws them)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import streamlit as st

from app_pages.playground.panels import attention_panel, kv_panel, memory_panel, steps_panel, timings_panel
from app_pages.playground.share import download_buttons, loaded_note
from app_pages.playground.strings import t
from ui.chips import output_html
from ui.errors import show_message
from ui.live import RUN_KEY
from ui.live_html import done_text
from ui.replay import replay_panel
from ui.run_state import RunResult, RunStatus


def mark_interrupted() -> None:
    """A run still 'running' at the start of a script run was cut short by Stop (or any rerun); a
    second pass still pending was cut short too (the memory tab then says it did not finish)."""
    result: RunResult | None = st.session_state.get(RUN_KEY)
    if result is not None and result.status == RunStatus.RUNNING:
        result.status = RunStatus.STOPPED
    if result is not None:
        result.pass_pending = False


@dataclass
class Pending:
    """The places that wait for the second pass: `notes` for its progress, `draw` to fill them."""

    notes: list
    draw: Callable[[], None]


def _banner(result: RunResult, lang: str) -> None:
    n = len(result.tokens)
    if result.status == RunStatus.STOPPED:
        st.warning(t("run_stopped", lang, n=n), icon=":material/stop_circle:")
    elif result.status == RunStatus.FAILED:
        show_message(result.error or t("err_unexpected", lang, kind="?"))
    else:
        st.success(done_text(result, lang), icon=":material/check_circle:")


def render_results(result: RunResult | None, lang: str) -> Pending | None:
    if result is None:
        st.info(t("no_run_yet", lang))
        return None
    _banner(result, lang)
    loaded_note(result, lang)
    if not result.steps or not result.tokens:
        return None
    downloads = st.empty()
    st.markdown(f"**{t('output_text', lang)}**")
    st.html(output_html(result.text))
    if result.text.endswith("\ufffd"):  # byte-level tokens: the run ended inside a multi-byte character
        st.caption(t("output_cut_char", lang))
    names = ["tab_tokens", "tab_kv", "tab_attention", "tab_timings", "tab_memory", "tab_steps"]
    tabs = st.tabs([t(n, lang) for n in names])
    with tabs[0]:
        replay_panel(result, lang)
    with tabs[1]:
        kv_panel(result, lang)
    with tabs[3]:
        timings_panel(result, lang)
    later = [tabs[2].empty(), tabs[4].empty(), tabs[5].empty()]  # attention, memory, steps

    def draw() -> None:
        with downloads.container():
            download_buttons(result, lang)
        for box, panel in zip(later, (attention_panel, memory_panel, steps_panel)):
            with box.container():
                panel(result, lang)

    if not result.pass_pending:
        draw()
        return None
    for box in later:
        box.caption(t("live_measuring_soon", lang))
    return Pending(later, draw)
