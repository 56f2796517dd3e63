"""The run tab: one prompt decoded plainly and with a drafter, in interleaved rounds, side by side: the
work counted first (tokens per step, drafts accepted), then the time measured beside it (TPOT both
ways, the speed-up as a ratio with its interval and n, a verdict only where the interval allows), and
where the speed-up comes from. The timed runs hold the registry's step lock, a step at a time."""

from __future__ import annotations

import time

import streamlit as st

from app_pages.speculative import keys
from app_pages.speculative.compare import ROUNDS, SpecComparison, decode_summary, run_both
from app_pages.speculative.figures import kv_figure, steps_figure
from app_pages.speculative.strings import t
from engine import load_model
from lab import eta
from lab.speculation import FREE_PROMPT, REPEAT_PROMPT
from ui.chips import chips_html, legend_html
from ui.paired import explain_text, ratio_text, retaken_text, verdict_text
from ui.public_caps import capped, prompt_cap
from ui.queue_wait import take_turn
from ui.run_section import run_with_progress
from ui.sidebar import CHOICE_KEY
from ui.text import with_eta
from ui.widget_state import KEEP, seed
from ui.widgets import whole_number_box

CODE_PROMPT = (
    "def total_price(items, tax_rate):\n    subtotal = sum(item.price * item.quantity for item in items)\n"
    "    return subtotal * (1 + tax_rate)\n\n\ndef total_weight(items):\n"
    "    return sum(item.weight * item.quantity for item in items)\n\n\ndef total_"
)
PRESETS = {"repeat": REPEAT_PROMPT, "code": CODE_PROMPT, "free": FREE_PROMPT}
DEFAULTS = {
    keys.PRESET: "repeat",
    keys.PROMPT: REPEAT_PROMPT,
    keys.K: 4,
    keys.MAX_NEW: 48,
    keys.DRAFTER: "prompt_lookup",
    keys.ADAPTIVE: False,
    keys.ROUNDS: ROUNDS,
}
MAX_ROUNDS = 30
DRAFTERS = ("prompt_lookup", "int8")
MAX_NEW = 256


def _preset_changed() -> None:
    preset = st.session_state[keys.PRESET]
    if preset in PRESETS:
        st.session_state[keys.PROMPT] = PRESETS[preset]


@st.cache_resource(max_entries=1, show_spinner=False)
def int8_copy(spec: str, device: str):
    """The loaded model's int8 copy (int8 weights, bfloat16 activations: the fast int8 path where the
    CPU has bf16), shared by every session; drafting runs under the registry's step lock."""
    return load_model(spec, dtype="bfloat16", device=device, weights="int8")


def _controls(max_position: int, lang: str) -> tuple[str, int, int, int, bool]:
    seed(DEFAULTS)
    st.selectbox(
        t("sp_preset", lang),
        [*PRESETS, "own"],
        format_func=lambda p: t(f"sp_preset_{p}", lang),
        key=keys.PRESET,
        on_change=_preset_changed,
        persist_state=KEEP,
    )
    st.text_area(t("sp_prompt", lang), key=keys.PROMPT, height=120, max_chars=prompt_cap(), persist_state=KEEP)
    st.radio(
        t("sp_drafter", lang),
        DRAFTERS,
        format_func=lambda d: t(f"sp_drafter_{d}", lang),
        key=keys.DRAFTER,
        horizontal=True,
        help=t("sp_drafter_help", lang),
        persist_state=KEEP,
    )
    c1, c2, c3, c4, c5 = st.columns([1, 1, 1, 1, 1], vertical_alignment="bottom")
    k = whole_number_box(c1, t("sp_k", lang), 1, 32, keys.K, help=t("sp_k_help", lang))
    c2.toggle(t("sp_adaptive", lang), key=keys.ADAPTIVE, help=t("sp_adaptive_help", lang), persist_state=KEEP)
    most = capped("max_new_tokens", min(MAX_NEW, max_position - 1), keys.MAX_NEW, 2)
    max_new = whole_number_box(c3, t("sp_max_new", lang), 2, most, keys.MAX_NEW, step=8)
    most_rounds = capped("max_repeats", MAX_ROUNDS, keys.ROUNDS, 5)
    rounds = whole_number_box(c4, t("sp_rounds", lang), 5, most_rounds, keys.ROUNDS, help=t("sp_rounds_help", lang))
    clicked = c5.button(t("sp_run", lang), type="primary", key=keys.RUN, icon=":material/bolt:")
    return st.session_state[keys.PROMPT] or "", k, max_new, rounds, clicked


