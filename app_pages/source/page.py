"""The source: what the document behind the lab is, in the lab's own words, section by section, with
the claims each section makes and where the lab shows them."""

import streamlit as st

from app_pages import BY_NAME
from app_pages.source.sections import SECTIONS, intro_numbers, pages_of
from app_pages.source.strings import t
from ui.i18n import current_lang
from ui.text import claim_link

lang = current_lang()
st.title(t("src_title", lang))
st.markdown(t("src_intro", lang, **intro_numbers()))
claims_page = BY_NAME["claims"]
st.page_link(claims_page.file, label=t("src_open_claims", lang), icon=":material/fact_check:")

for section in SECTIONS:
    with st.container(border=True):
        heading = t(f"src_{section.key}_title", lang)
        st.subheader(f"{section.number} · {heading}" if section.number else heading, anchor=f"s-{section.key}")
        st.markdown(t(f"src_{section.key}_text", lang))
        st.caption(t("src_claims", lang, claims=", ".join(claim_link(c) for c in section.claims)))
        row = st.container(horizontal=True)
        for name in pages_of(section):
            page = BY_NAME[name]
            row.page_link(page.file, label=t("src_see_on", lang, page=t(page.title_key, lang)), icon=page.icon)
