"""The finished (or stopped) run: output text, headline numbers and one tab per topic.

Every tab is drawn from the timed run as soon as it ends: tokens, KV cache, attention shapes,
timings, the step table and the downloads. The untimed second pass (memory per step, the captured
attention) then runs in a thread of its own (pass_view.py): the Memory tab, and the heatmap of an
eager run, show its progress and time left until it ends and the page is drawn again with its
readings (the step table's peaks and the downloads take them too)."""

from __future__ import annotations

import streamlit as st

from app_pages.playground.panels import attention_panel, kv_panel, memory_panel, steps_panel, timings_panel
from app_pages.playground.pass_view import running_job, settle, show_progress
from app_pages.playground.share import download_buttons, loaded_note
from app_pages.playground.strings import t
from ui.chips import output_html
from ui.errors import show_message
from ui.live import RUN_KEY
from ui.live_html import done_text
from ui.replay import replay_panel
from ui.run_state import RunResult, RunStatus


def mark_interrupted(lang: str) -> None:
    """A run still 'running' at the start of a script run was cut short by Stop (or any rerun); its
    second pass, running in its own thread, goes on (pass_view.settle says how one ended)."""
    result: RunResult | None = st.session_state.get(RUN_KEY)
    if result is not None and result.status == RunStatus.RUNNING:
        result.status = RunStatus.STOPPED
    settle(result, lang)


def _banner(result: RunResult, lang: str) -> None:
    n = len(result.tokens)
    if result.status == RunStatus.STOPPED:
        st.warning(t("run_stopped", lang, n=n), icon=":material/stop_circle:")
    elif result.status == RunStatus.FAILED:
        show_message(result.error or t("err_unexpected", lang, kind="?"))
    else:
        st.success(done_text(result, lang), icon=":material/check_circle:")


def render_results(result: RunResult | None, lang: str) -> None:
    if result is None:
        st.info(t("no_run_yet", lang))
        return
    _banner(result, lang)
    loaded_note(result, lang)
    if not result.steps or not result.tokens:
        return
    job = running_job(result)
    download_buttons(result, lang)
    if job is not None:
        st.caption(t("pass_downloads_later", lang))
    st.markdown(f"**{t('output_text', lang)}**")
    st.html(output_html(result.text))
    if result.text.endswith("\ufffd"):  # byte-level tokens: the run ended inside a multi-byte character
        st.caption(t("output_cut_char", lang))
    names = ["tab_tokens", "tab_kv", "tab_attention", "tab_timings", "tab_memory", "tab_steps"]
    tabs = st.tabs([t(n, lang) for n in names])
    with tabs[0]:
        replay_panel(result, lang)
    with tabs[5]:  # drawn second: its table code is loaded (table_code.py), its rows are not
        steps_panel(result, lang)
        if job is not None and result.settings.probe_memory:
            st.caption(t("pass_peaks_later", lang))
    with tabs[1]:
        kv_panel(result, lang)
    heat_slot = None
    with tabs[2]:
        attention_panel(result, lang)
        if job is not None and result.settings.attention == "eager":  # the heatmap waits for the capture
            heat_slot = st.empty()
    with tabs[3]:
        timings_panel(result, lang)
    with tabs[4]:
        if job is None:
            memory_panel(result, lang)
        else:
            show_progress(job, lang, heat_slot)
