"""The run tab: one workload (chats decoding while long prompts arrive) on three set-ups of real
servers, one after another, and what each gave: TTFT and TPOT of every request, goodput at the SLO,
the chats' stalls while a prompt prefills, and each request on each worker."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass

import pandas as pd
import streamlit as st

from app_pages.disaggregation import keys
from app_pages.disaggregation.figures import distribution_figure, gantt_figure, interference_figure
from app_pages.disaggregation.servers import setup_servers
from app_pages.disaggregation.strings import t
from lab.busy import LoadMeter, MachineLoad
from lab.disaggregation import SETUPS, SetupRun, Summary, run_setup, summarize, workload
from lab.slo import SLO
from ui.load_note import show_load, was_busy
from ui.progress import PacedBar
from ui.public import public_settings
from ui.queue_wait import take_turn
from ui.run_section import run_with_progress
from ui.sidebar import CHOICE_KEY
from ui.slo_box import slo_box, slo_text, verdict_row, verdict_table
from ui.widget_state import KEEP, seed
from ui.widgets import whole_number_box

DEFAULTS = {keys.CHATS: 4, keys.CHAT_TOKENS: 32, keys.LONG: 512, keys.LONGS: 2, keys.CHUNK: 128}
SLO_DEFAULTS = {"ttft": 3000, "tpot": 100, "itl": 0, "target": 90}


@dataclass
class DisaggResult:
    runs: dict[str, SetupRun]
    slo: SLO
    load: MachineLoad
    seconds: float

    def summaries(self) -> dict[str, Summary]:
        return {name: summarize(sr, self.slo) for name, sr in self.runs.items()}


def _controls(max_position: int, lang: str) -> tuple[dict, SLO | None, bool]:
    seed(DEFAULTS)
    c = st.columns(5)
    chats = whole_number_box(c[0], t("dg_chats", lang), 1, 8, keys.CHATS, help=t("dg_chats_help", lang))
    chat_tokens = whole_number_box(c[1], t("dg_chat_tokens", lang), 2, 256, keys.CHAT_TOKENS, step=8)
    long_cap = max(16, min(4096, max_position - 32))
    long = whole_number_box(c[2], t("dg_long", lang), 16, long_cap, keys.LONG, step=128, help=t("dg_long_help", lang))
    longs = whole_number_box(c[3], t("dg_longs", lang), 1, 4, keys.LONGS)
    chunk = whole_number_box(c[4], t("dg_chunk", lang), 16, 4096, keys.CHUNK, step=64, help=t("dg_chunk_help", lang))
    st.markdown(f"**{t('dg_slo_header', lang)}**")
    slo = slo_box(lang, keys.SLO_PREFIX, SLO_DEFAULTS)
    b1, b2 = st.columns([1, 1])
    clicked = b1.button(t("dg_run", lang), type="primary", key=keys.RUN, icon=":material/call_split:")
    if b2.button(t("dg_stop_servers", lang), key=keys.STOP, icon=":material/stop_circle:"):
        with setup_servers().lock:
            setup_servers().stop()
        st.toast(t("dg_stopped", lang))
    shape = dict(chats=chats, chat_tokens=chat_tokens, long_tokens=long, longs=longs, chunk=chunk)
    return shape, slo, clicked and None not in shape.values()


def _run(bundle, registry, shape: dict, slo: SLO, lang: str) -> None:
    chunk = shape.pop("chunk")
    specs = workload(bundle.tokenizer, **shape)
    servers = setup_servers()

    def measure(box) -> DisaggResult:
        bar = PacedBar(box.progress(0.0), lang)
        started = time.perf_counter()
        with servers.lock, registry.step_lock:  # the app's own engine stays idle while the servers are timed
            spec = st.session_state[CHOICE_KEY].spec
            if not servers.running(spec, chunk):
                box.write(t("dg_starting", lang, name=bundle.name))
            procs = servers.ensure(spec, chunk)
            runs, meter = {}, LoadMeter(ours=procs.pids).start()
            for i, name in enumerate(SETUPS):
                bar.progress(i / len(SETUPS), t("dg_progress", lang, setup=t(f"dg_setup_{name}", lang), n=len(specs)))
                runs[name] = run_setup(name, procs.urls[name], specs, bundle.tokenizer, servers.model)
            load = meter.stop()
        return DisaggResult(runs, slo, load, time.perf_counter() - started)

    run_with_progress(
        measure,
        lang,
        running=t("dg_running", lang),
        failed=t("dg_failed", lang),
        done=lambda r: t("dg_done", lang, s=r.seconds),
        keep=keys.RESULT,
    )


def _summary_table(r: DisaggResult, lang: str) -> dict[str, Summary]:
    sums = r.summaries()
    rows = []
    for name, s in sums.items():
        rows.append(
            {
                t("dg_col_setup", lang): t(f"dg_setup_{name}", lang),
                t("dg_col_chat_tpot", lang): round(s.chat_tpot_ms, 1),
                t("dg_col_chat_gap", lang): round(s.chat_gap_ms),
                t("dg_col_chat_ttft", lang): round(s.chat_ttft_ms),
                t("dg_col_long_ttft", lang): round(s.long_ttft_ms),
                t("dg_col_transfer", lang): None if s.transfer_ms is None else round(s.transfer_ms),
                t("dg_col_handoff", lang): None if s.handoff_bytes is None else round(s.handoff_bytes / 2**20, 1),
            }
        )
    st.markdown(f"**{t('dg_summary_header', lang)}**")
    st.dataframe(pd.DataFrame(rows), hide_index=True, key=keys.SUMMARY)
    busy = was_busy(r.load)
    st.markdown(f"**{t('dg_goodput_header', lang)}** ({slo_text(r.slo, lang)})")
    judged = [
        verdict_row({t("dg_col_setup", lang): t(f"dg_setup_{n}", lang)}, s.goodput, lang, busy) for n, s in sums.items()
    ]
    verdict_table(judged, keys.GOODPUT, lang)
    return sums


def _verdict(r: DisaggResult, sums: dict[str, Summary], lang: str) -> None:
    """Which set-up gave the most goodput here, with the stalls and TTFTs that explain it."""
    if was_busy(r.load):
        st.warning(t("dg_busy_verdict", lang), icon=":material/speed:")
        return
    name = {n: t(f"dg_setup_{n}", lang) for n in sums}
    gaps = ", ".join(f"{name[n]} {s.chat_gap_ms:.0f} ms" for n, s in sums.items())
    ttfts = ", ".join(f"{name[n]} {s.long_ttft_ms:.0f} ms" for n, s in sums.items())
    best = max(sums, key=lambda n: sums[n].goodput.goodput)
    top = sums[best].goodput.goodput
    tied = sum(abs(s.goodput.goodput - top) < 1e-9 for s in sums.values()) > 1
    key = "dg_tie" if tied else "dg_winner"
    st.markdown(t(key, lang, best=name[best], goodput=top, slo=slo_text(r.slo, lang), gaps=gaps, ttfts=ttfts))
    pd_sum = sums.get("pd")
    if pd_sum and pd_sum.transfer_ms is not None and pd_sum.handoff_bytes:
        st.markdown(t("dg_why_pd", lang, mib=pd_sum.handoff_bytes / 2**20, ms=pd_sum.transfer_ms))


def render_run_tab(bundle, registry, lang: str) -> None:
    st.markdown(t("dg_setups", lang))
    st.caption(t("dg_uneven", lang, cores=os.cpu_count() or 1))
    if public_settings().enabled:
        st.info(t("dg_public_off", lang), icon=":material/lock:")
        return
    shape, slo, clicked = _controls(bundle.model.config.max_position, lang)
    if clicked and slo is not None:
        with take_turn(lang) as go:
            if go:
                _run(bundle, registry, shape, slo, lang)
    r: DisaggResult | None = st.session_state.get(keys.RESULT)
    if r is None:
        st.info(t("dg_not_run", lang))
        return
    show_load(r.load, lang)
    sums = _summary_table(r, lang)
    _verdict(r, sums, lang)
    st.plotly_chart(distribution_figure(r.runs, lang), key=keys.FIG_DIST)
    st.plotly_chart(interference_figure(r.runs, lang), key=keys.FIG_INTERFERENCE)
    st.caption(t("dg_interference_caption", lang))
    if st.session_state.get(keys.GANTT_SETUP) not in r.runs:
        st.session_state[keys.GANTT_SETUP] = "pd" if "pd" in r.runs else next(iter(r.runs))
    which = st.radio(
        t("dg_gantt_setup", lang),
        list(r.runs),
        format_func=lambda n: t(f"dg_setup_{n}", lang),
        key=keys.GANTT_SETUP,
        horizontal=True,
        persist_state=KEEP,
    )
    st.plotly_chart(gantt_figure(r.runs[which], lang), key=keys.FIG_GANTT)
    st.caption(t("dg_gantt_caption", lang))
