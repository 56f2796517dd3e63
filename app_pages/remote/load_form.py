"""The Load tab's form and the loads it asks for: GuideLLM's modes, a sweep of rates or a serving-lab
workload; chat questions or synthetic prompts of an exact length. On a public server every box
stops at its cap (requests, in flight, new tokens, prompt tokens, the time limit) and `check_public`
refuses a load over the caps however it was asked for (a workload preset, a crafted session)."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from app_pages.remote import keys
from app_pages.remote.capacity import PUBLIC_BUDGET_S
from app_pages.remote.pools import pools_field
from app_pages.remote.strings import t
from engine.errors import LabError
from engine.loader.model_loader import BUNDLED_NAME, convert_bundled, load_tokenizer
from lab.remote_client import RemoteRequest
from lab.remote_load import MODES, LoadPlan, workload_plan
from lab.synthetic_prompts import MAX_PROMPT_TOKENS, exact_prompts
from lab.workload import PRESET_NAMES, QUESTIONS, preset
from ui.public import public_settings
from ui.public_caps import cap_help, capped, check_count, check_prompt, check_size
from ui.widget_state import KEEP
from ui.widgets import whole_number, whole_number_box

PAGE_MODES = (*MODES, "sweep")  # sweep: constant load at each rate in turn
PROMPT_SETS = ("questions", "synthetic")

# The boxes only some modes read (a mode's plan ignores the others, so they are greyed out for it)
ONLY_IN = {
    keys.CONCURRENCY: ("concurrent",),
    keys.RATE: ("constant", "poisson"),
    keys.RATES: ("sweep",),
    keys.PRESET: ("workload",),
}
# A workload brings its own requests, prompts and reply lengths
NOT_IN_WORKLOAD = (keys.REQUESTS, keys.LOAD_TOKENS, keys.UNIQUE, keys.PROMPTS, keys.PROMPT_TOKENS, keys.TOKENIZER)


def unused(key: str, mode: str) -> bool:
    """Whether the chosen mode's load ignores this box."""
    if key in ONLY_IN:
        return mode not in ONLY_IN[key]
    return mode == "workload" and key in NOT_IN_WORKLOAD


def _applies(key: str, lang: str, help_text: str | None = None) -> dict:
    """A box's `disabled` and `help`: greyed out, with the reason as its help, when the mode ignores it."""
    mode = st.session_state.get(keys.MODE, PAGE_MODES[0])
    if unused(key, mode):
        return {"disabled": True, "help": t("rm_not_used", lang, mode=t(f"rm_mode_{mode}", lang))}
    return {"disabled": False, "help": help_text}


@st.cache_resource(show_spinner=False)
def workload_tokenizer():
    """The bundled model's tokenizer, to cut the serving lab's workloads into text prompts."""
    return load_tokenizer(convert_bundled())


@st.cache_resource(show_spinner=False, max_entries=4)
def named_tokenizer(name: str):
    """A tokenizer from a local folder or a hub id (LabError when it cannot be loaded)."""
    return load_tokenizer(Path(name).expanduser() if Path(name).expanduser().is_dir() else Path(name))


def prompt_tokenizer() -> tuple[object, str]:
    """The synthetic prompts' tokenizer and its name: the one the form names, else the bundled
    model's (always in public mode: a visitor's folder or hub id would make this server read it)."""
    name = (st.session_state.get(keys.TOKENIZER) or "").strip()
    if not name or public_settings().enabled:
        return workload_tokenizer(), BUNDLED_NAME
    return named_tokenizer(name), name


