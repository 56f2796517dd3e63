"""The serving lab's verdict: each run judged by goodput at one SLO (lab/slo.py), the operator's
question. The SLO box, a table of attainment and goodput per run with the objective that broke
first, every request's TTFT against its TPOT with the SLO's box drawn, and on request the same
workload under all four policies, judged at the same SLO."""

from __future__ import annotations

import time
from dataclasses import replace

import plotly.graph_objects as go
import streamlit as st

from app_pages.serving import keys
from app_pages.serving.run import JUDGED_POLICIES, PolicyRun, ServingResult, run_policy
from app_pages.serving.run_latencies import RUN_COLORS, run_name
from app_pages.serving.strings import t
from lab.busy import LoadMeter
from lab.slo import SLO, Goodput, judge_load
from ui.errors import error_message, show_message
from ui.load_note import was_busy
from ui.models import get_registry
from ui.queue_wait import take_turn
from ui.slo_box import slo_box, slo_text, verdict_row, verdict_table
from ui.theme import style

SLO_DEFAULTS = {"ttft": 2000, "tpot": 200, "itl": 500, "target": 90}  # for the bundled model on 2 CPU cores


def judged(run: PolicyRun, slo: SLO, num_requests: int) -> Goodput:
    """A run's goodput: its finished requests over its wall time; any it did not finish missed."""
    return judge_load(slo, [r.metrics for r in run.trace.requests], run.seconds, num_requests)


def goodput_rows(runs: list[PolicyRun], slo: SLO, num_requests: int, lang: str) -> list[dict]:
    column = t("sv_gp_run", lang)
    return [verdict_row({column: run_name(r, lang)}, judged(r, slo, num_requests), lang) for r in runs]


def goodput_sentence(runs: list[PolicyRun], slo: SLO, num_requests: int, lang: str) -> str:
    verdicts = [(run, judged(run, slo, num_requests)) for run in runs]
    parts = [
        t(
            "sv_gp_sentence_run",
            lang,
            name=run_name(run, lang),
            met=g.met,
            n=g.requests,
            share=100 * g.attainment,
            goodput=g.goodput,
            verdict=t("sv_gp_holds" if g.holds else "sv_gp_fails", lang),
        )
        for run, g in verdicts
    ]
    return t("sv_gp_sentence", lang, slo=slo_text(slo, lang), target=100 * slo.target, runs=" ".join(parts))


def slo_figure(runs: list[PolicyRun], slo: SLO, lang: str) -> go.Figure:
    """Each request's TTFT against its TPOT, a colour per run, and the SLO's box (inside: met)."""
    fig = go.Figure()
    for run in runs:
        done = [r for r in run.trace.requests if r.metrics.tpot_ms is not None]
        fig.add_trace(
            go.Scatter(
                x=[r.metrics.ttft_ms for r in done],
                y=[r.metrics.tpot_ms for r in done],
                mode="markers",
                name=run_name(run, lang),
                marker=dict(color=RUN_COLORS[run.slot], size=10, opacity=0.8),
                hovertemplate="TTFT %{x:.0f} ms, TPOT %{y:.1f} ms<extra>%{fullData.name}</extra>",
            )
        )
    if slo.ttft_ms or slo.tpot_ms:
        xs = [r.metrics.ttft_ms for run in runs for r in run.trace.requests] or [1.0]
        ys = [r.metrics.tpot_ms or 0 for run in runs for r in run.trace.requests] or [1.0]
        x1 = slo.ttft_ms or 1.1 * max(xs)
        y1 = slo.tpot_ms or 1.1 * max(ys)
        fig.add_trace(
            go.Scatter(
                x=[0, x1, x1, 0, 0],
                y=[0, 0, y1, y1, 0],
                mode="lines",
                fill="toself",
                fillcolor="rgba(22, 163, 74, 0.08)",
                line=dict(color="#16a34a", dash="dash"),
                name=t("sv_gp_box", lang),
                hoverinfo="skip",
            )
        )
    style(fig, t("sv_gp_fig_title", lang), t("sv_gp_fig_x", lang), t("sv_gp_fig_y", lang), height=380)
    fig.update_xaxes(rangemode="tozero")
    fig.update_yaxes(rangemode="tozero")
    return fig


def policy_rows(policy_runs: dict[str, PolicyRun], slo: SLO, num_requests: int, lang: str) -> list[dict]:
    """Every policy on the same workload, judged at the same SLO."""
    column = t("sv_gp_policy", lang)
    return [
        verdict_row({column: t(f"sv_policy_{policy}", lang)}, judged(run, slo, num_requests), lang)
        for policy, run in policy_runs.items()
    ]


def run_every_policy(bundle, result: ServingResult, lang: str) -> None:
    """The result's workload under each of the four policies, one after another, with progress."""
    runs, meter = {}, LoadMeter().start()
    bar = st.progress(0.0, text=t("sv_gp_all_running", lang, policy="", k=0, n=len(JUDGED_POLICIES)))
    for k, policy in enumerate(JUDGED_POLICIES):
        bar.progress(
            k / len(JUDGED_POLICIES),
            text=t("sv_gp_all_running", lang, policy=t(f"sv_policy_{policy}", lang), k=k + 1, n=len(JUDGED_POLICIES)),
        )
        settings = replace(result.settings, policy_a=policy)
        try:
            runs[policy] = run_policy(bundle, result.specs, settings, "a", get_registry().step_lock)
        except Exception as exc:  # noqa: BLE001 - say what failed; the policies already run are kept
            show_message(error_message(exc, lang))
            break
    bar.empty()
    st.session_state[keys.POLICY_RUNS] = {"runs": runs, "load": meter.stop(), "at": time.time()}


def all_policies_section(bundle, result: ServingResult, slo: SLO, lang: str) -> None:
    st.markdown(t("sv_gp_all_intro", lang))
    clicked = st.button(
        t("sv_gp_all_run", lang),
        key=keys.ALL_POLICIES_RUN,
        icon=":material/playlist_play:",
        disabled=bundle is None or not result.specs,
    )
    if clicked and bundle is not None:
        with take_turn(lang) as go_ahead:
            if go_ahead:
                run_every_policy(bundle, result, lang)
    kept = st.session_state.get(keys.POLICY_RUNS)
    if not kept or not kept["runs"]:
        return
    if kept["load"].busy:
        st.warning(t("sv_gp_busy", lang), icon=":material/warning:")
    verdict_table(policy_rows(kept["runs"], slo, result.num_requests, lang), keys.ALL_POLICIES_TABLE, lang)


def goodput_panel(result: ServingResult, runs: list[PolicyRun], lang: str, bundle=None) -> None:
    st.markdown(t("sv_gp_intro", lang))
    slo = slo_box(lang, keys.SLO_PREFIX, SLO_DEFAULTS)
    if slo is None:
        return
    st.markdown(goodput_sentence(runs, slo, result.num_requests, lang))
    if was_busy(result.load):
        st.warning(t("sv_gp_busy", lang), icon=":material/warning:")
    verdict_table(goodput_rows(runs, slo, result.num_requests, lang), keys.GOODPUT_TABLE, lang)
    st.plotly_chart(slo_figure(runs, slo, lang), key=keys.FIG_SLO)
    st.caption(t("sv_gp_caption", lang))
    all_policies_section(bundle, result, slo, lang)
