"""Roofline lab: why prefill is compute-bound and decode bandwidth-bound (C3, C7, C10, C11, C19),
measured on this machine against its own ceilings and projected to datasheet GPUs."""

import pandas  # noqa: F401  - before plotly (fresh-server import race)
import streamlit as st

from app_pages.roofline.calibration import render_calibration_section
from app_pages.roofline.ceilings import render_ceilings_section
from app_pages.roofline.kernels import render_kernels_section
from app_pages.roofline.projection import render_projection_section
from app_pages.roofline.run import render_roofline_section
from app_pages.roofline.strings import t
from ui.i18n import current_lang
from ui.models import get_registry, load_for_page
from ui.sidebar import CHOICE_KEY

lang = current_lang()
st.title(t("rf_title", lang))
st.markdown(t("rf_intro", lang))

bundle = load_for_page(st.session_state[CHOICE_KEY], lang)
if bundle is None:
    st.stop()

ceil_tab, roof_tab, proj_tab, cal_tab = st.tabs(
    [
        t("rf_tab_ceilings", lang),
        t("rf_tab_roofline", lang),
        t("rf_tab_projection", lang),
        t("rf_tab_calibration", lang),
    ]
)
with ceil_tab:  # first: a re-measure here feeds the other tabs in the same run
    ceilings = render_ceilings_section(str(bundle.model.device), lang)
    render_kernels_section(bundle, lang)
with roof_tab:
    if ceilings is None:
        st.info(t("rf_need_ceilings", lang))
    else:
        render_roofline_section(bundle, get_registry(), ceilings, lang)
with proj_tab:
    render_projection_section(lang)
with cal_tab:
    if ceilings is None:
        st.info(t("rf_need_ceilings", lang))
    else:
        render_calibration_section(bundle, get_registry(), ceilings, lang)
