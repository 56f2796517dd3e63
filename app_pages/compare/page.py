"""Compare: 2-4 prompts side by side, each with its own settings (KV cache, attention backend,
dtype, model, sampling), run one after another on the same engine; then the runs replayed side by
side, shared charts (every column one trace) and a summary table of the differences."""

import pandas  # noqa: F401  - before plotly (fresh-server import race)
import streamlit as st

from app_pages.compare import keys
from app_pages.compare.controls import render_controls
from app_pages.compare.run import run_all
from app_pages.compare.state import mark_interrupted
from app_pages.compare.strings import t
from app_pages.compare.view import render_comparison
from ui.i18n import current_lang
from ui.models import get_registry
from ui.queue_wait import take_turn
from ui.sidebar import CHOICE_KEY

lang = current_lang()
st.title(t("cmp_title", lang))
st.markdown(t("cmp_intro", lang))

columns, repeats, run_clicked = render_controls(st.session_state[CHOICE_KEY], lang)
status_slot = st.container()
live_slots = [box.empty() for box in st.columns(len(columns))]
results_slot = st.empty()
mark_interrupted(st.session_state.get(keys.RESULT))
if run_clicked:
    results_slot.empty()
    with take_turn(lang) as go:
        if go:
            run_all(columns, repeats, get_registry(), status_slot, live_slots, lang)
    for slot in live_slots:
        slot.empty()
with results_slot.container():
    render_comparison(st.session_state.get(keys.RESULT), lang)
