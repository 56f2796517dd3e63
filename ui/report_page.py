"""The frame of a downloadable HTML report (the playground's and the remote page's): one
self-contained page that opens offline from disk. plotly.js is embedded once, inline (no CDN); the
app's own stylesheet (chip styles) comes first, then the report's. Callers pass body HTML whose
user or model text went through `ui.text.html_text`."""

from __future__ import annotations

import plotly.graph_objects as go
import plotly.io as pio

from lab.catalogues import catalogue
from ui.text import html_text
from ui.widgets import CSS_PATH

PAGE_CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", "Noto Sans CJK SC", sans-serif; color: #0f172a;
  max-width: 1150px; margin: 0 auto; padding: 1.5rem 2rem 3rem; line-height: 1.45; }
h1 { font-size: 1.7rem; margin-bottom: 0.2rem; } h2 { font-size: 1.2rem; margin-top: 2rem;
  border-bottom: 1px solid #e2e8f0; padding-bottom: 0.2rem; }
table.rp-table { border-collapse: collapse; font-size: 0.9rem; }
table.rp-table th, table.rp-table td { text-align: left; padding: 0.25rem 0.9rem 0.25rem 0; vertical-align: top;
  border-bottom: 1px solid #f1f5f9; }
table.rp-table th { color: #475569; font-weight: 600; white-space: nowrap; }
.rp-prompt { white-space: pre-wrap; font-family: ui-monospace, Menlo, monospace; margin: 0; }
.rp-metrics { display: flex; flex-wrap: wrap; gap: 1.2rem 2.2rem; }
.rp-metric .rp-label { font-size: 0.8rem; color: #475569; } .rp-metric .rp-value { font-size: 1.5rem; }
.rp-banner { background: #f0fdf4; border: 1px solid #86efac; border-radius: 6px; padding: 0.5rem 0.8rem; }
.rp-banner p { margin: 0.2rem 0; }
.rp-banner.rp-stopped, .rp-banner.rp-warn { background: #fffbeb; border-color: #fcd34d; }
.rp-banner.rp-error { background: #fef2f2; border-color: #fca5a5; }
.rp-banner.rp-info { background: #eff6ff; border-color: #93c5fd; }
.rp-replay-controls { display: flex; gap: 1rem; align-items: center; margin: 0.5rem 0; }
#pd-replay-slider { flex: 1; } #pd-replay-play { font: inherit; padding: 0.2rem 0.9rem; border-radius: 6px;
  border: 1px solid #cbd5e1; background: #fff; cursor: pointer; } .rp-caption { font-size: 0.9rem; min-height: 1.4em; }
.rp-help, .rp-muted { color: #475569; font-size: 0.9rem; }
.rp-figure { margin: 1rem 0 1.5rem; }
"""


def figures_html(figures: dict[str, go.Figure], with_plotly_js: bool = True) -> str:
    """Each figure in its own div; plotly.js inline with the first one only (pass False when an
    earlier call on the same page already carried it)."""
    parts = []
    for i, (name, fig) in enumerate(figures.items()):
        div = pio.to_html(
            fig,
            include_plotlyjs=with_plotly_js and i == 0,
            full_html=False,
            default_width="100%",
            config={"displaylogo": False, "responsive": True},
        )
        parts.append(f'<div class="rp-figure" data-figure="{html_text(name)}">{div}</div>')
    return "".join(parts)


def table_html(header: list[str], rows: list[list[str]]) -> str:
    head = "".join(f"<th>{html_text(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{html_text(c)}</td>" for c in row) + "</tr>" for row in rows)
    return f'<table class="rp-table"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def muted(text: str) -> str:
    return f'<p class="rp-muted">{html_text(text)}</p>'


def heading(text: str) -> str:
    return f"<h2>{html_text(text)}</h2>"


def html_document(title: str, body: list[str], lang: str) -> str:
    css = CSS_PATH.read_text(encoding="utf-8") + PAGE_CSS
    tag = catalogue(lang).locale.replace("_", "-")  # the catalogue's Language, as BCP 47 writes it: zh-Hans
    return (
        f'<!DOCTYPE html>\n<html lang="{tag}"><head><meta charset="utf-8">'
        f'<meta name="viewport" content="width=device-width, initial-scale=1"><title>{html_text(title)}</title>'
        f"<style>{css}</style></head><body>{''.join(body)}</body></html>\n"
    )
