"""Sweeps (C4, C8, C9, C18): TTFT and TPOT against prompt length, TPOT and the decode share against
output length, measured in rounds on the real engine, with a verdict on each claim from ratios paired
round by round and their intervals."""

import pandas  # noqa: F401  - before plotly (fresh-server import race)
import streamlit as st

from app_pages.sweeps import keys
from app_pages.sweeps.charts import render_charts
from app_pages.sweeps.run import measure_sweep, render_controls, settings_from
from app_pages.sweeps.strings import t
from app_pages.sweeps.verdicts import render_verdicts
from engine.errors import LabError
from ui.errors import show_error
from ui.i18n import current_lang
from ui.models import get_registry, load_for_page
from ui.queue_wait import take_turn
from ui.sidebar import CHOICE_KEY
from ui.text import md_literal

lang = current_lang()
st.title(t("sw_title", lang))
st.markdown(t("sw_intro", lang))

bundle = load_for_page(st.session_state[CHOICE_KEY], lang)
if bundle is None:
    st.stop()

Ls, Ns, new, out_L, repeats, clicked = render_controls(lang)
if clicked:
    try:
        settings = settings_from(Ls, Ns, new, out_L, repeats, bundle.model.config.max_position, lang)
    except LabError as exc:
        show_error(exc, lang)
    else:
        with take_turn(lang) as go:
            if go:
                measure_sweep(bundle, get_registry(), settings, lang)

result = st.session_state.get(keys.RESULT)
if result is None:
    st.info(t("sw_not_run", lang))
    st.stop()
s = result.settings
measured = len(result.prompt_points) + len(result.output_points)
if result.complete:
    st.success(t("sw_done", lang, runs=measured, secs=result.seconds), icon=":material/check_circle:")
else:
    st.warning(t("sw_stopped", lang, runs=measured, rounds=result.rounds), icon=":material/stop_circle:")
st.caption(
    t(
        "sw_result_caption",
        lang,
        model=md_literal(result.model),
        Ls=", ".join(map(str, s.prompt_lens)),
        n=s.prompt_new_tokens,
        L=s.output_prompt_len,
        Ns=", ".join(map(str, s.output_lens)),
        repeats=s.repeats,
    )
)

st.subheader(t("sw_verdicts_header", lang))
render_verdicts(result, lang)

st.subheader(t("sw_charts_header", lang))
render_charts(result, lang)
st.caption(t("sw_metrics_note", lang))
st.caption(t("sw_noise_note", lang))
