"""Small shared widgets: the page CSS, the one-line model summary, the sampling controls, a whole-number box."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Literal

import streamlit as st

from engine.loader.model_loader import from_4_bit_weights
from ui.i18n import t
from ui.run_state import ModelInfo
from ui.text import md_literal
from ui.theme import fmt_bytes
from ui.widget_state import KEEP

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


def model_summary(info: ModelInfo, lang: str, *, markdown: bool = True) -> str:
    """The model in one line: its shape, size, dtype and device, and where the bundled weights come from.
    markdown False: plain text, for a page that escapes it itself (the downloadable report's HTML)."""
    text = t(
        "model_summary",
        lang,
        name=md_literal(info.name) if markdown else info.name,
        layers=info.num_layers,
        hidden=info.hidden_size,
        heads=info.num_heads,
        kv_heads=info.num_kv_heads,
        head_dim=info.head_dim,
        params=info.num_params / 1e6,
        weights=fmt_bytes(info.weight_bytes),
        dtype=info.dtype,
        device=info.device,
        ctx=info.max_position,
    ) + (t("model_bundled_provenance", lang) if from_4_bit_weights(info.source, info.name) else "")
    return text if markdown else text.replace("**", "")


def sampling_label(temperature, top_k, top_p, seed, lang: str) -> str:
    """The sampling expander's title: what is active now, so a closed panel does not hide a temperature."""
    if not temperature:
        return t("sampling_greedy", lang)
    parts = [t("sampling_temperature", lang, v=float(temperature))]
    if whole_number(top_k):
        parts.append(f"top-k {whole_number(top_k)}")
    if top_p is not None and top_p < 1:
        parts.append(f"top-p {float(top_p):g}")
    if seed is not None:
        parts.append(t("sampling_seed", lang, v=whole_number(seed)))
    return t("sampling_active", lang, what=", ".join(parts))


def sampling_controls(keys: tuple[str, str, str, str], lang: str, side_by_side: bool = False) -> None:
    """The sampling expander, titled with what is active: temperature, top-k, top-p and seed boxes under
    these widget keys (in that order); side_by_side: in four columns, else one under another."""
    temperature, top_k, top_p, seed = keys
    s = st.session_state
    with st.expander(sampling_label(s.get(temperature), s.get(top_k), s.get(top_p), s.get(seed), lang)):
        c1, c2, c3, c4 = st.columns(4) if side_by_side else (st, st, st, st)
        c1.number_input(
            t("temperature", lang),
            min_value=0.0,
            max_value=5.0,
            step=0.1,
            key=temperature,
            help=t("temperature_help", lang),
            persist_state=KEEP,
        )
        whole_number_box(c2, t("top_k", lang), 0, 100_000, top_k, help=t("top_k_help", lang))
        c3.number_input(
            t("top_p", lang),
            min_value=0.01,
            max_value=1.0,
            step=0.05,
            key=top_p,
            help=t("top_p_help", lang),
            persist_state=KEEP,
        )
        # No maximum; empty is no seed (value=None: the box can be emptied again once a seed is typed)
        whole_number_box(c4, t("seed", lang), 0, None, seed, value=None, placeholder=t("seed_placeholder", lang))


def whole_number(value: float | int | None) -> int | None:
    """What a whole_number_box holds, as the run uses it (rounded as the box shows it); an empty box's
    None stays None."""
    return None if value is None else int(value + 0.5)


def whole_number_box(
    container,
    label: str,
    lo: int,
    hi: int | None,
    key: str,
    *,
    step: int = 1,
    value: int | None | Literal["min"] = "min",
    **kw,
) -> int | None:
    """A number box for a count that reads "1e3" as 1000. Streamlit's browser side reads what is typed
    into a whole-number box with parseInt ("1e3" becomes 1) and into a float box with parseFloat, so
    this is a float box shown without decimals, rounded back to a whole number.

    hi None: no maximum. value: the first value, as st.number_input takes it; None: the box may be
    empty (an empty box gives None, and one emptied after a number was typed gives None again, where
    the default "min" would give the minimum). Other keywords (help, placeholder, disabled,
    on_change...) go to st.number_input as they are."""
    if value not in ("min", None):
        value = float(value)  # one numeric type for value, bounds and step, or Streamlit refuses them
    value = container.number_input(
        label,
        min_value=float(lo),
        max_value=None if hi is None else float(hi),
        value=value,
        step=float(step),
        format="%.0f",
        key=key,
        persist_state=KEEP,
        **kw,
    )
    return whole_number(value)
