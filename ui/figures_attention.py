"""Attention figures: the per-head Q, K, V and score shapes of a step drawn to scale (L x L in
prefill, 1 x L in decode: C2, C6, C10), and a heatmap of real attention probabilities."""

from __future__ import annotations

import html

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from engine.observe.trace import StepRecord
from ui.i18n import t
from ui.theme import BOUNDARY_COLOR, MATRIX_COLORS, legend_below, style, wrap_title

GAP = 8  # elements between drawn matrices
SUBPLOT_TITLE_WIDTH = 20  # columns: two panel titles side by side on a phone's 358 px chart
# px above or below its matrix: S's label a line lower than Q's and O's beside it, which a phone's
# narrow panel would otherwise run together ("Q 37×64S 37×37O 37×64")
LABEL_SHIFT = {"k": 10, "v": 10, "q": -10, "scores": -24, "out": -10}
MAX_TOKEN_LABELS = (24, 12)  # a heatmap names at most this many tokens on y, x (slanted) (every k-th past that)


def _matmul_layout(T: int, C: int, D: int) -> dict[str, tuple[float, float, float, float, str]]:
    """Rectangles (x0, y0, x1, y1, label) of one head's attention, one unit per element, y down:
    Kᵀ above the scores S = Q·Kᵀ with Q on their left; V above the output O = S·V on their right."""
    top, x_s, x_o = D + GAP, D + GAP, D + 2 * GAP + C
    return {
        "q": (0, top, D, top + T, f"Q {T}×{D}"),
        "k": (x_s, 0, x_s + C, D, f"Kᵀ {D}×{C}"),
        "scores": (x_s, top, x_s + C, top + T, f"S {T}×{C}"),
        "v": (x_o, D - C, x_o + D, D, f"V {C}×{D}"),
        "out": (x_o, top, x_o + D, top + T, f"O {T}×{D}"),
    }


def _draw(fig: go.Figure, rects: dict, col: int, lang: str) -> None:
    for name, (x0, y0, x1, y1, label) in rects.items():
        color = MATRIX_COLORS[name]
        fig.add_trace(
            go.Scatter(
                x=[x0, x1, x1, x0, x0],
                y=[y0, y0, y1, y1, y0],
                fill="toself",
                mode="lines",
                line=dict(color=color, width=2),
                fillcolor=color,
                opacity=0.55,
                name=t(f"mat_{name}", lang),
                legendgroup=name,
                showlegend=col == 1,
                hoverinfo="text",
                text=label,
            ),
            row=1,
            col=col,
        )
        above = name in ("k", "v")  # Kᵀ and V sit above their products: label them on top, the rest below
        fig.add_annotation(
            x=(x0 + x1) / 2,
            y=y0 if above else y1,
            text=label,
            showarrow=False,
            yshift=LABEL_SHIFT[name],
            font=dict(size=10),
            row=1,
            col=col,
        )


def shapes_figure(steps: list[StepRecord], step_index: int, head_dim: int, lang: str = "en") -> go.Figure:
    """Step 0 (prefill) beside `step_index`, both to the same scale."""
    chosen = [steps[0], steps[step_index]]
    titles = [
        t(
            "shapes_panel",
            lang,
            step=s.step,
            phase=t(f"phase_{s.phase}", lang),
            T=s.seqs[0].num_tokens,
            C=s.seqs[0].context_len,
        )
        for s in chosen
    ]
    titles = [wrap_title(x, SUBPLOT_TITLE_WIDTH) for x in titles]
    fig = make_subplots(rows=1, cols=2, subplot_titles=titles, horizontal_spacing=0.06)
    extents = [_matmul_layout(s.seqs[0].num_tokens, s.seqs[0].context_len, head_dim) for s in chosen]
    top = min(r[1] for rects in extents for r in rects.values())  # V rises above Kᵀ: start the ruler at 0 there
    extents = [{k: (x0, y0 - top, x1, y1 - top, label) for k, (x0, y0, x1, y1, label) in r.items()} for r in extents]
    for col, rects in enumerate(extents, start=1):
        _draw(fig, rects, col, lang)
    x_max = max(r[2] for rects in extents for r in rects.values()) + GAP
    y_max = max(r[3] for rects in extents for r in rects.values())
    # room above and under the matrices for their labels, in proportion: at L = 778 a fixed gap left
    # "S 778×778" on the axis's numbers and "V 778×64" on the panel's title
    y_min, y_max = -max(2 * GAP, 0.07 * y_max), y_max + max(2 * GAP, 0.14 * y_max)
    style(fig, t("shapes_title", lang), t("axis_elements", lang), t("axis_elements", lang), height=460)
    fig.update_annotations(font_size=12, selector=lambda a: a.text in titles)  # side by side on a phone too
    fig.update_layout(margin_t=fig.layout.margin.t + 40)  # room for them under the chart's title
    legend_below(fig, 460)  # a fixed gap under the "elements" axis title (a fraction of the plot landed on it)
    for col in (1, 2):  # equal ranges and equal aspect: both panels share one scale
        fig.update_xaxes(range=[-GAP, x_max], constrain="domain", title_text=t("axis_elements", lang), row=1, col=col)
        fig.update_yaxes(
            range=[y_max, y_min],
            scaleanchor=f"x{'' if col == 1 else col}",
            scaleratio=1,
            title_text=t("axis_elements", lang) if col == 1 else None,
            showticklabels=col == 1,  # the same scale: the right panel's numbers would sit in the left one
            row=1,
            col=col,
        )
    return fig


