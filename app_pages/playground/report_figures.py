"""The main figures of one run, built by the same builders the playground's tabs use, by name.

The HTML report draws these; the trace round-trip test compares them on a run and on the run
reloaded from its JSON file.
"""

from __future__ import annotations

import plotly.graph_objects as go

from app_pages.playground.figures import busy_note, latency_figure, memory_figure, time_share_figure
from ui.figures_attention import attention_heatmap, attention_matrix, shapes_figure
from ui.figures_kv import kv_bytes_figure, kv_tokens_figure
from ui.run_state import RunResult
from ui.tokens import axis_labels


def heatmap_figure(result: RunResult, lang: str, layer: int | None = None, head: int = 0) -> go.Figure | None:
    """The attention heatmap of `layer` (default: the last captured) and `head`; None if none captured."""
    if not result.has_attention:
        return None
    layers = sorted({layer for captured in result.attention for layer in captured})
    layer = layers[-1] if layer is None else layer
    matrix = attention_matrix(result.attention, layer, head)
    labels = axis_labels(result.prompt + result.pieces)
    first = next(a for a in result.attention if layer in a)
    return attention_heatmap(matrix, labels, first[layer].shape[1], layer, head, lang)


def run_figures(result: RunResult, lang: str = "en") -> dict[str, go.Figure]:
    """name -> figure, in the order a reader meets them (timings, KV cache, memory, attention)."""
    m, steps = result.model, result.steps
    if not steps or not result.tokens:
        return {}
    busy = busy_note(result.load, lang)  # the timed charts carry it under their titles, as on the page
    figs = {
        "latency": latency_figure(result.tokens, result.arrival, lang, steps, busy),
        "time_share": time_share_figure(result.metrics, lang, busy),
        "kv_tokens": kv_tokens_figure(steps, result.block_size, lang),
        "kv_bytes": kv_bytes_figure(steps, result.block_size, m.num_layers, m.kv_bytes_per_token, lang),
        "memory": memory_figure(steps, result.block_size, m.kv_bytes_per_token, lang),
        "shapes": shapes_figure(steps, min(1, len(steps) - 1), m.head_dim, lang),
    }
    heat = heatmap_figure(result, lang)
    if heat is not None:
        figs["attention"] = heat
    return figs
