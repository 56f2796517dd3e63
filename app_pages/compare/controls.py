"""The compare page's controls: how many columns, then per column a prompt and its own settings
(model, dtype, KV cache, attention backend, chat template, max_new_tokens, sampling), all in one
form so typing never starts anything until Run all.

Defaults: two columns on the same prompt, column 1 with the KV cache and column 2 without, so the
first click shows what generating without a cache costs; columns 3 and 4 try eager attention and
bfloat16."""

from __future__ import annotations

import streamlit as st

from app_pages.compare import keys
from app_pages.compare.state import DEFAULT_REPEATS, MAX_COLUMNS, MAX_REPEATS, MIN_COLUMNS, ColumnSettings
from app_pages.compare.strings import t
from ui.models import ModelChoice, default_model_spec
from ui.public import may_load, model_label, public_settings
from ui.public_caps import cap_help, capped
from ui.run_state import RunSettings
from ui.sidebar import DTYPES, HUB_SUGGESTIONS, local_model_dirs, model_box, spec_of
from ui.widget_state import KEEP, seed
from ui.widgets import sampling_controls, whole_number, whole_number_box

# What each column changes from the shared defaults (column 1 is the baseline)
COLUMN_DEFAULTS = [{}, {"kv": False}, {"attention": "eager"}, {"dtype": "bfloat16"}]


def seed_defaults(sidebar: ModelChoice, lang: str = "en") -> None:
    """Each column's first values, once per session: the sidebar's model and dtype, greedy, the prompt
    in the page's language. Not swapped on a later switch: the prompts sit in a form, whose typed,
    unsent text a value from the server would overwrite."""
    seed({keys.N: MIN_COLUMNS, keys.REPEATS: float(DEFAULT_REPEATS)})
    for i, changes in enumerate(COLUMN_DEFAULTS):
        base = {
            "prompt": t("cmp_default_prompt", lang),  # a Chinese page asks in Chinese
            "chat": True,
            "max_new": 32,
            "temperature": 0.0,
            "top_k": 0,
            "top_p": 1.0,
            "seed": None,
            "attention": "sdpa",
            "kv": True,
            "model": sidebar.spec,
            "dtype": sidebar.dtype,
        }
        seed({keys.column(f, i): v for f, v in {**base, **changes}.items()})


SHARED_FIELDS = ("chat", "max_new", "temperature", "top_k", "top_p", "seed", "attention", "model", "dtype")


def _two_columns_like_the_first() -> None:
    s = st.session_state
    s[keys.N] = MIN_COLUMNS
    for field in SHARED_FIELDS:
        s[keys.column(field, 1)] = s[keys.column(field, 0)]


def same_settings_two_prompts(lang: str) -> None:
    """The preset "two prompts, same settings": column 2 with column 1's settings (its KV cache too) and
    a second prompt (a button's callback: it runs before the form's widgets are drawn)."""
    _two_columns_like_the_first()
    s = st.session_state
    s[keys.column("kv", 1)] = s[keys.column("kv", 0)]
    s[keys.column("prompt", 1)] = t("cmp_second_prompt", lang)


def cache_on_and_off(lang: str) -> None:
    """The preset "one prompt, KV cache on and off": the page's first comparison."""
    _two_columns_like_the_first()
    s = st.session_state
    s[keys.column("prompt", 1)] = s[keys.column("prompt", 0)]
    s[keys.column("kv", 0)], s[keys.column("kv", 1)] = True, False


def render_presets(lang: str) -> None:
    """One click to each of the two comparisons a newcomer wants first."""
    c1, c2, _ = st.columns([1, 1, 2])
    c1.button(
        t("cmp_preset_cache", lang), key=keys.PRESET_CACHE, on_click=cache_on_and_off, args=(lang,),
        help=t("cmp_preset_cache_help", lang), icon=":material/memory:",
    )  # fmt: skip
    c2.button(
        t("cmp_preset_prompts", lang), key=keys.PRESET_PROMPTS, on_click=same_settings_two_prompts, args=(lang,),
        help=t("cmp_preset_prompts_help", lang), icon=":material/compare_arrows:",
    )  # fmt: skip


def model_options(current: list[str]) -> list[str]:
    """The models the sidebar offers, plus any a column already holds (typed in earlier); on a public
    server, its owner's list only."""
    public = public_settings()
    if public.enabled:
        return list(public.models)
    base = [default_model_spec(), "bundled", *local_model_dirs(), *HUB_SUGGESTIONS]
    return list(dict.fromkeys([*base, *(spec_of(c, base) for c in current if c)]))  # a label held: its option


