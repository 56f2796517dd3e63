"""The SLO box of the pages that judge a load by goodput (the serving and remote labs): TTFT, TPOT
and every-ITL-gap thresholds in ms (0 leaves one out) and the target share of requests. The rule
that judges lives in lab/slo.py; this is only its input and its words."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from engine.errors import LabError
from lab.busy import MachineLoad
from lab.slo import SLO, Goodput, slo_verdict
from lab.verdicts import FAILS, HOLDS
from ui.errors import show_error
from ui.i18n import t
from ui.paired import busy_beside
from ui.tables import show_table
from ui.widgets import whole_number_box

OBJECTIVES = ("ttft", "tpot", "itl")


def slo_keys(prefix: str) -> dict[str, str]:
    """The box's widget keys on a page: <prefix>_slo_ttft, ..._tpot, ..._itl, ..._target."""
    return {name: f"{prefix}_slo_{name}" for name in (*OBJECTIVES, "target")}


def slo_box(lang: str, prefix: str, defaults: dict[str, int]) -> SLO | None:
    """Draw the box (seeded once with `defaults`, by name: ttft, tpot, itl, target %); the SLO, or None
    with the reason shown."""
    keys = slo_keys(prefix)
    for name, value in defaults.items():
        st.session_state.setdefault(keys[name], float(value))  # no widget gets both a default and a state
    c = st.columns(4)
    limits = [
        whole_number_box(col, t(f"slo_{name}", lang), 0, None, keys[name], help=t(f"slo_{name}_help", lang))
        for col, name in zip(c, OBJECTIVES)
    ]
    target = whole_number_box(c[3], t("slo_target", lang), 1, 100, keys["target"], help=t("slo_target_help", lang))
    ttft, tpot, itl = (limit or None for limit in limits)  # 0: not part of the objective
    try:
        return SLO(ttft_ms=ttft, tpot_ms=tpot, itl_ms=itl, target=(target or 0) / 100)
    except LabError as exc:
        show_error(exc, lang)
        return None


def slo_text(slo: SLO, lang: str) -> str:
    """'TTFT ≤ 2000 ms and TPOT ≤ 200 ms'."""
    return t("slo_and", lang).join(f"{name.upper()} ≤ {limit:g} ms" for name, limit in slo.thresholds.items())


def verdict_word(g: Goodput, lang: str, load: MachineLoad | None = None) -> str:
    """holds / does not hold, or "not separable here" for a target missed while other work kept the
    machine busy (lab/slo.slo_verdict), with that work beside it."""
    verdict = slo_verdict(g, load)
    word = t("slo_holds" if verdict == HOLDS else "slo_fails" if verdict == FAILS else "pair_not_separable", lang)
    return word + busy_beside(load, lang)


def verdict_row(first: dict, g: Goodput, lang: str, load: MachineLoad | None = None) -> dict:
    """One judged load as a table row after `first` (its name column): met, attainment, goodput,
    throughput, verdict (by lab/slo.slo_verdict, other work beside it), the objective that broke first."""
    return first | {
        t("slo_col_met", lang): f"{g.met} / {g.requests}",
        t("slo_col_attainment", lang): 100 * g.attainment,
        t("slo_col_goodput", lang): g.goodput,
        t("slo_col_throughput", lang): g.throughput,
        t("slo_col_verdict", lang): verdict_word(g, lang, load),
        t("slo_col_limiting", lang): (
            t("slo_limit", lang, name=g.limiting.upper(), n=g.missed[g.limiting]) if g.limiting else "—"
        ),
    }


def verdict_table(rows: list[dict], key: str, lang: str, short: dict[str, str] | None = None) -> None:
    """Rows of verdict_row as a table: shares in %, rates to two decimals."""
    percent = st.column_config.NumberColumn(format="%.0f %%")
    rate = st.column_config.NumberColumn(format="%.2f")
    config = {t("slo_col_attainment", lang): percent, t("slo_col_goodput", lang): rate}
    show_table(pd.DataFrame(rows), key=key, short=short, column_config=config | {t("slo_col_throughput", lang): rate})
