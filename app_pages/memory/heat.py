"""Attention heatmaps for the memory lab: one head, the mean over heads, or every layer side by
side, from the probabilities the eager backend captured; and the same matrices as PNG (numpy +
Pillow: no browser needed) and CSV downloads.

Matrices follow ui.figures_attention.attention_matrix: the prefill step's T x T triangle, then one
row per decode step, NaN where a query cannot see a key (the causal future).
"""

from __future__ import annotations

import io
import math

import numpy as np
import pandas as pd
import plotly.colors
import plotly.graph_objects as go
from PIL import Image
from plotly.subplots import make_subplots

from app_pages.memory.strings import t
from engine.errors import LabError
from ui.figures_attention import attention_heatmap, attention_matrix, boundary_line
from ui.theme import legend_below, style

MODES = ("head", "mean", "layers")
GRID_COLS = 6
NAN_RGB = (255, 255, 255)


def mean_matrix(attention: list[dict[int, np.ndarray]], layer: int, num_heads: int) -> np.ndarray:
    """The mean over heads: NaN cells (the future) are the same in every head, so a plain mean keeps them."""
    heads = [attention_matrix(attention, layer, h) for h in range(num_heads)]
    return np.mean(np.stack(heads), axis=0) if heads else np.zeros((0, 0), dtype=np.float32)


def layer_matrices(attention: list[dict[int, np.ndarray]], num_heads: int) -> dict[int, np.ndarray]:
    """Mean over heads for every captured layer."""
    layers = sorted({layer for captured in attention for layer in captured})
    return {layer: mean_matrix(attention, layer, num_heads) for layer in layers}


def tile(matrices: list[np.ndarray], cols: int = GRID_COLS, gap: int = 1) -> np.ndarray:
    """Matrices of one shape laid out in a grid, NaN between them (for one PNG of every layer)."""
    if not matrices:
        return np.zeros((0, 0), dtype=np.float32)
    h, w = matrices[0].shape
    cols = min(cols, len(matrices))
    rows = math.ceil(len(matrices) / cols)
    out = np.full((rows * (h + gap) - gap, cols * (w + gap) - gap), np.nan, dtype=np.float32)
    for i, m in enumerate(matrices):
        r, c = divmod(i, cols)
        out[r * (h + gap) : r * (h + gap) + h, c * (w + gap) : c * (w + gap) + w] = m
    return out


def _viridis(values: np.ndarray) -> np.ndarray:
    """values in [0, 1] -> (..., 3) uint8, interpolating Plotly's Viridis stops (as the chart shows)."""
    stops = np.array([plotly.colors.hex_to_rgb(c) for c in plotly.colors.sequential.Viridis], dtype=np.float32)
    pos = np.clip(values, 0, 1) * (len(stops) - 1)
    lo = np.floor(pos).astype(int).clip(0, len(stops) - 2)
    frac = (pos - lo)[..., None]
    return (stops[lo] * (1 - frac) + stops[lo + 1] * frac).round().astype(np.uint8)


