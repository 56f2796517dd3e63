"""The shared sidebar: language, and which model (with dtype and device) every page runs on."""
from __future__ import annotations

import os
from pathlib import Path

import streamlit as st
import torch

from ui.i18n import LANGS, current_lang, t
from ui.models import ModelChoice, default_model_spec
from ui.public import model_label, public_settings, settings_problem

CHOICE_KEY = "model_choice"
SPEC_KEY, DTYPE_KEY = "model_spec", "model_dtype"  # the model box and the dtype box
DTYPES = ["float32", "bfloat16", "float16"]
HUB_SUGGESTIONS = ["HuggingFaceTB/SmolLM2-360M-Instruct", "Qwen/Qwen2.5-0.5B-Instruct"]


def local_model_dirs() -> list[str]:
    """Folders holding a config.json under ./models or $PDLAB_MODELS_DIR (one level deep)."""
    roots = [Path("models"), Path(os.environ.get("PDLAB_MODELS_DIR", "models"))]
    found = {str(p.parent.resolve()) for root in roots if root.is_dir() for p in root.glob("*/config.json")}
    return sorted(found)


def _devices() -> list[str]:
    return ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])


def _label(spec: str) -> str:
    """One label in every language: the widget matches the shown label back to its option, so a
    label that changed with the language would come back as a new, unknown model."""
    if spec == "bundled":
        return "SmolLM2-135M-Instruct (bundled, offline)"
    if spec in HUB_SUGGESTIONS:
        return f"{spec} (hub, online only)"
    return spec


def _spec_of(value: str | None, options: list[str]) -> str | None:
    """The option a shown label stands for (a typed-in value is its own spec)."""
    labels = {_label(o): o for o in options}
    return labels.get(value, value)


def render_sidebar() -> ModelChoice:
    with st.sidebar:
        st.session_state.setdefault("lang", "en")
        st.radio(t("lang_label"), list(LANGS), format_func=LANGS.get, key="lang", horizontal=True)
        lang = current_lang()
        st.subheader(t("model_header", lang))
        public = public_settings()
        if public.enabled:  # the owner's list only: nothing typed, nothing that shows a server path
            default = public.models[0]
            if st.session_state.get(SPEC_KEY) not in public.models:
                st.session_state[SPEC_KEY] = default
            spec = st.selectbox(t("model_label", lang), list(public.models), key=SPEC_KEY,
                                format_func=lambda o: _label(model_label(o)),
                                help=t("model_help_public", lang))
            if problem := settings_problem():
                st.warning(t("settings_invalid", lang, msg=problem), icon=":material/warning:")
        else:
            default = default_model_spec()
            options = list(dict.fromkeys([default, "bundled", *local_model_dirs(), *HUB_SUGGESTIONS]))
            spec = st.selectbox(t("model_label", lang), options, key=SPEC_KEY, accept_new_options=True,
                                format_func=_label, help=t("model_help", lang))
            spec = _spec_of(spec, options)
            st.caption(t("model_caption", lang))
        c1, c2 = st.columns(2)
        dtype = c1.selectbox(t("dtype_label", lang), DTYPES, key=DTYPE_KEY, help=t("dtype_help", lang))
        device = c2.selectbox(t("device_label", lang), _devices(), key="model_device")
    choice = ModelChoice(spec=(spec or default).strip(), dtype=dtype, device=device)
    st.session_state[CHOICE_KEY] = choice
    return choice
