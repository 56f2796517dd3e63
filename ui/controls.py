"""The playground's controls: prompt, chat template, max_new_tokens, sampling, attention backend,
KV cache and memory probe, in one form so typing never starts anything until Run."""
from __future__ import annotations

import streamlit as st

from ui.i18n import t
from ui.run_state import RunSettings
from ui.widget_state import KEEP, seed

SHARE_KEY = "pg_share"  # the form's "Copy share link" button (ui/share_panel.py shows the link)

DEFAULTS = {"pg_prompt": "What is the capital of France?", "pg_chat": True, "pg_max_new": 32,
            "pg_temperature": 0.0, "pg_top_k": 0, "pg_top_p": 1.0, "pg_seed": None, "pg_attention": "sdpa",
            "pg_kv": True, "pg_probe": True}
WORKED_EXAMPLE = {"pg_prompt": "今天天气", "pg_chat": False, "pg_max_new": 3, "pg_temperature": 0.0,
                  "pg_attention": "eager", "pg_kv": True}


def init_defaults(has_chat_template: bool) -> None:
    """Seed the widgets' state once per session (so no widget gets both a default and a state)."""
    seed(DEFAULTS)
    if not has_chat_template:
        st.session_state["pg_chat"] = False


def _load_worked_example() -> None:
    st.session_state.update(WORKED_EXAMPLE)


def _sampling_controls(lang: str) -> None:
    with st.expander(t("sampling", lang)):
        c1, c2, c3, c4 = st.columns(4)
        c1.number_input(t("temperature", lang), min_value=0.0, max_value=5.0, step=0.1, key="pg_temperature",
                        help=t("temperature_help", lang), persist_state=KEEP)
        c2.number_input(t("top_k", lang), min_value=0, max_value=100_000, step=1, key="pg_top_k",
                        help=t("top_k_help", lang), persist_state=KEEP)
        c3.number_input(t("top_p", lang), min_value=0.0, max_value=1.0, step=0.05, key="pg_top_p",
                        help=t("top_p_help", lang), persist_state=KEEP)
        c4.number_input(t("seed", lang), min_value=0, step=1, key="pg_seed", placeholder=t("seed_placeholder", lang),
                        persist_state=KEEP)


def render_controls(has_chat_template: bool, max_context: int, lang: str) -> tuple[RunSettings, bool]:
    """Draw the controls; return the settings and whether Run was pressed in this script run."""
    init_defaults(has_chat_template)
    st.button(t("worked_example_btn", lang), on_click=_load_worked_example, key="pg_example",
              help=t("worked_example_help", lang), icon=":material/menu_book:")
    with st.form("pg_form"):
        st.text_area(t("prompt", lang), key="pg_prompt", height=90, persist_state=KEEP)
        c1, c2, c3 = st.columns([1.2, 1, 1.3])
        c1.toggle(t("chat_template", lang), key="pg_chat", disabled=not has_chat_template,
                  help=t("chat_template_help", lang), persist_state=KEEP)
        c1.toggle(t("kv_cache", lang), key="pg_kv", help=t("kv_cache_help", lang), persist_state=KEEP)
        c1.toggle(t("probe", lang), key="pg_probe", help=t("probe_help", lang), persist_state=KEEP)
        c2.number_input(t("max_new_tokens", lang), min_value=1, max_value=max_context, step=1, key="pg_max_new",
                        persist_state=KEEP)
        c3.radio(t("attention", lang), ["sdpa", "eager"], key="pg_attention", horizontal=True,
                 captions=[t("attention_sdpa", lang), t("attention_eager", lang)], persist_state=KEEP)
        _sampling_controls(lang)
        buttons = st.container(horizontal=True)
        run = buttons.form_submit_button(t("run", lang), type="primary", icon=":material/play_arrow:", key="pg_run")
        # A second submit: the share link is built from the settings as typed, without running them
        buttons.form_submit_button(t("sh_link_button", lang), icon=":material/link:", key=SHARE_KEY,
                                   help=t("sh_link_help", lang))
    s = st.session_state
    settings = RunSettings(prompt=s["pg_prompt"] or "", chat=bool(s["pg_chat"]), max_new_tokens=int(s["pg_max_new"]),
                           temperature=float(s["pg_temperature"]), top_k=int(s["pg_top_k"]),
                           top_p=float(s["pg_top_p"]), seed=None if s["pg_seed"] is None else int(s["pg_seed"]),
                           attention=s["pg_attention"], kv_cache=bool(s["pg_kv"]), probe_memory=bool(s["pg_probe"]))
    return settings, run