def png_bytes(matrix: np.ndarray, max_px: int = 1600) -> bytes:
    """The matrix as a PNG: Viridis from 0 to its maximum, white where NaN, each cell a square of
    pixels (as large as fits in max_px)."""
    if matrix.size == 0:
        raise LabError("There is no attention matrix to save.")
    finite = np.isfinite(matrix)
    top = float(matrix[finite].max()) if finite.any() else 1.0
    rgb = _viridis(np.where(finite, matrix, 0) / (top or 1.0))
    rgb[~finite] = NAN_RGB
    cell = max(1, min(32, max_px // max(matrix.shape)))
    image = Image.fromarray(rgb)
    image = image.resize((matrix.shape[1] * cell, matrix.shape[0] * cell), Image.Resampling.NEAREST)
    buf = io.BytesIO()
    image.save(buf, format="PNG")
    return buf.getvalue()


def _axis_labels(labels: list[str], n: int) -> list[str]:
    return [f"{i}: {labels[i]}" if i < len(labels) else str(i) for i in range(n)]


def csv_text(matrix: np.ndarray, labels: list[str]) -> str:
    """Rows are queries, columns keys, both named 'position: token'; empty cells are the future."""
    rows, cols = matrix.shape
    frame = pd.DataFrame(matrix, index=_axis_labels(labels, rows), columns=_axis_labels(labels, cols))
    return frame.to_csv(index_label="query \\ key", float_format="%.6g")


def layers_csv(matrices: dict[int, np.ndarray], labels: list[str]) -> str:
    """Every layer's mean matrix in long form: layer, query, key, their tokens, probability."""
    parts = []
    for layer, m in matrices.items():
        q, k = np.nonzero(np.isfinite(m))
        parts.append(pd.DataFrame({"layer": layer, "query": q, "key": k, "probability": m[q, k]}))
    frame = (
        pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=["layer", "query", "key", "probability"])
    )
    token = dict(enumerate(labels))
    frame.insert(2, "query_token", frame["query"].map(token))
    frame.insert(4, "key_token", frame["key"].map(token))
    return frame.to_csv(index=False, float_format="%.6g")


def mean_heatmap(
    matrix: np.ndarray, labels: list[str], num_prefill_rows: int, layer: int, num_heads: int, lang: str = "en"
) -> go.Figure:
    """The single-head heatmap's layout, for the mean over heads."""
    fig = attention_heatmap(matrix, labels, num_prefill_rows, layer, 0, lang)
    fig.update_layout(title_text=t("mem_heat_mean_title", lang, layer=layer, heads=num_heads))
    fig.update_traces(name=t("mem_heat_mean_trace", lang), selector=dict(type="heatmap"))
    return fig


def layers_figure(matrices: dict[int, np.ndarray], lang: str = "en", num_prefill_rows: int = 0) -> go.Figure:
    """Small multiples: the mean over heads of every captured layer, one colour scale; each tile with
    the line where the prefill rows end, as on the single heatmap."""
    layers = list(matrices)
    cols = min(GRID_COLS, max(1, len(layers)))
    rows = max(1, math.ceil(len(layers) / cols))
    fig = make_subplots(
        rows=rows,
        cols=cols,
        subplot_titles=[t("mem_heat_layer_n", lang, layer=n) for n in layers],
        horizontal_spacing=0.03,
        vertical_spacing=0.3 / rows + 0.02,
    )
    top = max((float(np.nanmax(m)) for m in matrices.values() if np.isfinite(m).any()), default=1.0)
    for i, (layer, m) in enumerate(matrices.items()):
        r, c = divmod(i, cols)
        fig.add_trace(
            go.Heatmap(
                z=m,
                coloraxis="coloraxis",
                name=t("mem_heat_mean_trace", lang),
                showlegend=i == 0,
                hovertemplate=t("mem_heat_grid_hover", lang, layer=layer) + "<extra></extra>",
            ),
            row=r + 1,
            col=c + 1,
        )
        if 0 < num_prefill_rows < m.shape[0]:
            fig.add_trace(
                boundary_line(num_prefill_rows, m.shape[1], lang, legendgroup="boundary", showlegend=i == 0),
                row=r + 1,
                col=c + 1,
            )
    style(fig, t("mem_heat_layers_title", lang, n=len(layers)), "", "")
    legend_below(fig, 80 + 170 * rows)
    fig.update_layout(
        coloraxis=dict(
            colorscale="Viridis", cmin=0, cmax=top, colorbar=dict(title=dict(text=t("axis_probability", lang)))
        )
    )
    fig.update_yaxes(autorange="reversed", showticklabels=False, showgrid=False)
    fig.update_xaxes(showticklabels=False, showgrid=False)
    fig.update_xaxes(title_text=t("mem_axis_key_pos", lang), row=rows, col=1)
    fig.update_yaxes(title_text=t("mem_axis_query_pos", lang), row=rows, col=1)
    return fig
