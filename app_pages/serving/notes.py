"""What this run showed of the effect its workload is built to show: the preset's note says what to
expect, and this sentence gives the B ÷ A ratios of the metrics that note names, from the run itself,
so a caption never states a result the table beside it contradicts."""

from __future__ import annotations

from app_pages.serving.run import PolicyRun
from app_pages.serving.run_latencies import ALL, b_over_a, ids_in
from app_pages.serving.strings import t
from ui.percentile_labels import stat_label

# Per preset: (group of requests, metric, percentile, the words for it), as its note names them.
NOTED = {
    "head-of-line": (
        ("long prompt", "ttft_ms", "p50", "sv_here_long_ttft"),
        ("chat", "itl_ms", "p90", "sv_here_chat_itl"),
    ),
    "shared-prefix": ((ALL, "ttft_ms", "p50", "sv_here_ttft"),),
    "random-mix": ((ALL, "e2e_ms", "p50", "sv_here_e2e"),),
}


def here_sentence(preset: str, runs: list[PolicyRun], lang: str, busy: bool = False) -> str:
    """'Here, B ÷ A: the long prompt's TTFT (max of 1) 1.08×; …' ('' without two runs or a note)."""
    noted = NOTED.get(preset)
    if len(runs) != 2 or not noted:
        return ""
    if busy:
        return t("sv_here_busy", lang)
    parts = []
    for group, metric, stat, words in noted:
        a, b = (run.summary(ids_in(run, group))[metric] for run in runs)
        n = min(a["n"], b["n"])
        if n:
            q = b_over_a(a[stat], b[stat])
            parts.append(t("sv_here_part", lang, what=t(words, lang), stat=stat_label(stat, n, lang), q=q))
    return t("sv_here", lang, parts=t("sv_here_join", lang).join(parts)) if parts else ""
