"""The run tab: one workload (chats decoding while long prompts arrive) on three set-ups of real
servers, in rounds whose order alternates, optionally after calibrating the SLO on this machine; then
what each gave (app_pages/disaggregation/results.py)."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass

import streamlit as st

from app_pages.disaggregation import keys
from app_pages.disaggregation.results import SHORT, render_results, rounds_table
from app_pages.disaggregation.servers import setup_servers
from app_pages.disaggregation.strings import t
from app_pages.disaggregation.work import show_work, work_of
from lab.disaggregation import SETUPS, SetupRun, Summary, summarize, workload
from lab.disaggregation_rounds import Calibration, SetupRounds, calibrate, run_rounds
from lab.disaggregation_work import SetupWork
from lab.slo import SLO
from ui.progress import PacedBar
from ui.public import public_settings
from ui.queue_wait import take_turn
from ui.run_section import run_with_progress
from ui.sidebar import CHOICE_KEY
from ui.slo_box import slo_box
from ui.tables import short_labels, show_table
from ui.widget_state import KEEP, seed
from ui.widgets import whole_number_box

# One long prompt: a round of the three set-ups is then about 6 s on 2 quiet cores (4 chats of 32 tokens
# ~1 s; a 512-token prefill ~0.7 s on both cores, ~1.4 s on the prefill worker's one), so five rounds,
# the fewest pairs to judge by, take ~30 s, and the first run's server start-up ~10-20 s more.
DEFAULTS = {
    keys.CHATS: 4, keys.CHAT_TOKENS: 32, keys.LONG: 512, keys.LONGS: 1, keys.CHUNK: 128, keys.ROUNDS: 5,
    keys.CALIBRATE: True,
}  # fmt: skip
SLO_DEFAULTS = {"ttft": 3000, "tpot": 100, "itl": 0, "target": 90}
MAX_ROUNDS = 20
RETAKE_BUDGET_S = 60.0  # busy rounds are run again while the run is inside this (per 5 rounds)


@dataclass
class DisaggResult:
    rounds: SetupRounds
    slo: SLO
    seconds: float
    calibration: Calibration | None = None
    work: dict[str, SetupWork] | None = None  # counted before the run (lab/disaggregation_work.py)
    long_tokens: int = 0

    @property
    def runs(self) -> dict[str, SetupRun]:
        """The first round: the runs the figures draw."""
        return self.rounds.rounds[0]

    def summaries(self) -> list[dict[str, Summary]]:
        return [{name: summarize(sr, self.slo) for name, sr in r.items()} for r in self.rounds.rounds]


def _controls(max_position: int, lang: str) -> tuple[dict, SLO | None, bool]:
    seed(DEFAULTS)
    c = st.columns(6)
    chats = whole_number_box(c[0], t("dg_chats", lang), 1, 8, keys.CHATS, help=t("dg_chats_help", lang))
    chat_tokens = whole_number_box(c[1], t("dg_chat_tokens", lang), 2, 256, keys.CHAT_TOKENS, step=8)
    long_cap = max(16, min(4096, max_position - 32))
    long = whole_number_box(c[2], t("dg_long", lang), 16, long_cap, keys.LONG, step=128, help=t("dg_long_help", lang))
    longs = whole_number_box(c[3], t("dg_longs", lang), 1, 4, keys.LONGS)
    chunk = whole_number_box(c[4], t("dg_chunk", lang), 16, 4096, keys.CHUNK, step=64, help=t("dg_chunk_help", lang))
    rounds = whole_number_box(c[5], t("dg_rounds", lang), 1, MAX_ROUNDS, keys.ROUNDS, help=t("dg_rounds_help", lang))
    st.markdown(f"**{t('dg_slo_header', lang)}**")
    calibrated = st.toggle(
        t("dg_calibrate", lang), key=keys.CALIBRATE, help=t("dg_calibrate_help", lang), persist_state=KEEP
    )
    slo = None if calibrated else slo_box(lang, keys.SLO_PREFIX, SLO_DEFAULTS)
    b1, b2 = st.columns([1, 1])
    clicked = b1.button(t("dg_run", lang), type="primary", key=keys.RUN, icon=":material/call_split:")
    if b2.button(t("dg_stop_servers", lang), key=keys.STOP, icon=":material/stop_circle:"):
        with setup_servers().lock:
            setup_servers().stop()
        st.toast(t("dg_stopped", lang))
    shape = dict(chats=chats, chat_tokens=chat_tokens, long_tokens=long, longs=longs, chunk=chunk, rounds=rounds)
    ready = clicked and None not in shape.values() and (calibrated or slo is not None)
    return shape, slo, ready


def _run(bundle, registry, shape: dict, slo: SLO | None, lang: str) -> None:
    chunk, rounds = shape.pop("chunk"), shape.pop("rounds")
    specs = workload(bundle.tokenizer, **shape)
    servers = setup_servers()
    long_tokens = shape["long_tokens"]
    work = work_of(bundle.model, long_tokens, chunk)

    def measure(box) -> DisaggResult:
        steps = len(SETUPS) * rounds + (2 if slo is None else 0)  # set-up runs, and the two solo ones
        show_work(work, long_tokens, lang, where=box)  # the first result: counted, while the servers start
        bar, live, done = PacedBar(box.progress(0.0), lang), box.empty(), [0]
        started = time.perf_counter()
        with servers.lock, registry.step_lock:  # the app's own engine stays idle while the servers are timed
            spec = st.session_state[CHOICE_KEY].spec
            if not servers.running(spec, chunk):
                box.write(t("dg_starting", lang, name=bundle.name))
            procs = servers.ensure(spec, chunk)
            calibration = None
            if slo is None:
                bar.progress(0.0, t("dg_calibrating", lang))
                calibration = calibrate(procs.urls["whole"], specs, bundle.tokenizer, servers.model)
                done[0] = 2
            judged_by = slo or calibration.slo

            def on_setup(i: int, name: str) -> None:
                what = t(
                    "dg_progress", lang, round=i + 1, rounds=rounds, setup=t(f"dg_setup_{name}", lang), n=len(specs)
                )
                bar.progress(done[0] / steps, what)
                done[0] += 1

            def on_round(so_far: SetupRounds) -> None:  # each round's comparison as it lands
                partial = DisaggResult(so_far, judged_by, time.perf_counter() - started, calibration, work, long_tokens)
                show_table(
                    rounds_table(partial, lang),
                    key=keys.so_far(len(so_far.rounds)),
                    short=short_labels(t, lang, *SHORT),
                    where=live,
                )

            deadline = started + RETAKE_BUDGET_S * max(1.0, rounds / 5)
            got = run_rounds(
                procs.urls, specs, bundle.tokenizer, servers.model, rounds, procs.pids, on_setup, on_round, deadline
            )  # fmt: skip
        live.empty()  # the page draws the whole result below
        return DisaggResult(got, judged_by, time.perf_counter() - started, calibration, work, long_tokens)

    run_with_progress(
        measure,
        lang,
        running=t("dg_running", lang, rounds=rounds),
        failed=t("dg_failed", lang),
        done=lambda r: t("dg_done", lang, n=len(r.rounds.rounds), s=r.seconds),
        keep=keys.RESULT,
    )


def render_run_tab(bundle, registry, lang: str) -> None:
    st.markdown(t("dg_setups", lang))
    st.caption(t("dg_uneven", lang, cores=os.cpu_count() or 1))
    if public_settings().enabled:
        st.info(t("dg_public_off", lang), icon=":material/lock:")
        return
    shape, slo, clicked = _controls(bundle.model.config.max_position, lang)
    if clicked:
        with take_turn(lang) as go:
            if go:
                _run(bundle, registry, shape, slo, lang)
    r: DisaggResult | None = st.session_state.get(keys.RESULT)
    if r is None or not r.rounds.rounds:
        st.info(t("dg_not_run", lang))
        return
    render_results(r, lang)
