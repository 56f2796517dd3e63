"""One streamed prompt: the reply drawn as it arrives (every ~0.2 s), then TTFT, TPOT and E2E from
the client's own timestamps, how many tokens the chunks carried, and the gap before each chunk. On a
public server the prompt and the reply's length keep to its caps and the request takes a turn."""

from __future__ import annotations

import asyncio

import streamlit as st

from app_pages.remote import keys
from app_pages.remote.connect import Connection
from app_pages.remote.figures import chunks_figure
from app_pages.remote.saving import download_buttons
from app_pages.remote.strings import t
from lab.remote_client import RemoteRequest, RemoteResult, stream_one
from lab.remote_metrics import MetricsWatch, server_request_view
from lab.remote_trace import Saved, single_run
from ui.errors import show_error
from ui.public import CappedError
from ui.public_caps import cap_help, capped, check_prompt, check_size, prompt_cap
from ui.queue_wait import take_turn
from ui.text import md_escape
from ui.widget_state import KEEP
from ui.widgets import whole_number, whole_number_box

REDRAW_S = 0.2


async def _stream_live(conn: Connection, model: str, req: RemoteRequest, view, lang: str) -> RemoteResult:
    result = RemoteResult(req, send=0.0)
    task = asyncio.create_task(stream_one(conn.endpoint, model, req, result=result))
    while not task.done():
        view.markdown(f"{md_escape(result.text)}\n\n_{t('rm_streaming', lang, n=len(result.chunk_times))}_")
        await asyncio.wait([task], timeout=REDRAW_S)
    return task.result()


def render_one(conn: Connection, lang: str) -> None:
    with st.form(keys.RUN_ONE + "_form", border=False):
        st.text_area(
            t("rm_prompt", lang),
            "Explain in two sentences why the sky is blue.",
            key=keys.PROMPT,
            max_chars=prompt_cap(),
            persist_state=KEEP,
        )
        c1, c2 = st.columns([1, 2], vertical_alignment="bottom")
        most = capped("max_new_tokens", 4096, keys.MAX_TOKENS)
        whole_number_box(
            c1,
            t("rm_max_tokens", lang),
            1,
            most,
            keys.MAX_TOKENS,
            value=min(64, most),
            help=cap_help("max_new_tokens", lang),
        )
        c2.toggle(t("rm_chat", lang), True, key=keys.CHAT, persist_state=KEEP)
        clicked = st.form_submit_button(t("rm_run_one", lang), type="primary", icon=":material/send:")
    if clicked:
        _send_one(conn, lang)
    result: RemoteResult | None = st.session_state.get(keys.ONE_RESULT)
    if result is not None:
        render_result(result, lang, st.session_state.get(keys.ONE_VIEW))
        if result.chunk_times:
            download_buttons(
                Saved(
                    conn.endpoint.base_url,
                    st.session_state[keys.MODEL],
                    conn.kind,
                    [(single_run(result), MetricsWatch())],
                ),
                lang,
                keys.DL_ONE,
            )


def _send_one(conn: Connection, lang: str) -> None:
    """The form's prompt, within a public server's caps, streamed in its turn."""
    s = st.session_state
    tokens = whole_number(s[keys.MAX_TOKENS])
    try:  # the boxes stop at the caps; a value set another way is refused here
        check_prompt(s[keys.PROMPT] or "")
        check_size("max_new_tokens", tokens, t("rm_max_tokens", lang))
    except CappedError as exc:
        show_error(exc, lang)
        return
    req = RemoteRequest(s[keys.PROMPT], tokens, chat=bool(s[keys.CHAT]))
    with take_turn(lang) as go:
        if not go:
            return
        view = st.empty()
        s[keys.ONE_RESULT] = result = asyncio.run(_stream_live(conn, s[keys.MODEL], req, view, lang))
        s[keys.ONE_VIEW] = asyncio.run(server_request_view(conn.endpoint, result.response_id))
        view.empty()


def render_result(r: RemoteResult, lang: str, server_view: dict | None = None, prefix: str = "") -> None:
    if r.error:
        st.error(md_escape(t("rm_one_failed", lang, msg=r.error)), icon=":material/error:")
    if r.text:
        with st.container(border=True):
            st.markdown(md_escape(r.text))
    if r.empty_reply:
        st.info(t("rm_empty_reply", lang, finish=r.finish_reason), icon=":material/info:")
    m = r.metrics
    if m is None:
        return
    c = st.columns(4)
    c[0].metric(t("rm_m_ttft", lang), f"{m.ttft_ms:.1f} ms")
    c[1].metric(t("rm_m_tpot", lang), "—" if m.tpot_ms is None else f"{m.tpot_ms:.1f} ms")
    c[2].metric(t("rm_m_e2e", lang), f"{m.e2e_ms:.0f} ms")
    c[3].metric(
        t("rm_m_tokens", lang),
        r.num_output_tokens,
        help=t("rm_tokens_counted" if r.tokens_counted_from_chunks else "rm_tokens_usage", lang),
    )
    if r.chunks_hold_several_tokens:
        st.caption(t("rm_chunks_note", lang, chunks=len(r.chunk_times), tokens=r.num_output_tokens))
    elif r.tokens_counted_from_chunks:
        st.caption(t("rm_tokens_counted", lang))
    if server_view is not None:
        tpot = server_view.get("tpot_ms")
        st.caption(
            t(
                "rm_server_view",
                lang,
                ttft=server_view["ttft_ms"],
                queue=server_view["queue_ms"],
                prefill=server_view["prefill_ms"],
                tpot="—" if tpot is None else f"{tpot:.1f}",
                n=server_view["output_tokens"],
                extra=m.ttft_ms - server_view["ttft_ms"],
            )
        )
    st.plotly_chart(chunks_figure(r, lang), key=prefix + keys.FIG_CHUNKS)
    st.caption(t("rm_no_views", lang))
