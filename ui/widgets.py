"""Small shared widgets: the page CSS and the one-line model summary."""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import streamlit as st

from ui.i18n import t
from ui.run_state import ModelInfo
from ui.text import md_literal
from ui.theme import fmt_bytes

CSS_PATH = Path(__file__).resolve().parent.parent / "assets" / "style.css"
# Every uploader takes a trace file, a few MB at most; the browser refuses a bigger one at once, before
# sending it. The same number is server.maxUploadSize in .streamlit/config.toml.
UPLOAD_MAX_MB = 16


@lru_cache(maxsize=1)
def _css() -> str:
    return CSS_PATH.read_text(encoding="utf-8")


def inject_css() -> None:
    """The chip styles, once per page run (a style-only st.html takes no space)."""
    st.html(f"<style>{_css()}</style>")


def model_summary(info: ModelInfo, lang: str) -> str:
    return t("model_summary", lang, name=md_literal(info.name), layers=info.num_layers, hidden=info.hidden_size,
             heads=info.num_heads, kv_heads=info.num_kv_heads, head_dim=info.head_dim,
             params=info.num_params / 1e6, weights=fmt_bytes(info.weight_bytes), dtype=info.dtype,
             device=info.device, ctx=info.max_position)


def sampling_label(temperature, top_k, top_p, seed, lang: str) -> str:
    """The sampling expander's title: what is active now, so a closed panel does not hide a temperature."""
    if not temperature:
        return t("sampling_greedy", lang)
    parts = [t("sampling_temperature", lang, v=float(temperature))]
    if top_k:
        parts.append(f"top-k {int(top_k)}")
    if top_p is not None and top_p < 1:
        parts.append(f"top-p {float(top_p):g}")
    if seed is not None:
        parts.append(t("sampling_seed", lang, v=int(seed)))
    return t("sampling_active", lang, what=", ".join(parts))
