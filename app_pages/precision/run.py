"""The precision lab's controls and its measurement: which weights and KV dtypes to try, how much of
the text to score and how many repeats, then float32's row and each configuration loaded, timed
beside float32 and scored (lab/precision_run.py) under the registry's step lock (a timing
experiment), its rows landing in the status box as they are measured, with the time left and a
Stop that keeps what was measured."""

from __future__ import annotations

import streamlit as st

from app_pages.precision import keys
from app_pages.precision.strings import t
from app_pages.precision.tables import time_table, work_short, work_table
from lab.precision_formats import KV_CHOICES, WEIGHT_CHOICES, FormatConfig
from lab.precision_pace import PrecisionProgress
from lab.precision_run import PrecisionRun, RunSettings, measure
from ui.public_caps import cap_help, capped
from ui.run_section import run_with_progress
from ui.tables import show_table
from ui.text import with_eta
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
            value=min(256, most),
            help=cap_help("max_step_tokens", lang, t("pr_quality_tokens_help", lang)),
        )
        whole_number_box(
            c2,
            t("pr_repeats", lang),
            1,
            capped("max_repeats", 5, keys.REPEATS),
            keys.REPEATS,
            value=1,
            help=cap_help("max_repeats", lang, t("pr_repeats_help", lang)),
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
        bar, n = box.progress(0.0), len(settings.configs)
        rows = box.empty()
        shown = [0.0]  # the bar never goes back when an estimate grows

        def progress(p: PrecisionProgress) -> None:
            what = t(f"pr_stage_{p.stage}", lang)
            if 1 <= p.k <= n and p.stage != "done":
                what = t("pr_progress", lang, k=p.k, n=n, name=settings.configs[p.k - 1].name, stage=what)
            shown[0] = max(shown[0], min(p.fraction, 1.0))
            bar.progress(shown[0], text=with_eta(what, p.seconds_left, lang))

        def on_row(run: PrecisionRun) -> None:
            """Each row as its configuration is timed, at the context and batch the page last showed."""
            context = whole_number(s.get(keys.CONTEXT)) or min(4096, run.model.max_position)
            batch = whole_number(s.get(keys.BATCH)) or 1
            with rows.container():
                st.caption(t("pr_rows_so_far", lang))
                show_table(work_table(run, context, batch, lang), short=work_short(context, batch, lang))
                show_table(time_table(run, lang))

        with registry.step_lock:
            measure(settings, progress, run=run, reference=reference, on_row=on_row)
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