def load_controls(lang: str) -> bool:
    """The mode (outside the form: choosing one redraws the boxes it uses), then the form; True on Run."""
    st.radio(
        t("rm_mode", lang),
        PAGE_MODES,
        key=keys.MODE,
        horizontal=True,
        format_func=lambda m: t(f"rm_mode_{m}", lang),
        persist_state=KEEP,
    )
    with st.form(keys.RUN_LOAD + "_form", border=False):
        _size_boxes(lang)
        c1, c2, c3 = st.columns([2, 2, 1.4], vertical_alignment="bottom")
        c1.selectbox(
            t("rm_preset", lang),
            PRESET_NAMES,
            key=keys.PRESET,
            **_applies(keys.PRESET, lang, t("rm_preset_help", lang)),
            persist_state=KEEP,
        )
        c2.text_input(
            t("rm_rates", lang),
            "0.5, 1, 2, 4",
            key=keys.RATES,
            **_applies(keys.RATES, lang, t("rm_rates_help", lang)),
            persist_state=KEEP,
        )
        c3.toggle(
            t("rm_unique", lang),
            True,
            key=keys.UNIQUE,
            **_applies(keys.UNIQUE, lang, t("rm_unique_help", lang)),
            persist_state=KEEP,
        )
        _prompt_boxes(lang)
        pools_field(lang)
        return st.form_submit_button(t("rm_run_load", lang), type="primary", icon=":material/speed:")


def _size_boxes(lang: str) -> None:
    """Requests, in flight, rate, time limit and reply length: each stopped at a public server's cap."""
    c = st.columns(5)
    most = capped("max_requests", 1000, keys.REQUESTS)
    help_requests = cap_help("max_requests", lang, t("rm_requests_help", lang))
    whole_number_box(
        c[0],
        t("rm_requests", lang),
        1,
        most,
        keys.REQUESTS,
        value=min(16, most),
        **_applies(keys.REQUESTS, lang, help_requests),
    )
    most = capped("max_batch", 256, keys.CONCURRENCY)
    in_flight = _applies(keys.CONCURRENCY, lang, cap_help("max_batch", lang))
    whole_number_box(c[1], t("rm_concurrency", lang), 1, most, keys.CONCURRENCY, value=min(4, most), **in_flight)
    rate = _applies(keys.RATE, lang)
    c[2].number_input(t("rm_rate", lang), 0.1, 1000.0, 2.0, step=0.5, key=keys.RATE, **rate, persist_state=KEEP)
    public = public_settings().enabled
    longest = PUBLIC_BUDGET_S if public else 3600  # a visitor's load, a sweep's loads together, end within it
    note = t("public_capped_help", lang, cap=longest) if public else None
    whole_number_box(c[3], t("rm_duration", lang), 1, longest, keys.DURATION, value=min(120, longest), help=note)
    most = capped("max_new_tokens", 4096, keys.LOAD_TOKENS)
    help_tokens = cap_help("max_new_tokens", lang, t("rm_load_tokens_help", lang))
    reply = _applies(keys.LOAD_TOKENS, lang, help_tokens)
    whole_number_box(c[4], t("rm_load_tokens", lang), 1, most, keys.LOAD_TOKENS, value=min(32, most), **reply)


def _prompt_boxes(lang: str) -> None:
    """Which prompts, their length (stopped at a public server's tokens per prompt) and tokenizer."""
    p1, p2, p3 = st.columns([2, 1.4, 2.6], vertical_alignment="bottom")
    p1.selectbox(
        t("rm_prompts", lang),
        PROMPT_SETS,
        key=keys.PROMPTS,
        format_func=lambda p: t(f"rm_prompts_{p}", lang),
        **_applies(keys.PROMPTS, lang, t("rm_prompts_help", lang)),
        persist_state=KEEP,
    )
    most = capped("max_step_tokens", MAX_PROMPT_TOKENS, keys.PROMPT_TOKENS)
    whole_number_box(
        p2,
        t("rm_prompt_tokens", lang),
        1,
        most,
        keys.PROMPT_TOKENS,
        value=min(128, most),
        **_applies(keys.PROMPT_TOKENS, lang, cap_help("max_step_tokens", lang)),
    )
    public = public_settings().enabled
    tokenizer = _applies(keys.TOKENIZER, lang, t("rm_tokenizer_public" if public else "rm_tokenizer_help", lang))
    p3.text_input(
        t("rm_tokenizer", lang),
        "",
        key=keys.TOKENIZER,
        placeholder=t("rm_tokenizer_bundled", lang, name=BUNDLED_NAME),
        help=tokenizer["help"],
        disabled=public or tokenizer["disabled"],
        persist_state=KEEP,
    )


