"""KV cache figures: tokens, K/V rows computed and blocks per step; bytes in total and per layer.

Counted *during* each step (after its K and V were written, before a finished request frees its
blocks), so the last step shows the cache at its largest rather than already released.
"""

from __future__ import annotations

from dataclasses import dataclass

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from engine.observe.trace import StepRecord
from ui.i18n import t
from ui.theme import EXTRA_COLORS, KIB, MIB, PHASE_COLORS, style


@dataclass
class KVStep:
    step: int
    phase: str
    cached_tokens: int  # tokens whose K, V sit in the cache (0 with the cache off)
    computed_rows: int  # K, V rows computed this step: T with the cache, the whole context without
    blocks: int  # blocks holding the cached tokens


def kv_steps(steps: list[StepRecord], block_size: int) -> list[KVStep]:
    out = []
    for s in steps:
        cached = sum(q.context_len for q in s.seqs if not q.recompute)
        blocks = sum(-(-q.context_len // block_size) for q in s.seqs if not q.recompute)
        out.append(KVStep(s.step, s.phase, cached, s.num_tokens, blocks))
    return out


def _phase_bars(fig: go.Figure, rows: list[KVStep], y: list[float], lang: str, **kw) -> None:
    """One bar trace per phase, so the legend says which colour is which."""
    for phase in ("prefill", "decode", "mixed"):
        idx = [i for i, r in enumerate(rows) if r.phase == phase]
        if idx:
            fig.add_trace(
                go.Bar(
                    x=[rows[i].step for i in idx],
                    y=[y[i] for i in idx],
                    name=t(f"phase_{phase}", lang),
                    marker_color=PHASE_COLORS[phase],
                ),
                **kw,
            )


def kv_tokens_figure(steps: list[StepRecord], block_size: int, lang: str = "en") -> go.Figure:
    rows = kv_steps(steps, block_size)
    fig = make_subplots(specs=[[{"secondary_y": True}]])
    _phase_bars(fig, rows, [r.cached_tokens for r in rows], lang, secondary_y=False)
    fig.add_trace(
        go.Scatter(
            x=[r.step for r in rows],
            y=[r.computed_rows for r in rows],
            mode="lines+markers",
            name=t("kv_computed_rows", lang),
            line=dict(color=EXTRA_COLORS["line"], dash="dot"),
        ),
        secondary_y=False,
    )
    fig.add_trace(
        go.Scatter(
            x=[r.step for r in rows],
            y=[r.blocks for r in rows],
            mode="lines+markers",
            name=t("kv_blocks", lang, size=block_size),
            line=dict(color=EXTRA_COLORS["blocks"]),
            line_shape="hv",
        ),
        secondary_y=True,
    )
    style(fig, t("kv_tokens_title", lang), t("axis_step", lang), t("axis_tokens", lang))
    max_blocks = max((r.blocks for r in rows), default=1)
    fig.update_yaxes(
        title_text=t("axis_blocks", lang),
        secondary_y=True,
        rangemode="tozero",
        showgrid=False,
        tick0=0,
        dtick=max(1, -(-max_blocks // 5)),
    )  # whole blocks only
    fig.update_yaxes(rangemode="tozero", secondary_y=False)
    return fig


def kv_bytes_figure(
    steps: list[StepRecord], block_size: int, num_layers: int, bytes_per_token: int, lang: str = "en"
) -> go.Figure:
    """Total KV bytes per step (MiB) on one axis; each point's hover gives one layer's share (KiB). The
    two are one curve scaled by the layer count, so a second axis would only draw it twice."""
    rows = kv_steps(steps, block_size)
    total = [r.cached_tokens * bytes_per_token for r in rows]
    fig = go.Figure(
        go.Scatter(
            x=[r.step for r in rows],
            y=[b / MIB for b in total],
            customdata=[b / num_layers / KIB for b in total],
            hovertemplate=t("kv_bytes_hover", lang),
            mode="lines+markers",
            name=t("kv_total", lang),
            line=dict(color=EXTRA_COLORS["kv"], width=3),
        )
    )
    style(fig, t("kv_bytes_title", lang, layers=num_layers), t("axis_step", lang), t("axis_mib", lang))
    fig.update_yaxes(rangemode="tozero")
    return fig


def kv_formula(
    num_layers: int, num_kv_heads: int, head_dim: int, tokens: int, elem_bytes: int, lang: str = "en"
) -> str:
    """The KV size formula with this model's numbers filled in, as LaTeX, its subscripts in `lang`."""
    total = 2 * num_layers * num_kv_heads * head_dim * tokens * elem_bytes
    names = [t(f"kvf_{n}", lang).replace("_", r"\_") for n in ("layers", "kv_heads", "head_dim", "tokens", "bytes")]
    return (
        rf"2 \times {num_layers}_{{\text{{{names[0]}}}}} \times {num_kv_heads}_{{\text{{{names[1]}}}}} "
        rf"\times {head_dim}_{{\text{{{names[2]}}}}} \times {tokens}_{{\text{{{names[3]}}}}} "
        rf"\times {elem_bytes}_{{\text{{{names[4]}}}}} = {total:,}\ \text{{B}}"
    ).replace(",", "{,}")
