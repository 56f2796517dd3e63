"""The precision lab's tables: per configuration, the work first (bytes of weights read per token and
KV bytes per token, counted exactly; what a decode step reads at the chosen context and batch), then
the time (TPOT and prefill, each with its ratio to float32 measured beside float32: the median of the
paired ratios, its interval and n, ui/paired.py); then quality against float32, and the generations."""

from __future__ import annotations

import pandas as pd

from app_pages.precision.strings import t
from lab.precision_formats import FormatResult, format_cost, read_bytes
from lab.precision_run import PrecisionRun
from ui.paired import ratio_text, verdict_text
from ui.tables import short_labels


def _vs(r: FormatResult, ratio, lang: str) -> str:
    """A ratio to float32 as every page words one; float32's own row says it is the base."""
    return t("pr_is_reference", lang) if r.config.is_reference else ratio_text(ratio, lang)


def _verdict(r: FormatResult, lang: str) -> str:
    if r.config.is_reference:
        return t("pr_is_reference", lang)
    return verdict_text(r.decode_ratio, lang, t("pr_slower", lang), t("pr_faster", lang))


def bytes_ratio(run: PrecisionRun, r: FormatResult, context: int, batch: int) -> float:
    """Bytes a decode step reads, ÷ float32's (the first row), at this context and batch: counted."""
    return read_bytes(run.model, r, context, batch) / read_bytes(run.model, run.results[0], context, batch)


def work_short(context: int, batch: int, lang: str) -> dict[str, str]:
    """The work table's short labels (the long ones, with L and B, are the columns' help)."""
    return short_labels(t, lang, "pr_col_weights_read") | short_labels(t, lang, "pr_col_read", L=context, B=batch)


def work_table(run: PrecisionRun, context: int, batch: int, lang: str) -> pd.DataFrame:
    """One row per configuration: what it reads, counted exactly (no load on the machine changes it)."""
    model, rows = run.model, []
    for r in run.results:
        timed = format_cost(model, r, round(r.timing.context), 1)
        cost = format_cost(model, r, context, batch)
        rows.append(
            {
                t("pr_col_config", lang): r.config.name,
                t("pr_col_weights_read", lang): round(timed.weight_bytes / 1e6, 1),
                t("pr_col_kv_token", lang): r.kv_token_bytes,
                t("pr_col_read", lang, L=context, B=batch): round((cost.weight_bytes + cost.kv_read_bytes) / 1e6, 1),
                t("pr_col_read_vs", lang): f"{bytes_ratio(run, r, context, batch):.2f}×",
                t("pr_col_intensity", lang): round(cost.intensity, 2),
            }
        )
    return pd.DataFrame(rows)


def time_table(run: PrecisionRun, lang: str) -> pd.DataFrame:
    """One row per configuration: its times, each with its ratio to float32 measured beside float32."""
    model, rows = run.model, []
    for r in run.results:
        timed = format_cost(model, r, round(r.timing.context), 1)
        rows.append(
            {
                t("pr_col_config", lang): r.config.name,
                t("pr_col_tpot", lang): round(r.tpot_ms, 1),
                t("pr_col_vs", lang): _vs(r, r.decode_ratio, lang),
                t("pr_col_verdict", lang): _verdict(r, lang),
                t("pr_col_prefill", lang, L=run.settings.timing_plan.prefill_len): round(r.prefill_ms, 1),
                t("pr_col_prefill_vs", lang): _vs(r, r.prefill_ratio, lang),
                t("pr_col_gbs", lang): round((timed.weight_bytes + timed.kv_read_bytes) / r.tpot_ms / 1e6, 1),
            }
        )
    return pd.DataFrame(rows)


def quality_table(run: PrecisionRun, lang: str) -> pd.DataFrame:
    """The configurations scored so far (float32's own row is scored last)."""
    rows = []
    for r in (r for r in run.results if r.text is not None or r.greedy is not None):
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
