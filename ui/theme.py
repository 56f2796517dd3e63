"""Colours and one shared Plotly layout, so every chart in the app reads the same way."""

from __future__ import annotations

import re

import numpy as np
import plotly.graph_objects as go

PHASE_COLORS = {"prefill": "#7c3aed", "decode": "#0d9488", "mixed": "#d97706", "pending": "#94a3b8"}
MATRIX_COLORS = {"q": "#2563eb", "k": "#ea580c", "scores": "#7c3aed", "v": "#16a34a", "out": "#0891b2"}
EXTRA_COLORS = {"line": "#334155", "blocks": "#ea580c", "kv": "#2563eb"}
FAILED_COLOR = "#dc2626"  # a request that ended in an error
BOUNDARY_COLOR = "#f97316"  # the prefill/decode line on heatmaps: visible on Viridis and in the white legend
KIB = 1024
MIB = 1024 * 1024


TITLE_WIDTH = 40  # display columns of a title line: a phone's 358 px chart at Plotly's 17 px title font


def _columns(text: str) -> int:
    """Display width: a CJK character takes two columns."""
    return sum(2 if ord(ch) > 0x2E80 else 1 for ch in text)


NO_LINE_START = "，。、：；！？）」』》"  # Chinese punctuation that never opens a line
# A title's breakable pieces: runs of spaces, single CJK characters (a line may break between any two),
# and runs of anything else (words, which never break inside)
_PIECES = re.compile(r"\s+|[\u2e80-\u9fff\uff00-\uffef]|[^\s\u2e80-\u9fff\uff00-\uffef]+")


BREAK_AFTER = "，。、：；！？）」』》,.:;!?)"  # a line may end after these without cutting a word
OPENERS = "（「『《("  # and start before these


def _cjk(ch: str) -> bool:
    return "\u2e80" <= ch <= "\u9fff" or "\uff00" <= ch <= "\uffef"


def _between_words(pieces: list[str], i: int) -> bool:
    """A cut before pieces[i] that cuts no word: at a space, after punctuation, before an opening
    bracket, or where Chinese meets Latin. Between two Chinese characters it may cut a word (预填|充),
    which has no spaces to say where it ends."""
    before, after = pieces[i - 1][-1], pieces[i][0]
    return before.isspace() or before in BREAK_AFTER or after in OPENERS or _cjk(before) != _cjk(after)


def wrap_title(title: str, width: int = TITLE_WIDTH) -> str:
    """Break a long title so it stays whole on a phone-width chart (Plotly does not wrap titles): into
    two even lines where that fits `width` columns each, else greedily; at spaces, or between any two
    CJK characters (Chinese has no spaces, and a mixed title has long runs without them). A break at
    a space keeps it (" <br>") and one between characters adds none ("<br>"), so the title without its
    tags reads as it was written."""
    if _columns(title) <= width:
        return title
    pieces = _PIECES.findall(title)
    cuts = [i for i in range(1, len(pieces)) if not pieces[i].isspace() and pieces[i][0] not in NO_LINE_START]
    for allowed in ([i for i in cuts if _between_words(pieces, i)], cuts):  # inside a Chinese word only if needed
        best = min(
            allowed,
            key=lambda i: max(_columns("".join(pieces[:i]).rstrip()), _columns("".join(pieces[i:]))),
            default=None,
        )
        if (
            best is not None
            and max(_columns("".join(pieces[:best]).rstrip()), _columns("".join(pieces[best:]))) <= width
        ):
            return _joined([pieces[:best], pieces[best:]])
    lines, line = [], []
    for piece in pieces:
        if line and not piece.isspace() and _columns("".join(line + [piece]).rstrip()) > width:
            lines.append(line)
            line = []
        if line or not piece.isspace():  # no line starts with a space
            line.append(piece)
    return _joined(lines + [line])


