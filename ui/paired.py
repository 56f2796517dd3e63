"""How every page shows a timed comparison (lab/pairing.py): the ratio with its interval and n, the
verdict word only where the interval allows one, and other work on the machine beside the number it
touched, worded the same everywhere (saved reports too: they call the same functions).

    ratio_text(r, lang)        -> "3.12× [2.95–3.30], n = 32" (· ⚠ 0.8/2 cores busy with other work)
    verdict_text(r, lang, "faster", "slower")  -> the word for the side the interval lies on, or
                                  "not separable here"
    explain_text(lang)         -> how to read all of it, the margin beside other work included
"""

from __future__ import annotations

from lab.busy import MachineLoad
from lab.pairing import BUSY_MARGIN, GREATER, LESS, RatioInterval, compare
from ui.i18n import t

SEPARATOR = " · "


def number(x: float) -> str:
    """A ratio with the digits that matter: 0.987, 3.12, 12.4, 310."""
    return f"{x:.3g}" if abs(x) < 1000 else f"{x:,.0f}"


def busy_beside(load: MachineLoad | None, lang: str) -> str:
    """The load other processes put on the machine, to stand beside a number it touched (empty when
    they took less than a busy share, lab/busy.py)."""
    if load is None or not load.busy:
        return ""
    return SEPARATOR + t("pair_busy", lang, other=load.other_cores, cores=load.cores)


def ratio_text(r: RatioInterval | None, lang: str) -> str:
    """The median ratio, its interval and n; too few pairs and a busy machine said beside it; never empty."""
    if r is None:
        return t("pair_unmeasured", lang)
    text = t("pair_ratio", lang, ratio=number(r.median), low=number(r.low), high=number(r.high), n=r.n)
    if not r.judgeable:
        text += SEPARATOR + t("pair_too_few", lang)
    return text + busy_beside(r.load, lang)


def verdict_text(r: RatioInterval | None, lang: str, greater: str, less: str, against: float = 1.0) -> str:
    """`greater` (already worded) where the whole interval lies above `against`, `less` where below,
    else "not separable here"."""
    if r is None:
        return t("pair_unmeasured", lang)
    side = compare(r, against)
    return greater if side == GREATER else less if side == LESS else t("pair_not_separable", lang)


def explain_text(lang: str) -> str:
    """How a paired timing is read: interleaving, the interval, the verdict rule and its margin beside
    other work (lab/pairing.BUSY_MARGIN)."""
    return t("pair_explain", lang, margin=round((BUSY_MARGIN - 1) * 100))


def retaken_text(retaken: int, lang: str) -> str:
    """How many rounds were measured again because other work took the machine (empty for none)."""
    return t("pair_retaken", lang, n=retaken) if retaken else ""
