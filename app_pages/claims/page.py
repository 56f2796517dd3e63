"""Claims: every claim C1-C24 of the source document with a live check on the loaded model, the
numbers behind each verdict and a link to the page that shows it in depth."""

import pandas  # noqa: F401  - before plotly (fresh-server import race)
import streamlit as st

from app_pages.claims import keys
from app_pages.claims.estimate import render_estimate
from app_pages.claims.panels import linked_claim, render_claims_list, render_linked_claim, render_result
from app_pages.claims.run import banner, run_checks
from app_pages.claims.strings import t
from lab.claims_measure import ClaimSettings
from lab.sweeps import MAX_REPEATS, MIN_JUDGED_ROUNDS
from ui.i18n import current_lang
from ui.models import get_registry, load_for_page
from ui.public import public_settings
from ui.public_caps import cap_help, capped
from ui.queue_wait import take_turn
from ui.sidebar import CHOICE_KEY
from ui.widget_state import KEEP, seed
from ui.widgets import whole_number_box

lang = current_lang()
st.title(t("cl_title", lang))
st.markdown(t("cl_intro", lang))
claim = linked_claim()  # a C-number link elsewhere in the lab opens this page on its claim
if claim:
    last = st.session_state.get(keys.RESULT)
    render_linked_claim(claim, last.verdicts if last else None, lang)

bundle = load_for_page(st.session_state[CHOICE_KEY], lang)
if bundle is None:
    st.stop()

c1, c2, c3 = st.columns([1, 2, 1], vertical_alignment="center")
clicked = c1.button(t("cl_run", lang), type="primary", key=keys.RUN, icon=":material/fact_check:")
public = public_settings().enabled  # a public server runs the quick check only: a full one takes a minute
if public:
    st.session_state[keys.QUICK] = True
quick = c2.toggle(
    t("cl_quick", lang),
    key=keys.QUICK,
    persist_state=KEEP,
    disabled=public,
    help=t("cl_quick_public" if public else "cl_quick_help", lang),
)
seed({keys.ROUNDS: MIN_JUDGED_ROUNDS})
rounds = whole_number_box(  # more rounds for the patient: narrower intervals
    c3,
    t("cl_rounds", lang),
    MIN_JUDGED_ROUNDS,
    capped("max_repeats", MAX_REPEATS, keys.ROUNDS, MIN_JUDGED_ROUNDS),
    keys.ROUNDS,
    help=cap_help("max_repeats", lang, t("cl_rounds_help", lang), MIN_JUDGED_ROUNDS),
)
settings = (ClaimSettings.quick() if quick else ClaimSettings()).with_rounds(rounds or MIN_JUDGED_ROUNDS)
estimate = st.empty()  # filled after a run, at the pace that run measured
if clicked:
    with take_turn(lang) as go:
        if go:
            run_checks(bundle, get_registry(), lang, settings)
with estimate.container():
    render_estimate(bundle, settings, quick, lang)
result = banner(lang)
if result is None:
    st.info(t("cl_not_run", lang))
    render_claims_list(lang)
    st.stop()
render_result(result.model, result.verdicts, lang, result.retaken)
