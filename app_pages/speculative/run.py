"""The run tab: one prompt decoded plainly and with prompt lookup, side by side, and where the
speed-up comes from. The two timed runs hold the registry's step lock, as the playground's do."""

from __future__ import annotations

import streamlit as st

from app_pages.speculative import keys
from app_pages.speculative.compare import SpecComparison, decode_summary, run_both
from app_pages.speculative.figures import kv_figure, steps_figure
from app_pages.speculative.strings import t
from engine import load_model
from lab.speculation import FREE_PROMPT, REPEAT_PROMPT
from ui.chips import chips_html, legend_html
from ui.load_note import show_load, was_busy
from ui.progress import PacedBar
from ui.public_caps import capped, prompt_cap
from ui.queue_wait import take_turn
from ui.run_section import run_with_progress
from ui.sidebar import CHOICE_KEY
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
}
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


def _controls(max_position: int, lang: str) -> tuple[str, int, int, bool]:
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
    c1, c2, c3, c4 = st.columns([1, 1, 1, 1], vertical_alignment="bottom")
    k = whole_number_box(c1, t("sp_k", lang), 1, 32, keys.K, help=t("sp_k_help", lang))
    c2.toggle(t("sp_adaptive", lang), key=keys.ADAPTIVE, help=t("sp_adaptive_help", lang), persist_state=KEEP)
    most = capped("max_new_tokens", min(MAX_NEW, max_position - 1), keys.MAX_NEW, 2)
    max_new = whole_number_box(c3, t("sp_max_new", lang), 2, most, keys.MAX_NEW, step=8)
    clicked = c4.button(t("sp_run", lang), type="primary", key=keys.RUN, icon=":material/bolt:")
    return st.session_state[keys.PROMPT] or "", k, max_new, clicked


def _run(bundle, registry, prompt: str, k: int, max_new: int, lang: str) -> None:
    def measure(box) -> SpecComparison:
        bar = PacedBar(box.progress(0.0), lang)

        def progress(run: int, done: int) -> None:
            key = "sp_progress_plain" if run == 0 else "sp_progress_spec"
            bar.progress((run * max_new + done) / (2 * max_new), t(key, lang, done=done, n=max_new))

        draft = None
        if st.session_state[keys.DRAFTER] == "int8":
            box.write(t("sp_loading_draft", lang, name=bundle.name))
            draft = int8_copy(st.session_state[CHOICE_KEY].spec, str(bundle.model.device))
        adaptive = bool(st.session_state[keys.ADAPTIVE])
        return run_both(bundle, prompt, k, max_new, registry.step_lock, progress, draft, adaptive)

    run_with_progress(
        measure,
        lang,
        running=t("sp_running", lang, k=k),
        failed=t("sp_failed", lang),
        done=lambda r: t("sp_done", lang, n=len(r.spec.tokens)),
        keep=keys.RESULT,
    )


def _timing_metrics(c: SpecComparison, busy: bool, lang: str) -> None:
    """TPOT and E2E both ways; the speculative one's difference from plain only on a quiet machine."""
    plain, spec = c.plain.metrics, c.spec.metrics
    if not (plain and spec):
        return
    cols = st.columns(4)
    pairs = [("tpot", plain.tpot_ms, spec.tpot_ms, ".1f"), ("e2e", plain.e2e_ms, spec.e2e_ms, ".0f")]
    for i, (name, a, b, fmt) in enumerate(pairs):
        if a is None or b is None:
            continue
        cols[2 * i].metric(t(f"sp_m_{name}_plain", lang), f"{a:{fmt}} ms")
        delta = None if busy else f"{b - a:+{fmt}} ms"
        cols[2 * i + 1].metric(t(f"sp_m_{name}_spec", lang), f"{b:{fmt}} ms", delta=delta, delta_color="inverse")


def _metrics(c: SpecComparison, lang: str) -> None:
    s, busy = decode_summary(c), was_busy(c.load)
    _timing_metrics(c, busy, lang)
    if s:
        cols = st.columns(4)
        cols[0].metric(t("sp_m_per_step", lang), f"{s.per_step:.2f}")
        if s.acceptance is not None:
            cols[1].metric(
                t("sp_m_accept", lang),
                f"{s.acceptance:.0%}",
                help=t("sp_m_accept_help", lang, accepted=s.accepted, drafted=s.drafted, steps=s.drafting_steps),
            )
        speedup = t("busy_ratio_value", lang) if busy else f"{s.speedup:.2f}×"
        cols[2].metric(t("sp_m_speedup", lang), speedup, help=t("busy_ratio_help", lang) if busy else None)
    same = t("sp_yes" if c.same_tokens else "sp_no", lang)
    st.caption(t("sp_same_line", lang, same=same))
    st.markdown(f"**{t('sp_where_header', lang)}**")
    if s is None:
        st.info(t("sp_where_none", lang))
    elif busy:
        st.warning(t("sp_where_busy", lang, per_step=s.per_step), icon=":material/speed:")
    else:
        st.markdown(
            t(
                "sp_where",
                lang,
                plain_ms=s.plain_ms_per_token,
                steps=s.steps,
                tokens=s.tokens,
                per_step=s.per_step,
                spec_ms=s.spec_ms_per_step,
                ratio=s.ratio,
                speedup=s.speedup,
            )
        )


def render_run_tab(bundle, registry, lang: str) -> None:
    st.markdown(t("sp_run_intro", lang))
    prompt, k, max_new, clicked = _controls(bundle.model.config.max_position, lang)
    if clicked:
        with take_turn(lang) as go:
            if go:
                _run(bundle, registry, prompt, k, max_new, lang)
    c = st.session_state.get(keys.RESULT)
    if c is None:
        st.info(t("sp_not_run", lang))
        return
    show_load(c.load, lang)
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
