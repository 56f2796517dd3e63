"""What this run showed of the effect its workload is built to show: the preset's note says what to
expect, and this sentence gives B ÷ A of the metrics that note names, paired over the rounds the
policies raced, with its interval and n and a verdict only where the interval allows one
(ui/paired.py), so a caption never states a result the table beside it contradicts."""

from __future__ import annotations

from app_pages.serving.run import PolicyRun
from app_pages.serving.run_latencies import ALL, ids_in, paired_ratio
from app_pages.serving.strings import t
from ui.paired import ratio_text, verdict_text
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


def here_sentence(preset: str, rounds: list[dict[str, PolicyRun]], lang: str, retaken: int = 0, load=None) -> str:
    """'Here, B ÷ A: the long prompt's TTFT (max of 1) 1.08× [0.97–1.20], n = 5, not separable here; …'
    ('' without two runs or a note)."""
    noted = NOTED.get(preset)
    if not rounds or not {"a", "b"} <= set(rounds[0]) or not noted:
        return ""
    parts = []
    for group, metric, stat, words in noted:
        n = min(run.summary(ids_in(run, group))[metric]["n"] for run in rounds[0].values())
        if not n:
            continue
        r = paired_ratio(rounds, group, metric, stat, retaken, load)
        parts.append(
            t(
                "sv_here_part",
                lang,
                what=t(words, lang),
                stat=stat_label(stat, n, lang),
                ratio=ratio_text(r, lang),
                verdict=verdict_text(r, lang, t("sv_b_higher", lang), t("sv_b_lower", lang)),
            )
        )
    return t("sv_here", lang, parts=t("sv_here_join", lang).join(parts)) if parts else ""
