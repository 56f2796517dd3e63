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
