"""The cost tab: the verify-cost curve measured on the loaded model (a verify step of k drafts against
a plain decode step at the same context, the lanes stepped in turn: each point the median of its
paired ratios with its interval and n), the break-even acceptance of each k, the cost model's ridge,
and the claim that decode leaves compute idle, judged on those intervals."""

from __future__ import annotations

import time
from dataclasses import dataclass

import pandas as pd
import streamlit as st

from app_pages.speculative import keys
from app_pages.speculative.figures import break_even_figure, cost_figure
from app_pages.speculative.strings import t
from engine.errors import LabError
from lab.hardware import cached_ceilings, machine_ceilings
from lab.speculation import (
    FLAT_WITHIN,
    MAX_VERIFY_K,
    ROUNDS,
    WARM_STEPS,
    VerifyCost,
    curve_work,
    ridge_tokens,
    verify_claim,
    verify_costs,
)
from lab.verdicts import explain
from ui.claims_verdicts import verdict_label
from ui.errors import show_error
from ui.paired import explain_text, ratio_text, retaken_text, verdict_text
from ui.public import check_run_work
from ui.queue_wait import take_turn
from ui.run_section import run_with_progress
from ui.tables import short_labels, show_table
from ui.text import with_eta
from ui.widget_state import KEEP, seed

K_OPTIONS = [1, 2, 4, 8, 16, 32, MAX_VERIFY_K]
DEFAULTS = {keys.CONTEXTS: "64, 512", keys.KS: K_OPTIONS}


@dataclass
class CostResult:
    model: str
    costs: list[VerifyCost]
    ridge: float  # this machine's ridge point, FLOP/byte, for the model's dtype
    ridge_k: dict[int, int | None]  # context -> the first k whose verify step is compute-bound (cost model)

    @property
    def retaken(self) -> int:
        """Rounds measured again because other work took the machine meanwhile (each context's once)."""
        return sum(c.interval.retaken for c in self.costs if c.interval is not None and c.k == self._first_k)

    @property
    def _first_k(self) -> int:
        return min(c.k for c in self.costs if c.k)


def parse_contexts(text: str, max_context: int, lang: str = "en") -> list[int]:
    parts = [p for p in text.replace("，", ",").replace(" ", ",").split(",") if p]
    try:
        values = sorted({int(p) for p in parts})
    except ValueError:
        values = []
    if not values or len(values) > 4 or values[0] < 1 or values[-1] > max_context:
        raise LabError(t("sp_err_contexts", lang, max=max_context))
    return values