def attention_matrix(attention: list[dict[int, np.ndarray]], layer: int, head: int) -> np.ndarray:
    """(rows, C_max): the prefill step's T x T triangle, then one row per decode step; NaN where a
    query cannot see a key yet (the causal future)."""
    rows: list[np.ndarray] = []
    for captured in attention:
        if layer not in captured:
            continue
        probs = captured[layer][head].astype(np.float32)  # (rows, C)
        num_rows, context = probs.shape
        future = np.arange(context)[None, :] > np.arange(num_rows)[:, None] + (context - num_rows)
        rows.extend(np.where(future, np.nan, probs))  # keys a query cannot see yet: blank
    if not rows:
        return np.zeros((0, 0), dtype=np.float32)
    width = max(len(r) for r in rows)
    out = np.full((len(rows), width), np.nan, dtype=np.float32)
    for i, r in enumerate(rows):
        out[i, : len(r)] = r
    return out


def boundary_line(num_prefill_rows: int, cols: int, lang: str, **kw) -> go.Scatter:
    """The dashed line where the prefill rows end and the decode rows begin."""
    return go.Scatter(
        x=[-0.5, cols - 0.5],
        y=[num_prefill_rows - 0.5] * 2,
        mode="lines",
        hoverinfo="skip",
        line=dict(color=BOUNDARY_COLOR, width=2, dash="dash"),
        name=t("heat_boundary", lang),
        **kw,
    )


def attention_heatmap(
    matrix: np.ndarray, labels: list[str], num_prefill_rows: int, layer: int, head: int, lang: str = "en"
) -> go.Figure:
    """labels: every token of the context in order (prompt, then generated); query row i is the
    token at position i, key column j the token at position j."""
    rows, cols = matrix.shape
    safe = [html.escape(s) for s in labels]  # Plotly renders a subset of HTML in text: escape it
    ylab = [f"{i}: {safe[i]}" if i < len(safe) else str(i) for i in range(rows)]
    xlab = [f"{j}: {safe[j]}" if j < len(safe) else str(j) for j in range(cols)]
    fig = go.Figure(
        go.Heatmap(
            z=matrix,
            x=list(range(cols)),
            y=list(range(rows)),
            colorscale="Viridis",
            zmin=0,
            zmax=float(np.nanmax(matrix)) if np.isfinite(matrix).any() else 1.0,
            colorbar=dict(title=dict(text=t("axis_probability", lang))),
            name=t("heat_trace", lang),
            showlegend=True,
            customdata=np.array([[f"{ylab[i]} → {xlab[j]}" for j in range(cols)] for i in range(rows)]),
            hovertemplate="%{customdata}<br>p = %{z:.3f}<extra></extra>",
        )
    )
    if 0 < num_prefill_rows < rows:
        fig.add_trace(boundary_line(num_prefill_rows, cols, lang))
    height = max(500, min(960, 300 + 12 * rows))  # the slanted labels and legend take ~250 px: rows keep ~12 px
    style(fig, t("heat_title", lang, layer=layer, head=head), t("axis_key", lang), t("axis_query", lang))
    legend_below(fig, height, offset_px=140)  # under the slanted token labels
    fig.update_yaxes(autorange="reversed")
    ky, kx = -(-rows // MAX_TOKEN_LABELS[0]), -(-cols // MAX_TOKEN_LABELS[1])  # every k-th token named: no pile-up
    fig.update_yaxes(tickmode="array", tickvals=list(range(0, rows, ky)), ticktext=ylab[::ky])
    fig.update_xaxes(tickmode="array", tickvals=list(range(0, cols, kx)), ticktext=xlab[::kx], tickangle=-60)
    return fig