def _joined(lines: list[list[str]]) -> str:
    """Lines of pieces joined by line breaks: " <br>" where the line ended at a space, "<br>" elsewhere."""
    out = ""
    for k, line in enumerate(lines):
        text = "".join(line)
        if k == len(lines) - 1:
            out += text
        elif text != text.rstrip():
            out += text.rstrip() + " <br>"
        else:
            out += text + "<br>"
    return out


def style(fig: go.Figure, title: str, x_title: str, y_title: str, height: int = 380) -> go.Figure:
    """Title, axis titles and a legend under the plot: every chart gets all three. The title wraps to
    fit a phone; the Plotly toolbar stands upright at the right, off the title."""
    title = wrap_title(title)
    extra = 22 * title.count("<br>")  # a wrapped title's lines come on top: the plot keeps its size
    fig.update_layout(
        # hung from the top: Plotly centres a title in the top margin, so a wrapped one's later lines
        # ran down into the plot, over the y-axis title
        title=dict(text=title, x=0, xanchor="left", yref="container", y=1, yanchor="top", pad=dict(t=14)),
        modebar=dict(orientation="v"),
        xaxis_title=x_title,
        yaxis_title=y_title,
        showlegend=True,
        legend=dict(orientation="h", yanchor="top", y=-0.22, x=0, xanchor="left"),
        height=height + extra,
        margin=dict(l=60, r=60, t=60 + extra, b=90),
        template="plotly_white",
    )
    return fig


def legend_below(fig: go.Figure, height: int, rows: int = 1, offset_px: int = 70) -> go.Figure:
    """Put the legend a fixed `offset_px` under the plot, with room for `rows` rows of it. The shared
    style places it at a fraction of the plot's height, which collides with the axis title on short
    charts and leaves a wide gap under tall ones (a heatmap of a long prompt)."""
    bottom = offset_px + 40 + 30 * (rows - 1)  # generous: a legend that does not fit grows the margin
    top = fig.layout.margin.t if fig.layout.margin.t is not None else 60  # a wrapped title's, as set
    fig.update_layout(height=height, margin=dict(b=bottom), legend=dict(y=-offset_px / max(height - top - bottom, 60)))
    return fig


def fmt_bytes(num: float) -> str:
    """1536 -> '1.5 KiB'. Binary units, as memory is counted."""
    for unit, size in (("GiB", 1024**3), ("MiB", MIB), ("KiB", KIB)):
        if abs(num) >= size:
            return f"{num / size:.1f} {unit}"
    return f"{int(num)} B"


def _tick_text(v: float) -> str:
    for size, unit in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if v >= size:
            return f"{v / size:g}{unit}"
    return f"{v:g}"


def log_axis(fig: go.Figure, axis: str, lo: float, hi: float, max_ticks: int = 9) -> None:
    """A log axis labelled 1-2-5 (or by decades when that is too many), written out in full: Plotly's
    own log ticks label the in-between ones as bare digits ("2", "5"), which reads as a wrong scale."""
    lo, hi = max(float(lo), 1e-12), max(float(hi), float(lo) * 10)
    first, last = int(np.floor(np.log10(lo))), int(np.ceil(np.log10(hi)))
    marks = [(m, m * 10.0**e) for e in range(first, last + 1) for m in (1, 2, 5) if lo <= m * 10.0**e <= hi]
    if len(marks) > max_ticks:
        marks = [(m, v) for m, v in marks if m == 1]
        marks = marks[:: max(1, int(np.ceil(len(marks) / max_ticks)))]
    ticks = [v for _, v in marks]
    update = fig.update_xaxes if axis == "x" else fig.update_yaxes
    update(type="log", tickvals=ticks, ticktext=[_tick_text(v) for v in ticks])


def log_span(fig: go.Figure, axis: str) -> tuple[float, float]:
    """The smallest and largest positive value the figure's traces have on `axis`."""
    values = [float(v) for d in fig.data for v in getattr(d, axis) if v is not None and float(v) > 0]
    return min(values), max(values)
