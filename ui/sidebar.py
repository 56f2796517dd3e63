"""The shared sidebar: language, and which model (with dtype and device) every page runs on."""

from __future__ import annotations

import os
from pathlib import Path

import streamlit as st
import torch

from lab.catalogues import languages
from ui.i18n import current_lang, t
from ui.models import ModelChoice, default_model_spec
from ui.public import may_load, model_label, public_settings, settings_problem

CHOICE_KEY = "model_choice"
SPEC_KEY, DTYPE_KEY = "model_spec", "model_dtype"  # the model box and the dtype box
MODEL_BOX_LANGS = "model_box_langs"  # each model box's key: the language its labels were last drawn in
DTYPES = ["float32", "bfloat16", "float16"]
HUB_SUGGESTIONS = ["HuggingFaceTB/SmolLM2-360M-Instruct", "Qwen/Qwen2.5-0.5B-Instruct"]


def local_model_dirs() -> list[str]:
    """Folders holding a config.json under ./models or $PDLAB_MODELS_DIR (one level deep)."""
    roots = [Path("models"), Path(os.environ.get("PDLAB_MODELS_DIR", "models"))]
    found = {str(p.parent.resolve()) for root in roots if root.is_dir() for p in root.glob("*/config.json")}
    return sorted(found)


def _devices() -> list[str]:
    return ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])


def _label(spec: str, lang: str) -> str:
    """An option's label in the page's language: the bundled model and the hub suggestions say what
    they need; any other spec is shown as it is."""
    if spec == "bundled":
        return t("model_bundled_label", lang)
    if spec in HUB_SUGGESTIONS:
        return t("model_hub_label", lang, spec=spec)
    return spec


def spec_of(value: str | None, options: list[str], shown=lambda o: o) -> str | None:
    """The option a shown label stands for, in any language (a typed-in value is its own spec). The
    browser reports a typed-in box by its text, so after a language switch it may hand back the old
    language's label. shown: what an option is labelled by (a public server names a folder only)."""
    labels = {_label(shown(o), lang): o for o in options for lang in languages()}
    return labels.get(value, value)


def model_box(label: str, options: list[str], lang: str, shown=lambda o: o, **kw) -> str | None:
    """The model selectbox (sidebar and Compare), whose labels follow the language. A label of the
    other language held for this box is turned back into its option before the box is drawn, which
    sends the browser the option again in the new labels (ui/widget_state.py says why that matters)."""
    key = kw["key"]
    held, drawn_in = st.session_state.get(key), st.session_state.setdefault(MODEL_BOX_LANGS, {})
    if held is not None and (drawn_in.get(key, lang) != lang or spec_of(held, options, shown) != held):
        st.session_state[key] = spec_of(held, options, shown)
    drawn_in[key] = lang
    value = st.selectbox(label, options, format_func=lambda o: _label(shown(o), lang), **kw)
    return spec_of(value, options, shown)


def render_sidebar() -> ModelChoice:
    with st.sidebar:
        st.session_state.setdefault("lang", "en")
        names = languages()  # one per catalogue present
        st.radio(t("lang_label"), list(names), format_func=names.get, key="lang", horizontal=True)
        lang = current_lang()
        st.subheader(t("model_header", lang))
        public = public_settings()
        if public.enabled:  # the owner's list only: nothing typed, nothing that shows a server path
            default = public.models[0]
            if not may_load(st.session_state.get(SPEC_KEY)):
                st.session_state[SPEC_KEY] = default
            spec = model_box(
                t("model_label", lang),
                list(public.models),
                lang,
                shown=model_label,
                key=SPEC_KEY,
                help=t("model_help_public", lang),
            )
            if problem := settings_problem():
                st.warning(t("settings_invalid", lang, msg=problem), icon=":material/warning:")
        else:
            default = default_model_spec()
            options = list(dict.fromkeys([default, "bundled", *local_model_dirs(), *HUB_SUGGESTIONS]))
            spec = model_box(
                t("model_label", lang), options, lang, key=SPEC_KEY, accept_new_options=True, help=t("model_help", lang)
            )
            st.caption(t("model_caption", lang))
        c1, c2 = st.columns(2)
        dtype = c1.selectbox(t("dtype_label", lang), DTYPES, key=DTYPE_KEY, help=t("dtype_help", lang))
        device = c2.selectbox(t("device_label", lang), _devices(), key="model_device")
    choice = ModelChoice(spec=(spec or default).strip(), dtype=dtype, device=device)
    st.session_state[CHOICE_KEY] = choice
    return choice