def _room(k: int) -> int:
    """New tokens a lane verifying k drafts generates at most (lab/speculation._lane)."""
    return (WARM_STEPS + ROUNDS + ROUNDS // 4) * (k + 1) + 1


def _measure(bundle, registry, contexts: list[int], ks: list[int], lang: str) -> None:
    m = bundle.model
    dtype = str(m.dtype).removeprefix("torch.")

    def measure(box) -> CostResult:
        device = str(m.device).split(":")[0]
        if cached_ceilings(device) is None:
            box.write(t("sp_cost_ceilings", lang))
        ridge = machine_ceilings(device).ridge_point(dtype)
        bar, work = box.progress(0.0), curve_work(contexts, ks, ROUNDS)
        started: list[float] = []

        def progress(i: int, within: float) -> None:
            if not started and within > WARM_STEPS / (WARM_STEPS + ROUNDS):
                started.append(time.perf_counter())  # the pace starts with the rounds: prefills differ
            done = sum(work[:i]) + within * work[i]
            left = _seconds_left(work, i, within, started)
            what = t("sp_cost_progress", lang, C=contexts[i], i=i + 1, m=len(contexts))
            bar.progress(min(done / sum(work), 1.0), text=with_eta(what, left, lang))

        live = box.empty()

        def landed(so_far: list[VerifyCost]) -> None:  # each round's step times as they land
            with live.container():
                st.caption(t("sp_cost_so_far", lang))
                show_table(_so_far_table(so_far, lang))

        costs = verify_costs(m, bundle.tokenizer, contexts, ks, ROUNDS, progress, registry.step_lock, landed)
        live.empty()  # the page draws the whole curve below
        ridge_k = {
            ctx: (T - 1 if T else None)
            for ctx in contexts
            for T in [ridge_tokens(m.config, ctx, m.dtype.itemsize, m.weight_elem_bytes, ridge)]
        }
        return CostResult(bundle.name, costs, ridge, ridge_k)

    run_with_progress(
        measure,
        lang,
        running=t("sp_cost_running", lang),
        failed=t("sp_failed", lang),
        done=lambda r: t("sp_cost_done", lang, n=len(ks), m=len(contexts), rounds=ROUNDS),
        keep=keys.COST_RESULT,
    )


def _seconds_left(work: list[float], i: int, within: float, started: list[float]) -> float | None:
    """The rest of the curve at the pace of its rounds so far (lab/eta.py; the first context's
    prefills and warm-up are left out of the pace: they cost what no later round does)."""
    if not started:
        return None
    first = WARM_STEPS / (WARM_STEPS + ROUNDS)
    done = sum(work[:i]) + within * work[i] - first * work[0]
    left = sum(work[i:]) - within * work[i]
    return (time.perf_counter() - started[0]) * left / done if done > 0 else None


def _break_even(c: VerifyCost, lang: str) -> str:
    """The acceptance k needs at its measured cost, then the range its interval's ends give."""

    def word(a: float | None, never: str = "sp_break_never") -> str:
        if a is None:
            return t(never, lang)
        return t("sp_break_always", lang) if a == 0 else f"{a:.0%}"

    lo, hi = c.break_even_range
    if lo == hi:
        return word(c.break_even)
    short = "sp_break_never_short"
    return t("sp_break_range", lang, mid=word(c.break_even), lo=word(lo, short), hi=word(hi, short))


def _so_far_table(costs: list[VerifyCost], lang: str) -> pd.DataFrame:
    """The curve while it is measured: each step's median so far, and its ratio to the plain step's."""
    plain = {c.context: c.ms for c in costs if not c.k}
    return pd.DataFrame(
        [
            {
                t("sp_col_context", lang): c.context,
                t("sp_col_k", lang): c.k,
                t("sp_col_ms", lang): round(c.ms, 1),
                t("sp_col_ratio_so_far", lang): round(c.ms / plain[c.context], 2) if c.k else t("sp_is_base", lang),
            }
            for c in costs
        ]
    )


def _table(r: CostResult, lang: str) -> pd.DataFrame:
    flat, rises = t("sp_flat", lang, within=FLAT_WITHIN), t("sp_rises", lang, within=FLAT_WITHIN)
    return pd.DataFrame(
        [
            {
                t("sp_col_context", lang): c.context,
                t("sp_col_k", lang): c.k,
                t("sp_col_ms", lang): round(c.ms, 1),
                t("sp_col_ratio", lang): ratio_text(c.interval, lang) if c.k else t("sp_is_base", lang),
                t("sp_col_flat", lang, within=FLAT_WITHIN): (
                    verdict_text(c.interval, lang, rises, flat, FLAT_WITHIN) if c.k else "—"
                ),
                t("sp_col_break", lang): _break_even(c, lang) if c.k else "—",
            }
            for c in r.costs
        ]
    )


def _claim_card(r: CostResult, lang: str) -> None:
    verdict = verify_claim(r.costs)
    with st.container(border=True):
        st.markdown(f"**{t('sp_claim_header', lang)}**")
        st.markdown(t("sp_claim", lang, within=FLAT_WITHIN))
        st.markdown(f"**{verdict_label(verdict, lang)}.** {explain(verdict, lang)}")


def render_cost_tab(bundle, registry, lang: str) -> None:
    st.markdown(t("sp_cost_intro", lang, rounds=ROUNDS))
    seed(DEFAULTS)
    c1, c2, c3 = st.columns([1, 2, 1], vertical_alignment="bottom")
    text = c1.text_input(t("sp_contexts", lang), key=keys.CONTEXTS, persist_state=KEEP)
    ks = c2.multiselect(t("sp_ks", lang), K_OPTIONS, key=keys.KS, persist_state=KEEP)
    clicked = c3.button(t("sp_cost_run", lang), type="primary", key=keys.COST_RUN, icon=":material/speed:")
    if clicked:
        try:
            top = max(ks) if ks else 0
            contexts = parse_contexts(text, bundle.model.config.max_position - 1 - _room(top), lang)
            if not ks:
                raise LabError(t("sp_err_ks", lang))
            check_run_work(max(contexts), _room(top), True)  # public caps; off: nothing
        except LabError as exc:
            show_error(exc, lang)
        else:
            with take_turn(lang) as go:
                if go:
                    _measure(bundle, registry, contexts, sorted(ks), lang)
    r = st.session_state.get(keys.COST_RESULT)
    if r is None:
        st.info(t("sp_cost_not_run", lang))
        return
    _claim_card(r, lang)
    c1, c2 = st.columns(2)
    c1.plotly_chart(cost_figure(r.costs, r.ridge_k, lang), key=keys.FIG_COST)
    c2.plotly_chart(break_even_figure(r.costs, lang), key=keys.FIG_BREAK_EVEN)
    st.caption(t("sp_cost_caption", lang, ridge=r.ridge))
    if r.retaken:
        st.caption(retaken_text(r.retaken, lang))
    show_table(_table(r, lang), key=keys.COST_TABLE, short=short_labels(t, lang, "sp_col_ratio"))
    with st.expander(t("sp_method", lang)):
        st.markdown(explain_text(lang))
