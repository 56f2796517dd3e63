"""The numbers the compare page puts side by side, computed from each column's own run records:
the work it did (FLOPs and bytes moved, counted by the engine per step: exact, whatever the machine's
load), TTFT, TPOT, ITL (mean, P50, P99) and E2E from the token times (engine/observe/request_metrics.py,
vLLM's definitions), each the median over the column's timed repeats with its spread, its times over
column 1's as paired ratios with their intervals (race.py), peak memory from the per-step probe, and
KV bytes from the cached tokens x the model's KV bytes per token. Also how each column's settings
differ from column 1, for names."""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass

from app_pages.compare.state import ColumnOutcome, ColumnSettings
from app_pages.compare.strings import t
from engine.observe.request_metrics import percentiles
from lab.busy import MachineLoad, busiest
from lab.pairing import GREATER, LESS, RatioInterval, compare
from ui.figures_kv import kv_steps
from ui.run_state import RunResult


@dataclass(frozen=True)
class ColumnSummary:
    index: int
    prompt_tokens: int
    output_tokens: int
    ttft_ms: float
    tpot_ms: float | None  # None with a single output token
    itl_mean_ms: float | None
    itl_p50_ms: float | None
    itl_p99_ms: float | None
    e2e_ms: float
    peak_bytes: int | None  # the largest per-step peak; None if memory was not probed
    kv_end_bytes: int  # the cache at the last step (0 with the cache off)
    runs: int = 1  # timed repeats the times are the median of
    spread: dict[str, float] | None = None  # per time metric: (max − min) ÷ median over the repeats (2+ runs)
    itl_n: int = 0  # the gaps behind the ITL percentiles (under 100, the P99 is their maximum)
    gflops: float = 0.0  # the work of the run it shows, counted per step by the engine
    mb_moved: float = 0.0  # weights and KV read and written, counted the same way
    tokens_in: int = 0  # tokens through the model: the prompt once, or every step's whole context without a cache
    vs_base: dict[str, RatioInterval] | None = None  # times over column 1's, paired (None for column 1)
    load: MachineLoad | None = None  # the busiest other work while its runs were timed


# The times the caption judges, by their paired ratio's interval (Mean ITL is left out: over one
# request it equals TPOT by definition), and the memory it ranks by plain ratio (memory is exact).
TIMED = (("ttft", "cmp_m_ttft"), ("tpot", "cmp_m_tpot"), ("e2e", "cmp_m_e2e"))
MEMORY = (("peak_bytes", "cmp_m_peak"), ("kv_end_bytes", "cmp_m_kv"))


def kv_bytes_per_step(result: RunResult) -> list[tuple[int, int]]:
    """(step, bytes of K and V held in the cache during that step)."""
    per_token = result.model.kv_bytes_per_token
    return [(r.step, r.cached_tokens * per_token) for r in kv_steps(result.steps, result.block_size)]


