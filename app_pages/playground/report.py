"""One run as a standalone HTML page (the "Download report" button): settings, numbers, the
generated text, a token replay and the playground's main charts.

Self-contained so it opens offline from disk: plotly.js is embedded once, inline (no CDN), the
chip styles are the app's own stylesheet, inline too. Every piece of user or model text goes
through `html_text` (or, in the replay, `textContent`), so a prompt like `<script>` stays text.
"""

from __future__ import annotations

from datetime import UTC, datetime

from app_pages.playground.figures import busy_note
from app_pages.playground.report_figures import run_figures
from app_pages.playground.report_replay import replay_html
from app_pages.playground.strings import t
from app_pages.playground.thinned_charts import MAX_POINTS, thin_figure
from ui.chips import legend_html
from ui.live_html import done_text
from ui.report_page import figures_html, html_document
from ui.run_state import RunResult, RunStatus
from ui.text import html_text
from ui.widgets import model_summary


def _row(name: str, value: str) -> str:
    return f"<tr><th>{html_text(name)}</th><td>{html_text(value)}</td></tr>"


def _settings_table(result: RunResult, lang: str) -> str:
    s, m = result.settings, result.model
    on_off = {True: t("rp_on", lang), False: t("rp_off", lang)}
    rows = [
        f'<tr><th>{html_text(t("prompt", lang))}</th><td><pre class="rp-prompt">{html_text(s.prompt)}</pre></td></tr>',
        _row(t("chat_template", lang), on_off[s.chat]),
        _row(t("max_new_tokens", lang), str(s.max_new_tokens)),
        _row(t("temperature", lang), f"{s.temperature:g}"),
        _row(t("top_k", lang), str(s.top_k)),
        _row(t("top_p", lang), f"{s.top_p:g}"),
        _row(t("seed", lang), t("seed_placeholder", lang) if s.seed is None else str(s.seed)),
        _row(t("attention", lang), s.attention),
        _row(t("kv_cache", lang), on_off[s.kv_cache]),
        _row(t("probe", lang), on_off[s.probe_memory]),
        _row(t("dtype_label", lang), m.dtype),
        _row(t("device_label", lang), m.device),
    ]
    return f'<table class="rp-table">{"".join(rows)}</table>'


def _model_line(result: RunResult, lang: str) -> str:
    return f"<p>{html_text(model_summary(result.model, lang, markdown=False))}</p>"


def _banner(result: RunResult, lang: str) -> str:
    n = len(result.tokens)
    if result.status == RunStatus.DONE:
        text, kind = done_text(result, lang), ""
    elif result.status == RunStatus.FAILED:
        text, kind = result.error or t("err_unexpected", lang, kind="?"), " rp-stopped"
    else:
        text, kind = t("run_stopped", lang, n=n), " rp-stopped"
    return f'<p class="rp-banner{kind}">{html_text(text)}</p>'


def _metrics(result: RunResult, lang: str) -> str:
    """The headline numbers; the timed ones with the machine's other work beside them, as on the page."""
    m, busy = result.metrics, busy_note(result.load, lang)
    items = [
        (t("m_ttft", lang), f"{m.ttft_ms:.1f} ms", busy),
        (t("m_tpot", lang), "—" if m.tpot_ms is None else f"{m.tpot_ms:.1f} ms", busy),
        (t("m_e2e", lang), f"{m.e2e_ms:.0f} ms", busy),
        (t("m_tps", lang), "—" if not m.tpot_ms else f"{1000 / m.tpot_ms:.1f}", busy),
        (t("m_share", lang), f"{m.prefill_share:.0%} / {1 - m.prefill_share:.0%}", busy),
        (t("rp_prompt_tokens", lang), str(result.num_prompt_tokens), ""),
        (t("rp_output_tokens", lang), str(len(result.tokens)), ""),
        (t("rp_steps", lang), str(len(result.steps)), ""),
    ]
    return (
        '<div class="rp-metrics">'
        + "".join(
            f'<div class="rp-metric"><div class="rp-label">{html_text(k)}</div><div class="rp-value">{html_text(v)}'
            f"</div>{_beside(note)}</div>"
            for k, v, note in items
        )
        + "</div>"
    )


def _beside(note: str) -> str:
    return f'<div class="rp-label rp-busy">{html_text(note)}</div>' if note else ""


def _load(result: RunResult, lang: str) -> str:
    """A saved run from before the machine's load was recorded says so (a recorded one carries it
    beside its timings)."""
    if result.load is None:
        return f'<p class="rp-muted">{html_text(t("load_unrecorded", lang))}</p>'
    return ""


def _charts(result: RunResult, lang: str) -> str:
    figures = run_figures(result, lang)
    thinned = max(thin_figure(fig) for fig in figures.values()) if figures else 0
    parts = [figures_html(figures)]
    if thinned:
        parts.append(f'<p class="rp-muted">{html_text(t("thinned_chart", lang, shown=MAX_POINTS, total=thinned))}</p>')
    if not result.has_attention:
        parts.append(f'<p class="rp-muted">{html_text(t("rp_no_heatmap", lang))}</p>')
    return "".join(parts)


def report_html(result: RunResult, lang: str = "en", created: datetime | None = None) -> str:
    """The whole page. `result` needs at least one step and one token (the page offers it then)."""
    created_text = (created or datetime.now(UTC)).strftime("%Y-%m-%d %H:%M UTC")
    title = t("rp_title", lang)
    body = [
        f"<h1>{html_text(title)}</h1>",
        f'<p class="rp-muted">{html_text(t("rp_intro", lang, model=result.model.name, created=created_text))}</p>',
        _banner(result, lang),
        f"<h2>{html_text(t('rp_model', lang))}</h2>",
        _model_line(result, lang),
        f"<h2>{html_text(t('rp_settings', lang))}</h2>",
        _settings_table(result, lang),
        f"<h2>{html_text(t('rp_numbers', lang))}</h2>",
        _metrics(result, lang),
        _load(result, lang),
        f"<h2>{html_text(t('rp_output', lang))}</h2>",
        f'<div class="pd-output">{html_text(result.text)}</div>',
        f"<h2>{html_text(t('rp_replay', lang))}</h2>",
        legend_html(lang),
        replay_html(result, lang),
        f"<h2>{html_text(t('rp_charts', lang))}</h2>",
        _charts(result, lang),
        f'<p class="rp-muted">{html_text(t("rp_footer", lang))}</p>',
    ]
    return html_document(title, body, lang)
