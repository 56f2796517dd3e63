"""The cost tab: the verify-cost curve measured on the loaded model (a verify step of k drafts against
a plain decode step at the same context), the break-even acceptance of each k, the cost model's ridge,
and the claim that decode leaves compute idle, judged on these numbers."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd
import streamlit as st

from app_pages.speculative import keys
from app_pages.speculative.figures import break_even_figure, cost_figure
from app_pages.speculative.strings import t
from engine.errors import LabError
from lab.busy import LoadMeter, MachineLoad
from lab.hardware import cached_ceilings, machine_ceilings
from lab.speculation import FLAT_WITHIN, MAX_VERIFY_K, VerifyCost, ridge_tokens, verify_claim, verify_costs
from lab.verdicts import explain, unreliable_when_busy
from ui.claims_verdicts import verdict_label
from ui.errors import show_error
from ui.load_note import ratio_label, show_load, was_busy
from ui.progress import PacedBar
from ui.public import check_run_work
from ui.queue_wait import take_turn
from ui.run_section import run_with_progress
from ui.widget_state import KEEP, seed

K_OPTIONS = [1, 2, 4, 8, 16, 32, MAX_VERIFY_K]
STEPS = 6  # verify steps timed per point (their median)
DEFAULTS = {keys.CONTEXTS: "64, 512", keys.KS: K_OPTIONS}


@dataclass
class CostResult:
    model: str
    costs: list[VerifyCost]
    ridge: float  # this machine's ridge point, FLOP/byte, for the model's dtype
    ridge_k: dict[int, int | None]  # context -> the first k whose verify step is compute-bound (cost model)
    load: MachineLoad | None = None


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
    """New tokens a verify measurement generates at most (lab/speculation.verify_step_ms)."""
    return (STEPS + 1) * (k + 1) + 1


def _measure(bundle, registry, contexts: list[int], ks: list[int], lang: str) -> None:
    m = bundle.model
    dtype = str(m.dtype).removeprefix("torch.")

    def measure(box) -> CostResult:
        device = str(m.device).split(":")[0]
        if cached_ceilings(device) is None:
            box.write(t("sp_cost_ceilings", lang))
        ridge = machine_ceilings(device).ridge_point(dtype)
        bar = PacedBar(box.progress(0.0), lang)
        n = len(contexts) * (len(ks) + 1)
        count = [0]

        def progress(done: int, total: int) -> None:
            count[0] += 1
            bar.progress(done / total, t("sp_cost_progress", lang, done=count[0], n=n))

        with registry.step_lock, LoadMeter() as meter:
            costs = verify_costs(m, bundle.tokenizer, contexts, ks, STEPS, progress)
        ridge_k = {
            ctx: (T - 1 if T else None)
            for ctx in contexts
            for T in [ridge_tokens(m.config, ctx, m.dtype.itemsize, m.weight_elem_bytes, ridge)]
        }
        return CostResult(bundle.name, costs, ridge, ridge_k, meter.load)

    run_with_progress(
        measure,
        lang,
        running=t("sp_cost_running", lang),
        failed=t("sp_failed", lang),
        done=lambda r: t("sp_cost_done", lang, n=len(r.costs)),
        keep=keys.COST_RESULT,
    )


def _table(r: CostResult, lang: str) -> pd.DataFrame:
    busy = was_busy(r.load)

    def even(c: VerifyCost) -> str:
        if busy:
            return t("busy_ratio_value", lang)
        if c.break_even is None:
            return t("sp_break_never", lang)
        return t("sp_break_always", lang) if c.break_even == 0 else f"{c.break_even:.0%}"

    return pd.DataFrame(
        [
            {
                t("sp_col_context", lang): c.context,
                t("sp_col_k", lang): c.k,
                t("sp_col_ms", lang): round(c.ms, 1),
                ratio_label(t("sp_col_ratio", lang), busy, lang): round(c.ratio, 2),
                t("sp_col_break", lang): even(c) if c.k else "—",
            }
            for c in r.costs
        ]
    )


def _claim_card(r: CostResult, lang: str) -> None:
    verdict = unreliable_when_busy({"SPEC": verify_claim(r.costs)}, r.load, ("SPEC",))["SPEC"]
    with st.container(border=True):
        st.markdown(f"**{t('sp_claim_header', lang)}**")
        st.markdown(t("sp_claim", lang, within=FLAT_WITHIN))
        st.markdown(f"**{verdict_label(verdict, lang)}.** {explain(verdict, lang)}")


def render_cost_tab(bundle, registry, lang: str) -> None:
    st.markdown(t("sp_cost_intro", lang, steps=STEPS))
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
    show_load(r.load, lang)
    _claim_card(r, lang)
    c1, c2 = st.columns(2)
    busy = was_busy(r.load)
    c1.plotly_chart(cost_figure(r.costs, r.ridge_k, lang, busy), key=keys.FIG_COST)
    c2.plotly_chart(break_even_figure(r.costs, lang, busy), key=keys.FIG_BREAK_EVEN)
    st.caption(t("sp_cost_caption", lang, ridge=r.ridge))
    st.dataframe(_table(r, lang), hide_index=True, key=keys.COST_TABLE)
