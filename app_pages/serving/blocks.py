"""The KV block pool of a run (C17): who owns which physical block after every step, how much of
the reserved memory holds tokens (paged blocks against contiguous preallocation), and how many
prompt tokens the prefix cache served. Pure: records in, numbers and go.Figures out."""

from __future__ import annotations

import colorsys
from dataclasses import dataclass

import plotly.graph_objects as go

from app_pages.serving.run import PolicyRun
from app_pages.serving.strings import t
from app_pages.serving.timeline import ordered_requests, row_names
from engine.observe.trace import Trace
from ui.text import html_text
from ui.theme import EXTRA_COLORS, PHASE_COLORS, legend_below, style

FREE_COLOR, SHARED_COLOR = "#f1f5f9", "#111827"
MAX_COLUMNS = 300  # steps drawn in the pool chart; longer runs are sampled evenly (first and last kept)
MAX_HOVER_CELLS = 60_000  # per-cell hover names only while the chart stays light


def owner_colors(n: int) -> list[str]:
    """n distinct mid-tone colours (golden-ratio hues): never as light as free or as dark as shared."""
    out = []
    for i in range(n):
        r, g, b = colorsys.hls_to_rgb((0.61803398875 * i) % 1.0, 0.55, 0.65)
        out.append(f"#{int(r * 255):02x}{int(g * 255):02x}{int(b * 255):02x}")
    return out


def sampled_steps(num_steps: int, max_columns: int = MAX_COLUMNS) -> list[int]:
    if num_steps <= max_columns:
        return list(range(num_steps))
    return sorted({round(i * (num_steps - 1) / (max_columns - 1)) for i in range(max_columns)})


@dataclass
class OwnerGrid:
    steps: list[int]  # step numbers, one per column
    owners: list[int]  # seq ids, arrival order; owner k is drawn as value k + 1
    z: list[list[int]]  # [block][column]: 0 free, k + 1 owned by owners[k], len(owners) + 1 shared
    num_rows: int  # blocks drawn: up to the highest block id ever used


def owner_grid(trace: Trace, max_columns: int = MAX_COLUMNS) -> OwnerGrid:
    owners = [r.seq_id for r in ordered_requests(trace)]
    index = {sid: k + 1 for k, sid in enumerate(owners)}
    shared = len(owners) + 1
    columns = [trace.steps[i] for i in sampled_steps(len(trace.steps), max_columns)]
    used = [b for s in trace.steps for table in s.block_tables.values() for b in table]
    num_rows = max(used) + 1 if used else 1
    z = [[0] * len(columns) for _ in range(num_rows)]
    for c, step in enumerate(columns):
        for sid, table in step.block_tables.items():
            for b in table:
                z[b][c] = shared if z[b][c] else index.get(sid, shared)  # a second owner: a shared prefix block
    return OwnerGrid([s.step for s in columns], owners, z, num_rows)


