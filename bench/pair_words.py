"""How a bench prints a paired comparison (lab/pairing.py): the ratio with its interval and n, the
verdict word only where the interval allows one, the load other work put on the machine beside it:
the words of ui/paired.py, read from the same catalogues (bench/ imports engine and lab only)."""

from __future__ import annotations

from lab.catalogues import say
from lab.pairing import GREATER, LESS, RatioInterval, compare

SEPARATOR = " · "


def number(x: float) -> str:
    """A ratio with the digits that matter: 0.987, 3.12, 12.4, 310."""
    return f"{x:.3g}" if abs(x) < 1000 else f"{x:,.0f}"


def ratio_text(r: RatioInterval | None) -> str:
    """'3.12× [2.95–3.30], n = 32', too few pairs and other work said beside it."""
    if r is None:
        return say("pair_unmeasured")
    text = say("pair_ratio", ratio=number(r.median), low=number(r.low), high=number(r.high), n=r.n)
    if not r.judgeable:
        text += SEPARATOR + say("pair_too_few")
    if r.load is not None and r.load.busy:
        text += SEPARATOR + say("pair_busy", other=r.load.other_cores, cores=r.load.cores)
    return text


def verdict_text(r: RatioInterval | None, greater: str, less: str, against: float = 1.0) -> str:
    """`greater` where the whole interval lies above `against`, `less` where below, else "not separable here"."""
    if r is None:
        return say("pair_unmeasured")
    side = compare(r, against)
    return greater if side == GREATER else less if side == LESS else say("pair_not_separable")
