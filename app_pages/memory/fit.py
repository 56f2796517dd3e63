"""The C20 "will it fit" predictor as the page shows it: the four terms of a prefill's peak for a
model, dtype and prompt length, against GPU sizes, for eager attention, a fused kernel and
chunked prefill; the longest prompt that fits; and the formulas with their numbers filled in.

Sizes here are decimal (1 GB = 10⁹ bytes), as GPU memory is sold and as the source's "200 MB" is.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd
import plotly.graph_objects as go

from app_pages.memory.figures import TERM_COLORS
from app_pages.memory.strings import t
from engine.config import ModelConfig
from lab.memory_lab import GPU_SIZES_GB, FitReport, kv_bytes, predict_fit, score_bytes
from ui.tables import short_labels
from ui.theme import style

DTYPE_BYTES = {"float32": 4, "bfloat16": 2, "float16": 2}
TERM_KEYS = {"weights": "weights", "KV cache": "kv", "attention scores": "scores", "activations": "activations"}
GPU_COLORS = ["#16a34a", "#ca8a04", "#ea580c", "#dc2626"]
MAX_SEARCH_LEN = 10_000_000


def fmt_si(num: float) -> str:
    """200_000_000 -> '200.0 MB'. Decimal units, as GPU sizes are quoted."""
    for unit, size in (("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if abs(num) >= size:
            return f"{num / size:.1f} {unit}"
    return f"{int(num)} B"


@dataclass(frozen=True)
class FitVariant:
    key: str  # "eager", "fused" or "chunked"
    fused: bool = False
    chunk: int | None = None

    def label(self, lang: str = "en") -> str:
        return t(f"mem_fit_{self.key}", lang, chunk=self.chunk)


def fit_short(chunk: int, lang: str = "en") -> dict[str, str]:
    """The variants' short column labels (their long names are the columns' help)."""
    return short_labels(t, lang, "mem_fit_eager", "mem_fit_fused", chunk=chunk)


def fit_variants(chunk: int) -> list[FitVariant]:
    return [FitVariant("eager"), FitVariant("fused", fused=True), FitVariant("chunked", chunk=chunk)]


def predict(c: ModelConfig, L: int, dtype_bytes: int, gpu_gb: float, v: FitVariant, batch: int = 1) -> FitReport:
    return predict_fit(c, L, dtype_bytes, gpu_gb, fused=v.fused, chunk=v.chunk, batch=batch)


def term_name(term: str | None, lang: str = "en") -> str:
    return t(f"mem_term_{TERM_KEYS[term]}", lang) if term else "—"


def max_fit_length(c: ModelConfig, dtype_bytes: int, gpu_gb: float, v: FitVariant, batch: int = 1) -> int:
    """The longest prompt whose prefill fits (every term grows with L, so bisect); 0 if none does."""
    if not predict(c, 1, dtype_bytes, gpu_gb, v, batch).fits:
        return 0
    lo, hi = 1, MAX_SEARCH_LEN
    if predict(c, hi, dtype_bytes, gpu_gb, v, batch).fits:
        return hi
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if predict(c, mid, dtype_bytes, gpu_gb, v, batch).fits else (lo, mid)
    return lo


def fit_table(c: ModelConfig, L: int, dtype_bytes: int, chunk: int, batch: int = 1, lang: str = "en") -> pd.DataFrame:
    """Rows: GPU sizes; per variant, whether a prefill of L tokens fits, or the term that overflows."""
    rows = []
    for gb in GPU_SIZES_GB:
        row = {t("mem_col_gpu", lang): f"{gb} GB"}
        for v in fit_variants(chunk):
            r = predict(c, L, dtype_bytes, gb, v, batch)
            row[v.label(lang)] = (
                t("mem_fits", lang, total=fmt_si(r.total))
                if r.fits
                else t("mem_oom", lang, term=term_name(r.overflow, lang), total=fmt_si(r.total))
            )
        rows.append(row)
    return pd.DataFrame(rows)


def max_length_table(c: ModelConfig, dtype_bytes: int, chunk: int, batch: int = 1, lang: str = "en") -> pd.DataFrame:
    """Rows: GPU sizes; per variant, the longest prompt whose prefill fits."""
    return pd.DataFrame(
        [
            {
                t("mem_col_gpu", lang): f"{gb} GB",
                **{v.label(lang): max_fit_length(c, dtype_bytes, gb, v, batch) for v in fit_variants(chunk)},
            }
            for gb in GPU_SIZES_GB
        ]
    )


@dataclass(frozen=True)
class ScoreNumbers:
    """C20's numbers for one model, dtype and L: the score matrix per head and per layer, beside
    the KV cache and the weights."""

    per_head: int
    per_layer: int
    all_layers: int  # what a reader who multiplies by layers too would expect; never alive at once
    kv_cache: int
    weights: int


def score_numbers(c: ModelConfig, L: int, dtype_bytes: int, batch: int = 1) -> ScoreNumbers:
    per_layer = score_bytes(c, L, L, dtype_bytes, batch)
    return ScoreNumbers(
        per_head=score_bytes(c, L, L, dtype_bytes, batch, per_layer=False),
        per_layer=per_layer,
        all_layers=per_layer * c.num_layers,
        kv_cache=kv_bytes(c, L, dtype_bytes, batch),
        weights=c.num_params * dtype_bytes,
    )


def formulas(c: ModelConfig, L: int, dtype_bytes: int, batch: int = 1) -> dict[str, str]:
    """The formula of each number, with this model's values filled in (shown beside them)."""
    return {
        "per_head": f"batch × Lq × Lk × bytes = {batch} × {L:,} × {L:,} × {dtype_bytes}",
        "per_layer": f"batch × heads × Lq × Lk × bytes = {batch} × {c.num_heads} × {L:,} × {L:,} × {dtype_bytes}",
        "kv_cache": (
            f"2 × layers × kv_heads × head_dim × L × bytes = 2 × {c.num_layers} × {c.num_kv_heads} × "
            f"{c.head_dim} × {L:,} × {dtype_bytes}" + (f" × {batch}" if batch > 1 else "")
        ),
        "weights": f"parameters × bytes = {c.num_params:,} × {dtype_bytes}",
        "activations": (
            f"batch × Lq × (4·hidden + q + 2·kv + 4·ffn) × bytes = {batch} × Lq × (4·{c.hidden_size} + "
            f"{c.q_size} + 2·{c.kv_size} + 4·{c.ffn_size}) × {dtype_bytes}"
        ),
    }


