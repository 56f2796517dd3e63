"""The precision lab's controls and its measurement: which weights and KV dtypes to try, how much of
the text to score, then each configuration loaded, timed and scored against float32 under the
registry's step lock (a timing experiment), with progress and a Stop that keeps what was measured."""

from __future__ import annotations

import streamlit as st

from app_pages.precision import keys
from app_pages.precision.strings import t
from lab.precision_formats import KV_CHOICES, WEIGHT_CHOICES, FormatConfig, PrecisionRun, RunSettings, measure
from ui.progress import PacedBar
from ui.public_caps import cap_help, capped
from ui.run_section import run_with_progress
from ui.widget_state import KEEP
from ui.widgets import whole_number, whole_number_box

DEFAULT_WEIGHTS = ["float32", "bfloat16", "int8 + bfloat16", "w8a8"]
DEFAULT_KV = ["int8"]


def render_controls(lang: str) -> bool:
    with st.form(keys.RUN + "_form", border=False):
        c1, c2 = st.columns(2)
        c1.multiselect(
            t("pr_weights", lang),
            WEIGHT_CHOICES,
            DEFAULT_WEIGHTS,
            key=keys.WEIGHTS,
            help=t("pr_weights_help", lang),
            persist_state=KEEP,
        )
        c2.multiselect(
            t("pr_kv", lang), KV_CHOICES[1:], DEFAULT_KV, key=keys.KV, help=t("pr_kv_help", lang), persist_state=KEEP
        )
        c1, c2, c3 = st.columns([1, 1, 1], vertical_alignment="bottom")
        most = capped("max_step_tokens", 4096, keys.QUALITY_TOKENS, 0)
        whole_number_box(
            c1,
            t("pr_quality_tokens", lang),
            0,
            most,
            keys.QUALITY_TOKENS,
            step=128,
            value=min(512, most),
            help=cap_help("max_step_tokens", lang, t("pr_quality_tokens_help", lang)),
        )
        whole_number_box(
            c2,
            t("pr_repeats", lang),
            1,
            capped("max_repeats", 5, keys.REPEATS),
            keys.REPEATS,
            value=2,
            help=cap_help("max_repeats", lang),
        )
        return c3.form_submit_button(t("pr_run", lang), type="primary", icon=":material/speed:")


def configs_from_state() -> list[FormatConfig]:
    """float32 first (the reference row), then each chosen weights format, then float32 weights with
    each chosen KV dtype."""
    s = st.session_state
    weights = ["float32"] + [w for w in s[keys.WEIGHTS] if w != "float32"]
    return [FormatConfig(w) for w in weights] + [FormatConfig("float32", kv) for kv in s[keys.KV]]


def measure_formats(spec: str, reference, registry, lang: str) -> None:
    """Every chosen format measured in turn, with progress and a Stop; the run fills as it goes."""
    s = st.session_state
    settings = RunSettings(
        spec,
        configs_from_state(),
        repeats=whole_number(s[keys.REPEATS]),
        quality_tokens=whole_number(s[keys.QUALITY_TOKENS]),
    )
    run = PrecisionRun(settings)
    s[keys.RESULT] = run  # fills as it goes: a Stop (a rerun) leaves what was measured

    def measure_each(box) -> PrecisionRun:
        bar, n = PacedBar(st.progress(0.0), lang), len(settings.configs)

        def progress(stage: str, k: int, fraction: float) -> None:
            what = t(f"pr_stage_{stage}", lang)
            if 1 <= k <= n and stage != "done":
                what = t("pr_progress", lang, k=k, n=n, name=settings.configs[k - 1].name, stage=what)
            bar.progress(fraction, text=what)

        with registry.step_lock:
            measure(settings, progress, run=run, reference=reference)
        return run

    run_with_progress(
        measure_each,
        lang,
        running=t("pr_running", lang, n=len(settings.configs)),
        failed=t("pr_failed", lang),
        stop_key=keys.STOP,
    )


def current() -> PrecisionRun | None:
    return st.session_state.get(keys.RESULT)
