"""The serving lab's controls: the workload (a preset and its numbers, or a table of requests) and
the two policies with the engine settings they share. Bad input is reported where it is typed
and keeps Run disabled, so nothing half-valid ever reaches the engine."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from app_pages.serving import keys
from app_pages.serving.run import (
    DEFAULT_BATCH,
    DEFAULT_BUDGET,
    DEFAULT_ROUNDS,
    FULL_BUDGET,
    MAX_ROUNDS,
    POLICIES,
    PRESET_BATCH,
    PRESET_POLICIES,
    ServingSettings,
)
from app_pages.serving.strings import t
from app_pages.serving.workload import (
    CUSTOM_ROWS,
    PARAMS,
    PRESETS,
    build_custom,
    build_preset,
    check_workload,
    param_values,
    pool_needs,
)
from engine.errors import LabError
from lab.workload import RequestSpec
from ui.errors import show_error
from ui.public_caps import cap_help, capped, check_count
from ui.tables import edit_table, show_table
from ui.widget_state import KEEP
from ui.widgets import whole_number, whole_number_box

BLOCK_SIZES = [1, 2, 4, 8, 16, 32, 64]


def _policy_defaults(preset: str, size: str = "small") -> dict:
    a, b = PRESET_POLICIES[preset]
    batch = PRESET_BATCH.get(preset, DEFAULT_BATCH) if size == "small" else DEFAULT_BATCH
    return {
        keys.POLICY_A: a,
        keys.POLICY_B: b,
        keys.BATCH: batch,
        keys.BUDGET: DEFAULT_BUDGET if size == "small" else FULL_BUDGET,
    }


def init_defaults(max_position: int) -> None:
    """Seed every widget's state once per session (no widget gets both a default and a state)."""
    s = st.session_state
    if keys.PRESET in s:
        return
    s[keys.PRESET] = PRESETS[0]
    for name in PARAMS:
        s.update(param_values(name))
    long_key = keys.param("head-of-line", "long_prompt")
    s[long_key] = min(s[long_key], max(1, max_position // 2))  # small models: leave room for the output
    s.update(_policy_defaults(PRESETS[0]))
    s.update({keys.BLOCK: 16, keys.POOL: None, keys.ROUNDS: DEFAULT_ROUNDS})
    s[keys.CUSTOM_BASE] = pd.DataFrame(CUSTOM_ROWS)


def _on_preset() -> None:
    st.session_state.update(_policy_defaults(st.session_state[keys.PRESET]))


def _set_size(size: str) -> None:
    preset = st.session_state[keys.PRESET]
    if preset in PARAMS:
        st.session_state.update(param_values(preset, size))
    st.session_state.update(_policy_defaults(preset, size))


def _param_inputs(preset: str, lang: str) -> dict[str, float]:
    params = PARAMS[preset]
    cols = st.columns(len(params))
    for col, p in zip(cols, params):
        key = keys.param(preset, p.name)
        kind = "max_requests" if p.name in ("num_streams", "num_requests") else None  # counts a visitor could inflate
        helps = cap_help(kind, lang, t(f"sv_param_{p.name}_help", lang)) if kind else t(f"sv_param_{p.name}_help", lang)
        if p.is_int:  # a count: "1e3" typed is 1000
            hi = capped(kind, int(p.max_value), key, int(p.min_value)) if kind else int(p.max_value)
            whole_number_box(
                col, t(f"sv_param_{p.name}", lang), int(p.min_value), hi, key, step=int(p.step), help=helps
            )
        else:
            col.number_input(
                t(f"sv_param_{p.name}", lang),
                min_value=float(p.min_value),
                max_value=float(p.max_value),
                step=float(p.step),
                key=key,
                help=helps,
                persist_state=KEEP,
            )
    c1, c2, _ = st.columns([1, 1, 3])
    c1.button(
        t("sv_size_small", lang),
        key=keys.SMALL,
        on_click=_set_size,
        args=("small",),
        icon=":material/bolt:",
        help=t("sv_size_small_help", lang),
    )
    c2.button(
        t("sv_size_full", lang),
        key=keys.FULL,
        on_click=_set_size,
        args=("full",),
        icon=":material/speed:",
        help=t("sv_size_full_help", lang),
    )
    values = {p.name: st.session_state[keys.param(preset, p.name)] for p in params}
    return {p.name: whole_number(values[p.name]) if p.is_int else values[p.name] for p in params}


def _custom_table(lang: str) -> list[dict]:
    """The table of requests. A data editor has no persist_state: its edits are dropped when it is
    not drawn (another page or preset). So the rows it returns are kept, and become its base the
    next time it is drawn afresh, with no edits of its own to apply twice."""
    s = st.session_state
    if keys.CUSTOM not in s and keys.CUSTOM_KEPT in s:
        s[keys.CUSTOM_BASE] = s[keys.CUSTOM_KEPT]
    cfg = st.column_config
    edited = edit_table(
        s[keys.CUSTOM_BASE],
        num_rows="dynamic",
        key=keys.CUSTOM,
        column_config={
            "label": cfg.TextColumn(t("sv_col_request", lang), max_chars=40),
            "arrival_s": cfg.NumberColumn(
                t("sv_col_arrival", lang), min_value=0.0, max_value=600.0, step=0.05, format="%.2f"
            ),
            "prompt_tokens": cfg.NumberColumn(t("sv_col_prompt", lang), min_value=1, max_value=32768, step=1),
            "output_tokens": cfg.NumberColumn(t("sv_col_output", lang), min_value=1, max_value=8192, step=1),
        },
    )
    s[keys.CUSTOM_KEPT] = edited
    return edited.to_dict("records")


def _spec_frame(specs: list[RequestSpec], tokenizer, lang: str) -> pd.DataFrame:
    ordered = sorted(specs, key=lambda s: s.arrival_s)
    return pd.DataFrame(
        {
            t("sv_col_request", lang): [s.label for s in ordered],
            t("sv_col_arrival", lang): [s.arrival_s for s in ordered],
            t("sv_col_prompt", lang): [len(s.prompt_ids) for s in ordered],
            t("sv_col_output", lang): [s.max_new_tokens for s in ordered],
            t("sv_col_prompt_text", lang): [tokenizer.decode(s.prompt_ids[:24]) + "…" for s in ordered],
        }
    )


def workload_controls(bundle, lang: str) -> list[RequestSpec] | None:
    """Draw the workload builder; return its requests, or None (with a message) if they are invalid."""
    init_defaults(bundle.model.config.max_position)
    preset = st.radio(
        t("sv_preset", lang),
        PRESETS,
        key=keys.PRESET,
        horizontal=True,
        on_change=_on_preset,
        format_func=lambda p: t(f"sv_preset_{p}", lang),
        persist_state=KEEP,
    )
    st.caption(t(f"sv_preset_{preset}_help", lang))
    try:
        if preset == "custom":
            specs = build_custom(_custom_table(lang), bundle.tokenizer)
        else:
            specs = build_preset(preset, bundle.tokenizer, _param_inputs(preset, lang))
        check_workload(specs, bundle.model.config.max_position)
    except LabError as exc:
        show_error(exc, lang)
        return None
    prompt, output = sum(len(s.prompt_ids) for s in specs), sum(s.max_new_tokens for s in specs)
    span = max(s.arrival_s for s in specs)
    with st.expander(t("sv_workload_summary", lang, n=len(specs), prompt=prompt, output=output, span=span)):
        show_table(
            _spec_frame(specs, bundle.tokenizer, lang),
            key=keys.SPEC_TABLE,
            column_config={t("sv_col_arrival", lang): st.column_config.NumberColumn(format="%.2f")},
        )
    return specs


def policy_controls(specs: list[RequestSpec] | None, lang: str) -> ServingSettings | None:
    """Draw the policy pickers and engine settings; return them, or None (with a message) if invalid."""
    c1, c2 = st.columns(2)
    for col, slot in ((c1, "a"), (c2, "b")):
        col.selectbox(
            t(f"sv_policy_{slot}_label", lang),
            list(POLICIES),
            key=keys.POLICY[slot],
            format_func=lambda p: t(f"sv_policy_{p}", lang),
            help=t("sv_policy_help", lang),
            persist_state=KEEP,
        )
    c = st.columns(5)
    whole_number_box(
        c[0],
        t("sv_batch", lang),
        0,
        capped("max_batch", 256, keys.BATCH, 0),
        keys.BATCH,
        help=cap_help("max_batch", lang, t("sv_batch_help", lang)),
    )
    whole_number_box(c[1], t("sv_budget", lang), 0, 16384, keys.BUDGET, step=16, help=t("sv_budget_help", lang))
    c[2].selectbox(t("sv_block", lang), BLOCK_SIZES, key=keys.BLOCK, help=t("sv_block_help", lang), persist_state=KEEP)
    # Empty is automatic (value=None: the box can be emptied again once a number is typed)
    whole_number_box(
        c[3],
        t("sv_pool", lang),
        0,
        1_000_000,
        keys.POOL,
        step=8,
        value=None,
        placeholder=t("sv_pool_auto", lang),
        help=t("sv_pool_help", lang),
    )
    most = capped("max_repeats", MAX_ROUNDS, keys.ROUNDS)
    whole_number_box(
        c[4], t("sv_rounds", lang), 1, most, keys.ROUNDS, help=cap_help("max_repeats", lang, t("sv_rounds_help", lang))
    )
    s = st.session_state
    try:
        settings = ServingSettings(
            policy_a=s[keys.POLICY_A],
            policy_b=s[keys.POLICY_B],
            max_num_seqs=whole_number(s[keys.BATCH]),
            chunk_budget=whole_number(s[keys.BUDGET]),
            block_size=int(s[keys.BLOCK]),
            pool_blocks=whole_number(s[keys.POOL]),
            rounds=whole_number(s.get(keys.ROUNDS, DEFAULT_ROUNDS)),
        )
        if specs:
            check_count("max_requests", len(specs), t("public_what_requests", lang))  # a custom table too
            settings.pool(specs)
    except LabError as exc:
        show_error(exc, lang)
        return None
    if specs:
        longest, everything = pool_needs(specs, settings.block_size)
        st.caption(t("sv_pool_caption", lang, longest=longest, all=everything, size=settings.block_size))
    return settings
