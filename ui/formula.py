"""Formulas that fit the screen they are read on."""

from __future__ import annotations

import streamlit as st


def formula_markdown(latex: str) -> str:
    """Markdown for a display formula that wraps on a narrow screen. st.latex draws one line and cuts
    it at a phone's width; here each part (split at \\qquad) is inline math in display
    style (a paragraph each), which KaTeX breaks after its = and × signs where the line does not fit."""
    parts = [part.strip() for part in latex.split(r"\qquad") if part.strip()]
    return "\n\n".join(f"$\\displaystyle {part}$" for part in parts)  # a paragraph each: room for fractions


def show_formula(latex: str, where=st) -> None:
    where.markdown(formula_markdown(latex))
