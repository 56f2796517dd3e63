"""The ceilings section of the roofline lab: this machine's measured GEMM rate per dtype and read
bandwidth (lab/hardware.py), measured once with progress and cached; a button measures again. Ceilings
measured while other work took the cores are marked so beside their numbers, and measured again the
next time the page finds the machine quiet (checked at most once a minute while they stay busy)."""

from __future__ import annotations

import datetime as dt
import os
import time

import pandas as pd
import streamlit as st

from app_pages.roofline import keys
from app_pages.roofline.how_words import gemm_words, read_words, stage_words
from app_pages.roofline.strings import formula, t
from lab.hardware import DeviceCeilings, cache_path, cached_ceilings, machine_ceilings, quiet_now
from ui.formula import show_formula
from ui.public import shown_path
from ui.run_section import run_with_progress
from ui.tables import show_table
from ui.text import md_literal


def _measure(device: str, remeasure: bool, lang: str) -> DeviceCeilings | None:
    def measure(box) -> DeviceCeilings:
        bar = box.progress(0.0, text=t("rf_measuring", lang))

        def progress(stage: str, fraction: float) -> None:
            bar.progress(
                min(max(fraction, 0.0), 1.0), text=t("rf_measuring_stage", lang, stage=stage_words(stage, lang))
            )

        return machine_ceilings(device, remeasure=remeasure, progress=progress)

    return run_with_progress(
        measure, lang, running=t("rf_measuring", lang), failed=t("rf_measure_failed", lang), done=t("rf_measured", lang)
    )


RECHECK_S = 60.0  # how often a page showing busy ceilings looks whether the machine is quiet now


def _busy_and_quiet_now(c: DeviceCeilings) -> bool:
    """Ceilings measured busy, on a machine that reads quiet now (looked at once a minute at most)."""
    if not c.busy or time.monotonic() - st.session_state.get(keys.CEIL_CHECKED, -RECHECK_S) < RECHECK_S:
        return False
    st.session_state[keys.CEIL_CHECKED] = time.monotonic()
    return quiet_now()


def current_ceilings(device: str, lang: str) -> DeviceCeilings | None:
    """The ceilings for `device`: this session's, else the cache's, else measured now (with progress);
    measured again when they were measured busy and the machine is quiet now."""
    kept = st.session_state.get(keys.CEILINGS)
    if not (isinstance(kept, DeviceCeilings) and kept.device == device):
        kept = cached_ceilings(device)
    if kept is not None and not _busy_and_quiet_now(kept):
        st.session_state[keys.CEILINGS] = kept
        return kept
    ceilings = _measure(device, kept is not None, lang)
    if ceilings is not None:
        st.session_state[keys.CEILINGS] = ceilings
    return ceilings or kept


OFF = {"delta_color": "off", "delta_arrow": "off"}  # a note beside the number, not a change of it


def busy_reading(c: DeviceCeilings, lang: str) -> str:
    """What the machine was doing while busy ceilings were measured: other work's cores, or for an entry
    from before that was kept, the load average."""
    m = c.machine
    if m is not None:
        return t("rf_ceil_reading_other", lang, other=m.other_cores, cores=m.cores)
    return t("rf_ceil_reading_load", lang, load=c.load_average, cores=c.cores or os.cpu_count() or 1)


def busy_mark(c: DeviceCeilings, lang: str) -> str | None:
    """'measured beside other work on 1.2 of 2 cores' for ceilings measured busy, else None."""
    return t("rf_ceil_busy_mark", lang, reading=busy_reading(c, lang)) if c.busy else None


def ceilings_table(c: DeviceCeilings, lang: str) -> pd.DataFrame:
    rows = []
    for dtype, rate in c.gemm_flops_per_s.items():
        rows.append(
            {
                t("rf_col_dtype", lang): dtype,
                # a dtype this device could not run: a dash, never an empty cell
                t("rf_col_gemm", lang): "—" if not rate else f"{rate / 1e9:.1f}",
                t("rf_col_ridge", lang): "—" if not rate else f"{rate / c.read_bytes_per_s:.2f}",
            }
        )
    return pd.DataFrame(rows)


def render_ceilings_section(device: str, lang: str) -> DeviceCeilings | None:
    st.markdown(t("rf_ceil_intro", lang))
    if st.button(t("rf_remeasure", lang), key=keys.REMEASURE, icon=":material/refresh:"):
        fresh = _measure(device, True, lang)
        if fresh is not None:
            st.session_state[keys.CEILINGS] = fresh
    ceilings = current_ceilings(device, lang)
    if ceilings is None:
        return None
    c1, c2, c3 = st.columns(3)
    busy = busy_mark(ceilings, lang)  # beside each roof: other work lowers them all
    c1.metric(t("rf_m_bandwidth", lang), f"{ceilings.read_bytes_per_s / 1e9:.1f} GB/s", delta=busy, **OFF)
    fp32 = ceilings.gemm_flops_per_s.get("float32")
    c2.metric(t("rf_m_fp32", lang), f"{fp32 / 1e9:.0f} GFLOP/s" if fp32 else "–", delta=busy, **OFF)
    c3.metric(t("rf_m_ridge", lang), f"{ceilings.ridge_point('float32'):.1f} FLOP/B" if fp32 else "–")
    if ceilings.busy:
        st.caption(t("rf_ceil_busy", lang, reading=busy_reading(ceilings, lang)))
    show_table(ceilings_table(ceilings, lang), key=keys.CEIL_TABLE)
    when = dt.datetime.fromtimestamp(ceilings.measured_at, dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    st.caption(
        t(
            "rf_ceil_caption",
            lang,
            device=md_literal(ceilings.device_name),
            dev=ceilings.device,
            threads=ceilings.threads,
            torch=md_literal(ceilings.torch_version),
            when=when,
            read=md_literal(read_words(ceilings.read_how, lang)),
            kernel=md_literal(gemm_words(ceilings.gemm_kernel, lang)),
            path=md_literal(shown_path(cache_path())),
        )
    )
    if ceilings.load_average is not None:
        st.caption(t("rf_ceil_load", lang, load=ceilings.load_average, cores=ceilings.cores or os.cpu_count() or 1))
    show_formula(formula(r"<ridge> = \frac{<peak>}{<read_bw>\ (\text{B/s})}", lang))
    return ceilings