def fit_figure(c: ModelConfig, L: int, dtype_bytes: int, chunk: int, batch: int = 1, lang: str = "en") -> go.Figure:
    """One stacked bar per variant (weights, KV cache, scores, activations, in GB) against the
    GPU sizes as vertical lines: where the bar crosses a line, that term overflows."""
    variants = fit_variants(chunk)
    reports = [predict(c, L, dtype_bytes, GPU_SIZES_GB[0], v, batch) for v in variants]
    ys = list(range(len(variants)))  # numeric rows, so the GPU lines can span them
    fig = go.Figure()
    for key, attr in (("weights", "weights"), ("kv", "kv_cache"), ("scores", "scores"), ("activations", "activations")):
        name = t(f"mem_term_{key}", lang)
        fig.add_trace(
            go.Bar(
                x=[getattr(r, attr) / 1e9 for r in reports],
                y=ys,
                orientation="h",
                name=name,
                width=0.55,
                marker_color=TERM_COLORS[key],
                customdata=[v.label(lang) for v in variants],
                hovertemplate="%{customdata}: %{x:.2f} GB<extra>" + name + "</extra>",
            )
        )
    for gb, color in zip(GPU_SIZES_GB, GPU_COLORS):
        fig.add_trace(
            go.Scatter(
                x=[gb, gb],
                y=[-0.5, len(ys) - 0.5],
                mode="lines",
                name=f"GPU {gb} GB",
                line=dict(color=color, dash="dash", width=2),
            )
        )
    style(
        fig,
        t("mem_fig_fit", lang, model=c.name, L=f"{L:,}", bytes=dtype_bytes),
        t("mem_axis_gb", lang),
        t("mem_axis_variant", lang),
        height=400,
    )
    fig.update_layout(barmode="stack", legend=dict(y=-0.3, traceorder="normal"))
    # Each variant's name above its bar, not as a tick label beside it: on a phone the tick labels took
    # most of the width and squeezed the bars into a sliver
    fig.update_yaxes(tickvals=ys, showticklabels=False, range=[len(ys) - 0.5, -0.5])
    for y, v in zip(ys, variants):
        fig.add_annotation(
            x=0,
            xref="paper",
            y=y - 0.3,
            yref="y",
            text=v.label(lang),
            showarrow=False,
            xanchor="left",
            yanchor="bottom",
            font=dict(size=12),
        )
    return fig