def _column_controls(i: int, options: list[str], wide: bool, lang: str) -> None:
    """One column's widgets; in a narrow column (3 or 4 of them) stacked, so no label is cut off."""
    public = public_settings()
    st.markdown(f"**{t('cmp_column', lang, n=i + 1)}**")
    st.text_area(
        t("prompt", lang),
        key=keys.column("prompt", i),
        height=90,
        persist_state=KEEP,
        max_chars=public.max_prompt_chars if public.enabled else None,
    )
    if public.enabled:  # values kept from before the caps (or a crafted session) come back inside them
        if not may_load(st.session_state.get(keys.column("model", i))):
            st.session_state[keys.column("model", i)] = options[0]
        kept = st.session_state.get(keys.column("max_new", i))
        if isinstance(kept, (int, float)) and kept > public.max_new_tokens:
            st.session_state[keys.column("max_new", i)] = public.max_new_tokens
    model_box(
        t("model_label", lang),
        options,
        lang,
        shown=model_label,
        key=keys.column("model", i),
        persist_state=KEEP,
        accept_new_options=not public.enabled,
        help=t("cmp_model_help", lang),
    )
    c1, c2 = st.columns(2) if wide else (st.container(), st.container())
    c1.selectbox(t("dtype_label", lang), DTYPES, key=keys.column("dtype", i), persist_state=KEEP)
    whole_number_box(
        c2, t("max_new_tokens", lang), 1, public.max_new_tokens if public.enabled else 8192, keys.column("max_new", i)
    )  # "1e3" is 1000
    c1, c2 = st.columns(2) if wide else (st.container(), st.container())
    c1.toggle(t("kv_cache", lang), key=keys.column("kv", i), help=t("kv_cache_help", lang), persist_state=KEEP)
    c2.toggle(t("chat_template", lang), key=keys.column("chat", i), help=t("cmp_chat_help", lang), persist_state=KEEP)
    st.radio(
        t("attention", lang), ["sdpa", "eager"], key=keys.column("attention", i), horizontal=True, persist_state=KEEP
    )
    sampling_controls(tuple(keys.column(name, i) for name in ("temperature", "top_k", "top_p", "seed")), lang)


def column_settings(i: int, device: str) -> ColumnSettings:
    """Column i's settings as its widgets (or their kept values) hold them."""
    s = st.session_state
    run = RunSettings(
        prompt=s[keys.column("prompt", i)] or "",
        chat=bool(s[keys.column("chat", i)]),
        max_new_tokens=whole_number(s[keys.column("max_new", i)]),
        temperature=float(s[keys.column("temperature", i)]),
        top_k=whole_number(s[keys.column("top_k", i)]),
        top_p=float(s[keys.column("top_p", i)]),
        seed=whole_number(s[keys.column("seed", i)]),
        attention=s[keys.column("attention", i)],
        kv_cache=bool(s[keys.column("kv", i)]),
        probe_memory=True,
    )
    model = (s[keys.column("model", i)] or default_model_spec()).strip()
    return ColumnSettings(index=i, run=run, model=model, dtype=s[keys.column("dtype", i)], device=device)


def render_controls(sidebar: ModelChoice, lang: str) -> tuple[list[ColumnSettings], int, bool]:
    """Draw the controls; return the shown columns' settings, the timed runs per column and whether
    Run all was pressed."""
    seed_defaults(sidebar, lang)
    render_presets(lang)
    most = capped("max_columns", MAX_COLUMNS, keys.N, MIN_COLUMNS)
    st.radio(
        t("cmp_count", lang),
        list(range(MIN_COLUMNS, most + 1)),
        key=keys.N,
        horizontal=True,
        help=cap_help("max_columns", lang),
        persist_state=KEEP,
    )
    n = int(st.session_state[keys.N])
    options = model_options([st.session_state[keys.column("model", i)] for i in range(MAX_COLUMNS)])
    with st.form(keys.FORM, border=False):
        for i, box in enumerate(st.columns(n, border=True)):
            with box:
                _column_controls(i, options, n <= 2, lang)
        box, _ = st.columns([1, 3])
        repeats = whole_number_box(
            box,
            t("cmp_repeats", lang),
            1,
            capped("max_repeats", MAX_REPEATS, keys.REPEATS),
            keys.REPEATS,
            help=cap_help("max_repeats", lang, t("cmp_repeats_help", lang)),
        )
        run = st.form_submit_button(t("cmp_run", lang), type="primary", icon=":material/play_arrow:", key=keys.RUN)
    st.caption(t("cmp_sequential_note", lang))
    return [column_settings(i, sidebar.device) for i in range(n)], repeats, run