def pool_figure(run: PolicyRun, title: str, lang: str = "en") -> go.Figure:
    """The physical blocks (rows) after every step (columns), coloured by the request that owns them."""
    grid = owner_grid(run.trace)
    names = row_names(run.trace, run.labels)
    colors = [FREE_COLOR] + owner_colors(len(grid.owners)) + [SHARED_COLOR]
    m = len(colors)
    scale = [[pos, c] for k, c in enumerate(colors) for pos in (k / m, (k + 1) / m)]  # one flat band per value
    legend_names = (
        [t("sv_block_free", lang)] + [html_text(names[sid]) for sid in grid.owners] + [t("sv_block_shared", lang)]
    )
    text = None
    if grid.num_rows * len(grid.steps) <= MAX_HOVER_CELLS:
        text = [[legend_names[v] for v in row] for row in grid.z]
    fig = go.Figure(
        go.Heatmap(
            z=grid.z,
            x=grid.steps,
            y=list(range(grid.num_rows)),
            colorscale=scale,
            zmin=-0.5,
            zmax=m - 0.5,
            showscale=False,
            text=text,
            name=t("sv_blocks_trace", lang),
            hovertemplate=t("sv_hover_block", lang, block="%{y}", step="%{x}", owner="%{text}" if text else "?")
            + "<extra></extra>",
        )
    )
    shown = [0] + [k + 1 for k in range(len(grid.owners))] + ([m - 1] if any(m - 1 in r for r in grid.z) else [])
    for k in shown:  # a heatmap has no legend of its own: one square marker per colour
        fig.add_trace(
            go.Scatter(
                x=[None],
                y=[None],
                mode="markers",
                name=legend_names[k],
                marker=dict(symbol="square", size=12, color=colors[k], line=dict(width=1, color="#94a3b8")),
            )
        )
    style(fig, title, t("axis_step", lang), t("sv_axis_block", lang))
    legend_below(fig, max(360, min(900, 200 + 3 * grid.num_rows)), rows=1 + len(shown) // 7)
    fig.update_yaxes(range=[-0.5, grid.num_rows - 0.5])
    return fig


@dataclass
class WastePoint:
    step: int
    stored: int  # KV slots holding tokens (a shared block counted once)
    paged: int  # slots in the blocks held: paging wastes at most one partly filled block per request
    contiguous: int  # each running request reserving prompt + max_new_tokens slots up front
    contiguous_max: int  # each running request reserving the model's whole context


def waste_series(run: PolicyRun) -> list[WastePoint]:
    full_len = {r.seq_id: len(r.prompt_token_ids) + len(r.output_token_ids) for r in run.trace.requests}
    return [
        WastePoint(
            s.step,
            s.kv_tokens,
            s.kv_blocks * run.block_size,
            sum(full_len.get(sid, 0) for sid in s.block_tables),
            len(s.block_tables) * run.context_len,
        )
        for s in run.trace.steps
    ]


def waste_share(points: list[WastePoint], reserved: str) -> float:
    """Share of reserved slots (summed over the steps) that held no token: 1 - stored / reserved."""
    total = sum(getattr(p, reserved) for p in points)
    return 1.0 - sum(p.stored for p in points) / total if total else 0.0


def waste_figure(run: PolicyRun, lang: str = "en") -> go.Figure:
    points = waste_series(run)
    x = [p.step for p in points]
    fig = go.Figure()
    for attr, color, dash in (
        ("contiguous_max", "#dc2626", "dot"),
        ("contiguous", EXTRA_COLORS["blocks"], "dash"),
        ("paged", PHASE_COLORS["prefill"], "solid"),
        ("stored", EXTRA_COLORS["kv"], "solid"),
    ):
        fig.add_trace(
            go.Scatter(
                x=x,
                y=[getattr(p, attr) for p in points],
                mode="lines",
                line_shape="hv",
                name=t(f"sv_waste_{attr}", lang, ctx=run.context_len),
                line=dict(color=color, dash=dash, width=3 if attr == "stored" else 2),
                visible="legendonly" if attr == "contiguous_max" else True,
            )
        )
    style(fig, t("sv_waste_title", lang), t("axis_step", lang), t("sv_axis_slots", lang))
    legend_below(fig, 400)
    fig.update_yaxes(rangemode="tozero")
    return fig


def prefix_figure(run: PolicyRun, lang: str = "en") -> go.Figure:
    """Prompt tokens computed by prefill against those the prefix cache served, cumulative."""
    x, computed, total = [], [], 0
    for s in run.trace.steps:
        total += sum(q.num_tokens for q in s.seqs if q.phase == "prefill")
        x.append(s.step)
        computed.append(total)
    fig = go.Figure()
    fig.add_trace(
        go.Scatter(
            x=x,
            y=computed,
            mode="lines",
            line_shape="hv",
            name=t("sv_prefix_computed", lang),
            line=dict(color=PHASE_COLORS["prefill"]),
        )
    )
    fig.add_trace(
        go.Scatter(
            x=x,
            y=[s.prefix_hit_tokens for s in run.trace.steps],
            mode="lines",
            line_shape="hv",
            name=t("sv_prefix_hits", lang),
            line=dict(color=PHASE_COLORS["decode"], width=3),
        )
    )
    style(fig, t("sv_prefix_title", lang), t("axis_step", lang), t("sv_axis_prompt_tokens", lang))
    fig.update_yaxes(rangemode="tozero")
    return fig
