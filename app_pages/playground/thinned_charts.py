"""Long runs (a loaded trace can hold 16,384 steps) drawn at a bounded cost: each chart trace keeps
at most MAX_POINTS evenly spaced points, the first and last always (the prefill step is the first),
and the step table shows a page of TABLE_ROWS rows. The page says so; the downloads hold everything."""

from __future__ import annotations

import plotly.graph_objects as go
import streamlit as st

from app_pages.playground.strings import t

MAX_POINTS = 2_000  # a browser draws a few thousand bars at once without stalling
TABLE_ROWS = 1_000
_ARRAYS = ("x", "y", "text", "customdata", "hovertext")


def thin_indices(n: int, keep: int = MAX_POINTS) -> list[int]:
    """`keep` evenly spaced indices of range(n), 0 and n - 1 among them (all of them if n <= keep)."""
    if n <= keep:
        return list(range(n))
    return sorted({round(i * (n - 1) / (keep - 1)) for i in range(keep)})


def thin_figure(fig: go.Figure, keep: int = MAX_POINTS) -> int:
    """Thin every trace longer than `keep` in place; the longest trace's length if any was thinned, else 0."""
    longest = 0
    for trace in fig.data:
        n = len(trace.x) if getattr(trace, "x", None) is not None else 0
        if n <= keep:
            continue
        longest = max(longest, n)
        chosen = thin_indices(n, keep)
        for name in _ARRAYS:
            values = getattr(trace, name, None)
            if values is not None and not isinstance(values, str) and len(values) == n:
                trace[name] = [values[i] for i in chosen]
        color = trace.marker.color if hasattr(trace, "marker") else None
        if color is not None and not isinstance(color, str) and len(color) == n:
            trace.marker.color = [color[i] for i in chosen]
    return longest


def plot(fig: go.Figure, key: str, lang: str, container=st) -> None:
    """st.plotly_chart of the thinned figure, with a caption when it was thinned."""
    total = thin_figure(fig)
    container.plotly_chart(fig, key=key)
    if total:
        container.caption(t("thinned_chart", lang, shown=MAX_POINTS, total=total))