def _requests(lang: str, first: int = 0) -> list[RemoteRequest]:
    """Replies of exactly the asked length, as benchmark tools ask for them (a server that does not honour
    ignore_eos is pointed out under the results); with unique starts, one numbered prompt per request,
    numbered from `first` (no two share a prefix a server could have cached, across a sweep's loads too).
    Synthetic prompts (always numbered) go to the completions API: a chat template would add its own
    tokens to their exact length."""
    s = st.session_state
    tokens = whole_number(s[keys.LOAD_TOKENS])
    if s[keys.PROMPTS] == "synthetic":
        length = whole_number(s[keys.PROMPT_TOKENS])
        check_size("max_step_tokens", length, t("rm_prompt_tokens", lang))  # before any text is cut
        tokenizer, name = prompt_tokenizer()
        return [
            RemoteRequest(p, tokens, chat=False, ignore_eos=True, prompt_tokens=length, tokenizer=name)
            for p in exact_prompts(tokenizer, length, whole_number(s[keys.REQUESTS]), first)
        ]
    if not s[keys.UNIQUE]:
        return [RemoteRequest(q, tokens, chat=True, ignore_eos=True) for q in QUESTIONS]
    n = whole_number(s[keys.REQUESTS])
    return [
        RemoteRequest(f"({first + i + 1}) {QUESTIONS[i % len(QUESTIONS)]}", tokens, chat=True, ignore_eos=True)
        for i in range(n)
    ]


def _plan(lang: str, rate: float | None = None, first: int = 0) -> LoadPlan:
    """The form's load; a sweep's rate, and where its prompts' numbers start, when it is one of a sweep."""
    s = st.session_state
    if s[keys.MODE] == "workload":
        return workload_plan(
            workload_tokenizer(),
            preset(s[keys.PRESET], workload_tokenizer()),
            max_duration_s=whole_number(s[keys.DURATION]),
        )
    mode = "constant" if rate is not None else s[keys.MODE]
    return LoadPlan(
        mode,
        _requests(lang, first),
        max_requests=whole_number(s[keys.REQUESTS]),
        concurrency=whole_number(s[keys.CONCURRENCY]),
        rate=rate or float(s[keys.RATE]),
        max_duration_s=whole_number(s[keys.DURATION]),
    )


def sweep_rates(text: str, lang: str) -> list[float]:
    try:
        rates = [float(x) for x in text.replace(";", ",").split(",") if x.strip()]
    except ValueError:
        rates = []
    if not rates or len(rates) > 12 or any(not 0 < r <= 1000 for r in rates):
        raise LabError(t("rm_bad_rates", lang, text=text))
    return sorted(set(rates))


def form_plans(lang: str) -> list[LoadPlan]:
    """The form's loads: one, or a sweep's one per rate."""
    s = st.session_state
    if s[keys.MODE] != "sweep":
        return [_plan(lang)]
    rates = sweep_rates(s[keys.RATES], lang)
    return [_plan(lang, rate, k * whole_number(s[keys.REQUESTS])) for k, rate in enumerate(rates)]


def check_public(plans: list[LoadPlan], lang: str) -> None:
    """Refuse (CappedError) loads over a public server's caps: requests per load, requests in
    flight, new tokens per reply, prompt characters. Off public mode: nothing."""
    requests = [r for plan in plans for r in plan.requests]
    check_count("max_requests", max(plan.max_requests for plan in plans), t("public_what_requests", lang))
    in_flight = [plan.concurrency for plan in plans if plan.mode == "concurrent"]  # the others keep none fixed
    check_size("max_batch", max(in_flight, default=1), t("rm_concurrency", lang))
    check_size("max_new_tokens", max(r.max_tokens for r in requests), t("rm_load_tokens", lang))
    check_prompt(max((r.prompt for r in requests), key=len))
