"""The machine's load during a timed run, as every timed page shows it: a caption when the machine
was quiet, a warning when other processes were busy enough to make the timings unreliable (lab/busy.py)."""

from __future__ import annotations

import streamlit as st

from lab.busy import MachineLoad
from ui.i18n import t


def load_text(load: MachineLoad, lang: str) -> str:
    if load.other_cores is None:
        return t("load_unknown", lang)
    return t("load_busy" if load.busy else "load_quiet", lang, other=load.other_cores, cores=load.cores)


def was_busy(load: MachineLoad | None) -> bool:
    return load is not None and load.busy


def ratio_label(label: str, busy: bool, lang: str) -> str:
    """A ratio's column or row name; timed on a busy machine, it says its ratios are not given."""
    return f"{label} {t('busy_ratio_mark', lang)}" if busy else label


def show_load(load: MachineLoad | None, lang: str) -> None:
    if load is None:
        return
    if load.busy:
        st.warning(load_text(load, lang), icon=":material/speed:")
    else:
        st.caption(load_text(load, lang))