def _run(bundle, registry, prompt: str, k: int, max_new: int, rounds: int, lang: str) -> None:
    def measure(box) -> SpecComparison:
        bar, live = box.progress(0.0), box.empty()
        first_round_done: list[float] = []
        done_in_round = {"plain": 0, "spec": 0, "round": 0}

        def progress(kept: int, arm: str, done: int) -> None:
            if kept != done_in_round["round"]:  # a new round: both arms start again
                done_in_round.update(plain=0, spec=0, round=kept)
                if kept == 1:
                    first_round_done.append(time.perf_counter())
            done_in_round[arm] = done
            within = (done_in_round["plain"] + done_in_round["spec"]) / (2 * max_new)
            since = time.perf_counter() - first_round_done[0] if first_round_done else 0.0
            left = eta.seconds_left([1.0] * rounds, kept, since, min(within, 1.0))
            what = t(f"sp_progress_{arm}", lang, r=min(kept + 1, rounds), rounds=rounds, done=done, n=max_new)
            bar.progress(min((kept + within) / rounds, 1.0), text=with_eta(what, left, lang))

        draft = None
        if st.session_state[keys.DRAFTER] == "int8":
            box.write(t("sp_loading_draft", lang, name=bundle.name))
            draft = int8_copy(st.session_state[CHOICE_KEY].spec, str(bundle.model.device))
        adaptive = bool(st.session_state[keys.ADAPTIVE])

        def landed(so_far: SpecComparison, kept: int) -> None:  # each round's counted work as it lands
            with live.container():
                st.caption(t("sp_so_far", lang, r=kept, rounds=rounds))
                _work_metrics(so_far, lang)

        got = run_both(bundle, prompt, k, max_new, registry.step_lock, progress, draft, adaptive, rounds, landed)
        live.empty()  # the page draws the whole result below
        return got

    run_with_progress(
        measure,
        lang,
        running=t("sp_running", lang, k=k, rounds=rounds),
        failed=t("sp_failed", lang),
        done=lambda r: t("sp_done", lang, n=len(r.spec.tokens), rounds=r.speedup.n if r.speedup else 0),
        keep=keys.RESULT,
    )


def _work_metrics(c: SpecComparison, lang: str) -> None:
    """The counted side first: tokens per decode step, drafts accepted, TPOT both ways (medians)."""
    s = decode_summary(c)
    cols = st.columns(4)
    if s:
        cols[0].metric(t("sp_m_per_step", lang), f"{s.per_step:.2f}", help=t("sp_m_per_step_help", lang))
        if s.acceptance is not None:
            cols[1].metric(
                t("sp_m_accept", lang),
                f"{s.acceptance:.0%}",
                help=t("sp_m_accept_help", lang, accepted=s.accepted, drafted=s.drafted, steps=s.drafting_steps),
            )
    for i, arm in enumerate(("plain", "spec")):
        tpot = c.median_tpot(arm)
        if tpot is not None:
            cols[2 + i].metric(t(f"sp_m_tpot_{arm}", lang), f"{tpot:.1f} ms", help=t("sp_m_tpot_help", lang))


def _speedup(c: SpecComparison, lang: str) -> None:
    """The measured side: the speed-up as a ratio with its interval and n, and its verdict."""
    r = c.speedup
    verdict = verdict_text(r, lang, t("sp_faster", lang), t("sp_slower", lang))
    st.markdown(t("sp_speedup_line", lang, ratio=ratio_text(r, lang), verdict=verdict))
    again = retaken_text(r.retaken if r else 0, lang)
    if again:
        st.caption(again)


def _where(c: SpecComparison, lang: str) -> None:
    s = decode_summary(c)
    st.markdown(f"**{t('sp_where_header', lang)}**")
    if s is None or c.speedup is None:
        st.info(t("sp_where_none", lang))
        return
    cost = s.step_cost(c.speedup)
    st.markdown(
        t(
            "sp_where",
            lang,
            steps=s.steps,
            tokens=s.tokens,
            per_step=s.per_step,
            cost=ratio_text(cost, lang),
            ratio=cost.median,
            speedup=ratio_text(c.speedup, lang),
            median=c.speedup.median,
        )
    )


def _metrics(c: SpecComparison, lang: str) -> None:
    _work_metrics(c, lang)
    _speedup(c, lang)
    same = t("sp_yes" if c.same_tokens else "sp_no", lang)
    st.caption(t("sp_same_line", lang, same=same))
    _where(c, lang)
    with st.expander(t("sp_method", lang)):
        st.markdown(explain_text(lang))


def render_run_tab(bundle, registry, lang: str) -> None:
    st.markdown(t("sp_run_intro", lang))
    prompt, k, max_new, rounds, clicked = _controls(bundle.model.config.max_position, lang)
    if clicked:
        with take_turn(lang) as go:
            if go:
                _run(bundle, registry, prompt, k, max_new, rounds, lang)
    c = st.session_state.get(keys.RESULT)
    if c is None:
        st.info(t("sp_not_run", lang))
        return
    _metrics(c, lang)
    left, right = st.columns(2)
    left.markdown(f"**{t('sp_chips_plain', lang)}**")
    left.html(chips_html(c.plain, lang=lang))
    drafter = t(f"sp_drafter_short_{c.drafter}", lang)
    k = t("sp_k_adaptive", lang, k=c.k) if c.adaptive else str(c.k)
    right.markdown(f"**{t('sp_chips_spec', lang, k=k, drafter=drafter)}**")
    right.html(chips_html(c.spec, lang=lang))
    st.html(legend_html(lang, speculative=True))
    c1, c2 = st.columns(2)
    c1.plotly_chart(steps_figure(c, lang), key=keys.FIG_STEPS)
    c2.plotly_chart(kv_figure(c, lang), key=keys.FIG_KV)
    c2.caption(t("sp_kv_caption", lang))
