"""Sections 2 and 3 of the complexity lab: which term dominates (C15), and the worked example (C12)
for the loaded model or any preset. Both are arithmetic on configs: instant, no weights needed."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from app_pages.complexity import keys
from app_pages.complexity.figures import crossover_figure, exponent_figure
from app_pages.complexity.strings import t
from app_pages.complexity.table import (
    DOC_MODEL,
    DOC_PROMPT,
    DOC_TOKENS,
    MAX_WORKED_TOKENS,
    doc_token_count,
    matches_document,
    shape_frame,
    walkthrough_md,
    worked_rows,
)
from engine.config import PRESETS, ModelConfig
from lab.complexity_math import crossover_rows, first_n_above
from ui.errors import shown_errors
from ui.formula import show_formula
from ui.tables import show_table
from ui.text import md_literal, quoted
from ui.tokens import piece_text, pieces_for
from ui.widget_state import KEEP, seed
from ui.widgets import whole_number_box

WORKED_DEFAULTS = {keys.WE_MODEL: DOC_MODEL, keys.WE_PROMPT: DOC_PROMPT, keys.WE_MAX_NEW: 3, keys.WE_CACHE: True}
ROW_PX = 35  # st.dataframe's row height: the shape table shows every row without scrolling
LOADED = "__loaded__"  # the option that stands for the sidebar's model, whatever its name
FORMULAS = [
    r"\text{step}_{\text{cache}}(C) = \text{lin} + a\,C \qquad "
    r"\text{step}_{\text{no cache}}(C) = C\,\text{lin} - (C - 1)\,\text{tail} + a\,\tfrac{C(C+1)}{2}",
    r"\text{lin} = 2\,n_\text{layers}\big(d\,(q + 2\,kv) + q\,d + 3\,d\,d_\text{ffn}\big) \qquad "
    r"\text{tail} = 2\,\big(q\,d + 3\,d\,d_\text{ffn}\big) \qquad "
    r"a = 4\,n_\text{layers}\,n_\text{heads}\,d_\text{head}",
    r"C^{*}_{\text{cache}} = \text{lin} / a \qquad C^{*}_{\text{no cache}} = 2\,(\text{lin} - \text{tail}) / a",
]


def model_options(bundle) -> dict[str, ModelConfig]:
    """The loaded model first, then the presets, by option key."""
    return {LOADED: bundle.model.config, **PRESETS}


def option_label(key: str, bundle, lang: str) -> str:
    return t("cx_loaded_label", lang, name=bundle.name) if key == LOADED else key


def crossover_frame(configs: dict[str, ModelConfig], lang: str) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {
                t("cx_col_model", lang): r.name,
                t("cx_col_lin", lang): round(r.linear_per_token / 1e9, 3),
                t("cx_col_tail", lang): round(r.tail_per_token / 1e9, 4),
                t("cx_col_a", lang): f"{r.attention_per_key:,}",
                t("cx_col_cross_on", lang): r.with_cache,
                t("cx_col_cross_off", lang): r.without_cache,
                t("cx_col_max_ctx", lang): r.max_position,
                t("cx_col_reached", lang): t("cx_yes" if r.without_cache <= r.max_position else "cx_no", lang),
            }
            for r in crossover_rows(configs)
        ]
    )


def named_configs(bundle, names: list[str], lang: str) -> dict[str, ModelConfig]:
    options = model_options(bundle)
    return {option_label(k, bundle, lang): options[k] for k in names}


def render_dominance_section(bundle, lang: str) -> None:
    llama = crossover_rows({DOC_MODEL: PRESETS[DOC_MODEL]})[0]
    st.markdown(
        t(
            "cx_doc_wrong",
            lang,
            cross_on=f"{llama.with_cache:,}",
            cross_off=f"{llama.without_cache:,}",
            ctx=f"{llama.max_position:,}",
        )
    )
    for formula in FORMULAS:
        show_formula(formula)
    st.caption(t("cx_formula_caption", lang))
    names = list(model_options(bundle))
    show_table(
        crossover_frame(named_configs(bundle, names, lang), lang),
        key=keys.CROSSOVER_TABLE,
        column_config={t("cx_col_model", lang): st.column_config.TextColumn(width="medium")},
    )
    seed({keys.CROSS_MODEL: LOADED, keys.EXP_MODELS: [LOADED, DOC_MODEL, "Llama-3-70B"]})
    pick = st.selectbox(
        t("cx_cross_pick", lang),
        names,
        format_func=lambda k: option_label(k, bundle, lang),
        key=keys.CROSS_MODEL,
        persist_state=KEEP,
    )
    st.plotly_chart(
        crossover_figure(model_options(bundle)[pick], lang, option_label(pick, bundle, lang)), key=keys.FIG_CROSS
    )
    chosen = st.multiselect(
        t("cx_exp_pick", lang),
        names,
        format_func=lambda k: option_label(k, bundle, lang),
        key=keys.EXP_MODELS,
        persist_state=KEEP,
    )
    if not chosen:
        st.info(t("cx_exp_none", lang))
        return
    st.plotly_chart(exponent_figure(named_configs(bundle, chosen, lang), lang), key=keys.FIG_EXP)
    notes = []
    for k in chosen:
        n = first_n_above(model_options(bundle)[k], 2.5)
        notes.append(
            t("cx_cubic_from", lang, model=md_literal(option_label(k, bundle, lang)), n="—" if n is None else f"{n:,}")
        )
    st.markdown("\n".join(notes))
    st.caption(t("cx_exp_caption", lang))


def worked_controls(bundle, lang: str) -> tuple[str, str, int, bool]:
    names = list(model_options(bundle))
    seed(WORKED_DEFAULTS)
    c1, c2, c3, c4 = st.columns([2, 2, 1, 1], vertical_alignment="bottom")
    key = c1.selectbox(
        t("cx_we_model", lang),
        names,
        format_func=lambda k: option_label(k, bundle, lang),
        key=keys.WE_MODEL,
        persist_state=KEEP,
    )
    prompt = c2.text_input(t("cx_we_prompt", lang), key=keys.WE_PROMPT, max_chars=20_000, persist_state=KEEP)
    max_new = whole_number_box(c3, "max_new_tokens", 1, MAX_WORKED_TOKENS, keys.WE_MAX_NEW)
    kv_cache = c4.toggle(t("cx_we_cache", lang), key=keys.WE_CACHE, persist_state=KEEP)
    return key, prompt, max_new, kv_cache


def prompt_length(bundle, key: str, prompt: str, lang: str) -> int:
    """Tokens in the prompt: the loaded tokenizer's real count, or for presets the user's pick."""
    ids = list(bundle.tokenizer(prompt).input_ids) if prompt else []
    pieces = ", ".join(quoted(piece_text(p)) for p in pieces_for(bundle.tokenizer, ids))
    st.caption(
        t(
            "cx_we_tokens",
            lang,
            prompt=md_literal(quoted(prompt)),
            n=len(ids),
            tokenizer=md_literal(bundle.name),
            pieces=md_literal(pieces) or "—",
            doc=doc_token_count(prompt),
        )
    )
    if key == LOADED:
        return len(ids)
    # The labels carry no counts: a label that changed with the prompt would reset the choice.
    counting = st.radio(
        t("cx_we_count", lang),
        ["doc", "tokenizer"],
        horizontal=True,
        key=keys.WE_COUNT,
        format_func=lambda k: t(f"cx_we_count_{k}", lang),
        persist_state=KEEP,
    )
    return doc_token_count(prompt) if counting == "doc" else len(ids)


def render_worked_section(bundle, lang: str) -> None:
    st.markdown(t("cx_we_intro", lang))
    key, prompt, max_new, kv_cache = worked_controls(bundle, lang)
    c = model_options(bundle)[key]
    with shown_errors(lang):
        rows = worked_rows(c, prompt_length(bundle, key, prompt, lang), max_new, kv_cache)
        table = shape_frame(rows, lang)
        show_table(table, key=keys.SHAPE_TABLE, height=ROW_PX * (len(table) + 1) + 3)
        st.markdown(walkthrough_md(c, rows, kv_cache, lang))
        if kv_cache and matches_document(c, rows):
            st.success(t("cx_we_matches", lang), icon=":material/check_circle:")
        elif key == DOC_MODEL:
            st.info(t("cx_we_differs", lang, n=rows[0].tokens_in, doc=DOC_TOKENS))
