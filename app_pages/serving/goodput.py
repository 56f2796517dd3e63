"""The serving lab's verdict: each run judged by goodput at one SLO (lab/slo.py), the operator's
question. The SLO box, a table of attainment and goodput per run with the objective that broke
first, every request's TTFT against its TPOT with the SLO's box drawn, and on request the same
workload under all four policies raced together (app_pages/serving/run.py), judged at the same SLO.
A target missed while other work kept the machine busy is "not separable here", with that work
beside it (lab/slo.slo_verdict)."""

from __future__ import annotations

import time

import plotly.graph_objects as go
import streamlit as st

from app_pages.serving import keys
from app_pages.serving.run import (
    JUDGED_POLICIES,
    PolicyRun,
    Progress,
    ServingResult,
    race_policies,
    workload_work,
)
from app_pages.serving.run_latencies import RUN_COLORS, run_name
from app_pages.serving.strings import t
from lab.busy import MachineLoad
from lab.slo import SLO, Goodput, judge_load
from ui.errors import error_message, show_message
from ui.models import get_registry
from ui.progress import PacedBar
from ui.queue_wait import take_turn
from ui.slo_box import slo_box, slo_text, verdict_row, verdict_table, verdict_word
from ui.theme import style

SLO_DEFAULTS = {"ttft": 2000, "tpot": 200, "itl": 500, "target": 90}  # for the bundled model on 2 CPU cores


def judged(run: PolicyRun, slo: SLO, num_requests: int) -> Goodput:
    """A run's goodput: its finished requests over its wall time; any it did not finish missed."""
    return judge_load(slo, [r.metrics for r in run.trace.requests], run.seconds, num_requests)


def goodput_rows(
    runs: list[PolicyRun], slo: SLO, num_requests: int, lang: str, load: MachineLoad | None = None
) -> list[dict]:
    column = t("sv_gp_run", lang)
    return [verdict_row({column: run_name(r, lang)}, judged(r, slo, num_requests), lang, load) for r in runs]


def goodput_sentence(
    runs: list[PolicyRun], slo: SLO, num_requests: int, lang: str, load: MachineLoad | None = None
) -> str:
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
            verdict=verdict_word(g, lang, load),
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


def policy_rows(
    policy_runs: dict[str, PolicyRun], slo: SLO, num_requests: int, lang: str, load: MachineLoad | None = None
) -> list[dict]:
    """Every policy on the same workload, judged at the same SLO."""
    column = t("sv_gp_policy", lang)
    return [
        verdict_row({column: t(f"sv_policy_{policy}", lang)}, judged(run, slo, num_requests), lang, load)
        for policy, run in policy_runs.items()
    ]


def run_every_policy(bundle, result: ServingResult, lang: str) -> None:
    """The result's workload under each of the four policies, raced together (a step each in turn),
    with progress: how many requests each policy has finished."""
    policies = {policy: policy for policy in JUDGED_POLICIES}
    progress = Progress(rounds=1, total_work=len(policies) * workload_work(result.specs))
    done = dict.fromkeys(policies, 0)
    element, last = st.progress(0.0), [0.0]
    bar = PacedBar(element, lang)

    def on_step(policy: str, event) -> None:
        progress.add(event)
        done[policy] += len(event.finished)
        if time.perf_counter() - last[0] >= 0.25:
            parts = ", ".join(f"{t(f'sv_policy_{p}', lang)} {k}/{result.num_requests}" for p, k in done.items())
            bar.progress(progress.fraction, text=t("sv_gp_all_running", lang, parts=parts))
            last[0] = time.perf_counter()

    try:
        kept, race = race_policies(
            bundle, result.specs, result.settings, policies, 1, get_registry().step_lock, on_step
        )
    except Exception as exc:  # noqa: BLE001 - say what failed
        show_message(error_message(exc, lang))
        return
    finally:
        element.empty()
    st.session_state[keys.POLICY_RUNS] = {"runs": dict(kept[0]), "load": race.load, "at": time.time()}


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
    rows = policy_rows(kept["runs"], slo, result.num_requests, lang, kept["load"])
    verdict_table(rows, keys.ALL_POLICIES_TABLE, lang)


def goodput_panel(result: ServingResult, runs: list[PolicyRun], lang: str, bundle=None) -> None:
    st.markdown(t("sv_gp_intro", lang))
    slo = slo_box(lang, keys.SLO_PREFIX, SLO_DEFAULTS)
    if slo is None:
        return
    load = result.loads[0] if result.loads else result.load  # the runs judged here are the first round's
    st.markdown(goodput_sentence(runs, slo, result.num_requests, lang, load))
    verdict_table(goodput_rows(runs, slo, result.num_requests, lang, load), keys.GOODPUT_TABLE, lang)
    st.plotly_chart(slo_figure(runs, slo, lang), key=keys.FIG_SLO)
    st.caption(t("sv_gp_caption", lang))
    all_policies_section(bundle, result, slo, lang)
