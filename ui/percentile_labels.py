"""How a percentile is shown: with n, the number of values behind it, and as "max of n" when n is
too small for any value to lie above it (engine.observe.request_metrics.tail_is_max): a P99 of 8 requests is
their maximum, and a page that says "P99" there claims a tail it never saw."""

from __future__ import annotations

import math

from engine.observe.request_metrics import tail_is_max
from ui.i18n import t


def _p(stat: str) -> int:
    return int(stat.removeprefix("p"))


def stat_label(stat: str, n: int, lang: str) -> str:
    """'p99', 8 -> 'max of 8'; 'p90', 40 -> 'P90 of 40'."""
    if tail_is_max(_p(stat), n):
        return t("stat_max_of", lang, n=n)
    return t("stat_of_n", lang, stat=stat.upper(), n=n)


def shown_stats(stats: tuple[str, ...], n: int) -> list[str]:
    """The percentiles worth a bar or a row: those n resolves, then the maximum once (P90 and P99
    of 8 values are the same maximum)."""
    resolved = [s for s in stats if not tail_is_max(_p(s), n)]
    return resolved + [s for s in stats if s not in resolved][:1]


def stat_cell(value: float, stat: str, n: int) -> str:
    """A table cell: the value, marked "(max)" where it is the maximum of too few values."""
    if value is None or math.isnan(value):
        return "—"
    return f"{value:,.1f}" + (" (max)" if tail_is_max(_p(stat), n) else "")
