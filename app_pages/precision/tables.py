"""The precision lab's tables: speed and memory per configuration (bytes read per decode step at the
chosen context and batch beside the measured TPOT), quality against float32, and the generations."""

from __future__ import annotations

import pandas as pd

from app_pages.precision.strings import t
from lab.precision_formats import FormatResult, PrecisionRun, format_cost, read_bytes
from ui.load_note import ratio_label, was_busy


def _ratio(x: float, base: float | None) -> float | None:
    return round(x / base, 2) if base else None


def speed_table(run: PrecisionRun, context: int, batch: int, lang: str) -> pd.DataFrame:
    """One row per configuration. Timed on a busy machine, the TPOT ratio to float32 is left empty and
    its column says why."""
    model, rows = run.model, []
    base = run.results[0].tpot_ms if run.results and run.results[0].config.is_reference else None
    busy = was_busy(run.busiest)
    vs = ratio_label(t("pr_col_vs", lang), busy, lang)
    measured_ctx = run.settings.prompt_len + run.settings.new_tokens // 2  # the timed decode's mean context
    for r in run.results:
        at_run = read_bytes(model, r, measured_ctx, 1)
        cost = format_cost(model, r, context, batch)
        rows.append(
            {
                t("pr_col_config", lang): r.config.name,
                t("pr_col_weights_mb", lang): round(r.weight_bytes / 1e6),
                t("pr_col_kv_token", lang): r.kv_token_bytes,
                t("pr_col_read", lang, L=context, B=batch): round((cost.weight_bytes + cost.kv_read_bytes) / 1e6, 1),
                t("pr_col_intensity", lang): round(cost.intensity, 2),
                t("pr_col_tpot", lang): round(r.tpot_ms, 1),
                vs: None if busy else _ratio(r.tpot_ms, base),
                t("pr_col_gbs", lang): round(at_run / r.tpot_ms / 1e6, 1) if r.tpot_ms else None,
                t("pr_col_prefill", lang, L=run.settings.prefill_len): round(r.prefill_ms),
            }
        )
    return pd.DataFrame(rows)


def quality_table(run: PrecisionRun, lang: str) -> pd.DataFrame:
    rows = []
    for r in run.results:
        row = {t("pr_col_config", lang): r.config.name}
        if r.text is not None and r.text.tokens:
            row |= {
                t("pr_col_ppl", lang): round(r.text.perplexity, 3),
                t("pr_col_ppl_vs", lang): f"{r.text.perplexity / r.text.perplexity_ref - 1:+.2%}",
                t("pr_col_kl", lang): round(r.text.kl_mean, 4),
                t("pr_col_top1", lang): f"{r.text.top1_share:.1%}",
            }
        if r.greedy is not None and r.greedy.tokens:
            row[t("pr_col_greedy", lang)] = f"{r.greedy.top1_share:.1%}"
        rows.append(row)
    return pd.DataFrame(rows)


def samples_table(run: PrecisionRun, lang: str) -> pd.DataFrame:
    rows = [{t("pr_col_config", lang): t("pr_reference", lang), t("pr_col_sample", lang): run.reference_sample}]
    rows += [
        {t("pr_col_config", lang): r.config.name, t("pr_col_sample", lang): r.sample}
        for r in run.results
        if not r.config.is_reference
    ]
    return pd.DataFrame(rows)


def reference(run: PrecisionRun) -> FormatResult | None:
    return run.results[0] if run.results and run.results[0].config.is_reference else None
