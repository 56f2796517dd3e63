"""The playground's controls: prompt, chat template, max_new_tokens, sampling, attention backend,
KV cache and memory probe, in one form so typing never starts anything until Run."""

from __future__ import annotations

import streamlit as st

from app_pages.playground import keys
from app_pages.playground.strings import t
from lab.catalogues import catalogues
from ui.run_state import RunSettings
from ui.widget_state import KEEP, seed
from ui.widgets import sampling_controls, whole_number, whole_number_box

DEFAULTS = {  # the prompt: its language's (default_prompts)
    keys.CHAT: True,
    keys.MAX_NEW: 32,
    keys.TEMPERATURE: 0.0,
    keys.TOP_K: 0,
    keys.TOP_P: 1.0,
    keys.SEED: None,
    keys.ATTENTION: "sdpa",
    keys.KV: True,
    keys.PROBE: True,
    keys.SPEC_K: 0,
}
WORKED_EXAMPLE = {
    keys.PROMPT: "今天天气",
    keys.CHAT: False,
    keys.MAX_NEW: 3,
    keys.TEMPERATURE: 0.0,
    keys.ATTENTION: "eager",
    keys.KV: True,
    keys.SPEC_K: 0,
}


def default_prompts() -> dict[str, str]:
    """The prompt box's first text in each language of the catalogues."""
    return {lang: t("pg_default_prompt", lang) for lang in catalogues()}


def init_defaults(has_chat_template: bool, lang: str = "en") -> None:
    """Seed the widgets' state once per session (so no widget gets both a default and a state); the
    untouched default prompt follows the language (a Chinese page asks in Chinese)."""
    prompts = default_prompts()
    seed({**DEFAULTS, keys.PROMPT: prompts[lang]})
    if st.session_state[keys.PROMPT] in prompts.values():
        st.session_state[keys.PROMPT] = prompts[lang]
    if not has_chat_template:
        st.session_state[keys.CHAT] = False


def _load_worked_example() -> None:
    st.session_state.update(WORKED_EXAMPLE)


def render_controls(
    has_chat_template: bool, max_context: int, lang: str, max_prompt_chars: int | None = None
) -> tuple[RunSettings, bool]:
    """Draw the controls; return the settings and whether Run was pressed in this script run.
    max_context: the most max_new_tokens may be (a public server caps it below the model's context)."""
    init_defaults(has_chat_template, lang)
    st.button(
        t("worked_example_btn", lang),
        on_click=_load_worked_example,
        key=keys.EXAMPLE,
        help=t("worked_example_help", lang),
        icon=":material/menu_book:",
    )
    with st.form(keys.FORM):
        st.text_area(t("prompt", lang), key=keys.PROMPT, height=90, max_chars=max_prompt_chars, persist_state=KEEP)
        c1, c2, c3 = st.columns([1.2, 1, 1.3])
        c1.toggle(
            t("chat_template", lang),
            key=keys.CHAT,
            disabled=not has_chat_template,
            help=t("chat_template_help", lang),
            persist_state=KEEP,
        )
        c1.toggle(t("kv_cache", lang), key=keys.KV, help=t("kv_cache_help", lang), persist_state=KEEP)
        c1.toggle(t("probe", lang), key=keys.PROBE, help=t("probe_help", lang), persist_state=KEEP)
        whole_number_box(c2, t("max_new_tokens", lang), 1, max_context, keys.MAX_NEW)  # "1e3" is 1000
        whole_number_box(c2, t("spec_k", lang), 0, 32, keys.SPEC_K, help=t("spec_k_help", lang))
        c3.radio(
            t("attention", lang),
            ["sdpa", "eager"],
            key=keys.ATTENTION,
            horizontal=True,
            captions=[t("attention_sdpa", lang), t("attention_eager", lang)],
            persist_state=KEEP,
        )
        sampling_controls((keys.TEMPERATURE, keys.TOP_K, keys.TOP_P, keys.SEED), lang, side_by_side=True)
        buttons = st.container(horizontal=True)
        run = buttons.form_submit_button(t("run", lang), type="primary", icon=":material/play_arrow:", key=keys.RUN)
        # A second submit: the share link is built from the settings as typed, without running them
        buttons.form_submit_button(
            t("sh_link_button", lang), icon=":material/link:", key=keys.SHARE, help=t("sh_link_help", lang)
        )
    s = st.session_state
    settings = RunSettings(
        prompt=s[keys.PROMPT] or "",
        chat=bool(s[keys.CHAT]),
        max_new_tokens=whole_number(s[keys.MAX_NEW]),
        temperature=float(s[keys.TEMPERATURE]),
        top_k=whole_number(s[keys.TOP_K]),
        top_p=float(s[keys.TOP_P]),
        seed=whole_number(s[keys.SEED]),
        attention=s[keys.ATTENTION],
        kv_cache=bool(s[keys.KV]),
        probe_memory=bool(s[keys.PROBE]),
        speculative_k=whole_number(s[keys.SPEC_K]) or 0,
    )
    return settings, run