def _median(values: list[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return statistics.median(present) if present else None


def _spread(values: list[float | None]) -> float | None:
    """(max − min) ÷ median: how far apart the repeats landed, as a fraction (None under 2 runs)."""
    present = [v for v in values if v is not None]
    mid = statistics.median(present) if len(present) > 1 else 0
    return (max(present) - min(present)) / mid if mid else None


SPREAD_METRICS = ("ttft_ms", "tpot_ms", "e2e_ms")  # the times whose spread the table shows


def summarise(col: ColumnOutcome) -> ColumnSummary:
    """The column's numbers: times over all its timed repeats (median; ITL percentiles over every
    gap of every repeat), tokens and memory from the run it shows."""
    r = col.result
    runs = [run.metrics for run in col.runs] or [r.metrics]
    gaps = [gap for m in runs for gap in m.itl_ms]
    itl = percentiles(gaps, (50, 99)) if gaps else None
    peaks = [s.peak_bytes for s in r.steps if s.peak_bytes is not None]
    kv = kv_bytes_per_step(r)
    spread = {name: _spread([getattr(m, name) for m in runs]) for name in SPREAD_METRICS} if len(runs) > 1 else None
    return ColumnSummary(
        index=col.settings.index,
        prompt_tokens=r.num_prompt_tokens,
        output_tokens=len(r.tokens),
        ttft_ms=_median([m.ttft_ms for m in runs]),
        tpot_ms=_median([m.tpot_ms for m in runs]),
        itl_mean_ms=itl["mean"] if itl else None,
        itl_p50_ms=itl["p50"] if itl else None,
        itl_p99_ms=itl["p99"] if itl else None,
        e2e_ms=_median([m.e2e_ms for m in runs]),
        peak_bytes=max(peaks) if peaks else None,
        kv_end_bytes=kv[-1][1] if kv else 0,
        runs=len(runs),
        spread=spread,
        itl_n=len(gaps),
        gflops=sum(s.flops for s in r.steps) / 1e9,
        mb_moved=sum(s.bytes_moved for s in r.steps) / 1e6,
        tokens_in=sum(s.num_tokens for s in r.steps),
        vs_base=col.vs_base,
        load=busiest([run.load for run in col.runs]),
    )


def ratio(value: float | None, base: float | None) -> float | None:
    """value / base, or None where either is missing or the base is zero."""
    if value is None or base is None or base == 0:
        return None
    return value / base


def fmt_ratio(q: float) -> str:
    """3.1 -> '3.10', 12.4 -> '12': two decimals where they matter."""
    return f"{q:.2f}" if q < 10 else f"{q:.0f}"


PROMPT_SHOWN = 24  # characters of a prompt shown in a column's name


def _model_name(spec: str) -> str:
    return "bundled" if spec == "bundled" else spec.rstrip("/").rsplit("/", 1)[-1]


def setting_phrases(s: ColumnSettings, lang: str) -> dict[str, str]:
    """Each setting as a short phrase, by name (the same names for every column, to compare)."""
    r = s.run
    sampling = (
        t("cmp_greedy", lang)
        if r.temperature == 0
        else t(
            "cmp_sampled",
            lang,
            temp=r.temperature,
            k=r.top_k,
            p=r.top_p,
            seed=t("seed_placeholder", lang) if r.seed is None else r.seed,
        )
    )
    return {
        "kv": t("cmp_kv_on" if r.kv_cache else "cmp_kv_off", lang),
        "attention": r.attention,
        "dtype": s.dtype,
        "model": _model_name(s.model),
        "sampling": sampling,
        "max_new": t("cmp_max_new_short", lang, n=r.max_new_tokens),
        "chat": t("cmp_chat_on" if r.chat else "cmp_chat_off", lang),
    }


def differences(s: ColumnSettings, base: ColumnSettings, lang: str) -> list[str]:
    """The settings of `s` that differ from `base`, as short phrases ("KV off", "eager")."""
    mine, theirs = setting_phrases(s, lang), setting_phrases(base, lang)
    out = [mine[k] for k in mine if mine[k] != theirs[k]]
    if s.run.prompt != base.run.prompt:
        out.append(prompt_phrase(s, lang))
    return out


def prompt_phrase(s: ColumnSettings, lang: str) -> str:
    """A column's prompt, shortened, and its length: «Why is the sky…» (52 chars)."""
    text = " ".join(s.run.prompt.split())
    short = text if len(text) <= PROMPT_SHOWN else text[: PROMPT_SHOWN - 1].rstrip() + "…"
    return t("cmp_prompt_named", lang, text=short, n=len(s.run.prompt))


def prompts_differ(columns: list[ColumnSettings]) -> bool:
    return len({c.run.prompt for c in columns}) > 1


def what_it_compares(columns: list[ColumnSettings], lang: str) -> str:
    """One line: what the comparison sets against what ("column 2 (KV off) against column 1 (KV on, sdpa,
    float32), on the same prompt")."""
    base, others = columns[0], columns[1:]
    differ = prompts_differ(columns)
    p = setting_phrases(base, lang)
    base_name = t(
        "cmp_column_named",
        lang,
        n=base.index + 1,
        detail=t("cmp_sep", lang).join([p["kv"], p["attention"], p["dtype"]]),
    )
    against = t("cmp_sep", lang).join(column_name(c, base, lang) for c in others)
    return t("cmp_compares_prompts" if differ else "cmp_compares_same", lang, others=against, base=base_name)


def column_name(s: ColumnSettings, base: ColumnSettings, lang: str, prompts_differ: bool = False) -> str:
    """The legend's name: column 1 by its main settings (and its prompt, when the columns' prompts
    differ), the others by what they change."""
    if s.index == base.index:
        p = setting_phrases(s, lang)
        detail = t("cmp_sep", lang).join(
            [p["kv"], p["attention"], p["dtype"]] + ([prompt_phrase(s, lang)] if prompts_differ else [])
        )
    else:
        detail = t("cmp_sep", lang).join(differences(s, base, lang)) or t("cmp_same_settings", lang)
    return t("cmp_column_named", lang, n=s.index + 1, detail=detail)


def biggest_differences(summaries: list[ColumnSummary], columns: list[ColumnSettings], lang: str) -> list[str]:
    """For each column after the first, as a sentence: the time metrics whose paired ratio to column 1
    lies wholly on one side of 1 (the largest first), or "not separable here" where none does; and its
    memory metric furthest from column 1's (memory is counted, not timed)."""
    base, base_settings = summaries[0], columns[0]
    by_index = {c.index: c for c in columns}
    lines = []
    for s in summaries[1:]:
        parts = []
        timed = [(abs(math.log(r.median)), key, r) for name, key in TIMED if (r := (s.vs_base or {}).get(name))]
        judged = sorted((x for x in timed if compare(x[2]) in (GREATER, LESS)), key=lambda x: -x[0])
        for _, key, r in judged[:1]:
            parts.append(
                t("cmp_diff_part", lang, metric=t(key, lang), x=fmt_ratio(r.median), base=base_settings.index + 1)
            )
        if timed and not judged:
            parts.append(t("cmp_diff_noise", lang))
        ranked = [
            (abs(math.log(q)), key, q)
            for attr, key in MEMORY
            if (q := ratio(getattr(s, attr), getattr(base, attr))) is not None and q > 0
        ]
        if ranked:
            _, key, q = max(ranked)
            parts.append(t("cmp_diff_part", lang, metric=t(key, lang), x=fmt_ratio(q), base=base_settings.index + 1))
        name = column_name(by_index[s.index], base_settings, lang, prompts_differ(columns))
        if parts:
            lines.append(t("cmp_diff_line", lang, name=name, parts=t("cmp_sep", lang).join(parts)))
        if s.kv_end_bytes == 0 and base.kv_end_bytes > 0:
            lines.append(t("cmp_diff_no_kv", lang, name=name))
    return lines
