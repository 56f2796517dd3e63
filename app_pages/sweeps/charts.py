"""The sweep's four charts in two rows: drawn once it ends, and drawn the same way while it runs,
from the points measured so far."""

from __future__ import annotations

import streamlit as st

from app_pages.sweeps import keys
from app_pages.sweeps.figures import share_figure, tpot_output_figure, tpot_prompt_figure, ttft_figure
from lab.sweeps import SweepResult

FIGURES = (
    (ttft_figure, keys.FIG_TTFT),
    (tpot_prompt_figure, keys.FIG_TPOT),
    (tpot_output_figure, keys.FIG_TPOT_N),
    (share_figure, keys.FIG_SHARE),
)


def render_charts(result: SweepResult, lang: str, draw: int | None = None) -> None:
    """The prompt sweep's row and the output sweep's row, each once it has points. draw: the number of
    a drawing while the sweep runs (each needs its own element keys); None for the final one."""
    rows = [FIGURES[:2]] if result.prompt_points else []
    rows += [FIGURES[2:]] if result.output_points else []
    for row in rows:
        for box, (figure, key) in zip(st.columns(2), row):
            box.plotly_chart(figure(result, lang), key=key if draw is None else keys.so_far(key, draw))
