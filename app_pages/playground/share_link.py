"""A share link: the playground's prompt and settings as query parameters, and back.

    ?prompt=Why%20is%20the%20sky%20blue%3F&max_new_tokens=48&attention=eager&kv=1&dtype=float32&model=bundled

Opening a link fills the controls once, on the session's first script run (app.py calls
`apply_share_link` before the sidebar is drawn, because model and dtype are sidebar widgets).
The values go into session state before any widget exists, so the widgets' own defaults
(`widget_state.seed`, a setdefault) and the values they keep across page visits take them as
if the user had typed them; later edits are never overridden, and the parameters are removed
from the address bar once applied. A parameter that is not valid is ignored and named in a note.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote, urlencode, urlsplit

import streamlit as st

from app_pages.playground import keys
from ui.models import default_model_spec
from ui.public import may_load, public_settings
from ui.run_state import RunSettings
from ui.sidebar import DTYPE_KEY, SPEC_KEY
from ui.widgets import whole_number

MAX_LINK_PROMPT = 2000  # characters: longer prompts make links some tools cut off
PLAYGROUND_PATHS = ("", "playground")  # the playground is the default page: its path is ""
STREAMLIT_PARAMS = ("embed", "embed_options")  # Streamlit's own: never ours to judge
HUB_ID = re.compile(r"^[A-Za-z0-9][\w.-]*/[\w.-]+$")
DTYPES = ("float32", "bfloat16", "float16")


@dataclass(frozen=True)
class Param:
    name: str  # in the link
    key: str  # the widget's session-state key
    kind: str  # text, bool, int, float, choice, model
    lo: float = 0
    hi: float = 0
    choices: tuple[str, ...] = ()


PARAMS = (
    Param("prompt", keys.PROMPT, "text", hi=MAX_LINK_PROMPT),
    Param("chat", keys.CHAT, "bool"),
    Param("max_new_tokens", keys.MAX_NEW, "int", 1, 100_000),
    Param("temperature", keys.TEMPERATURE, "float", 0.0, 5.0),
    Param("top_k", keys.TOP_K, "int", 0, 100_000),
    Param("top_p", keys.TOP_P, "float", 0.01, 1.0),  # the box's own range: 0 would be raised silently
    Param("seed", keys.SEED, "int", 0, 2**31 - 1),
    Param("attention", keys.ATTENTION, "choice", choices=("sdpa", "eager")),
    Param("kv", keys.KV, "bool"),
    Param("spec_k", keys.SPEC_K, "int", 0, 32),
    Param("dtype", DTYPE_KEY, "choice", choices=DTYPES),
    Param("model", SPEC_KEY, "model"),
)
BY_NAME = {p.name: p for p in PARAMS}


def shareable_model(spec: str) -> bool:
    """The bundled model and hub ids travel in a link; a local folder means nothing elsewhere."""
    if spec == "bundled":
        return True
    return bool(HUB_ID.match(spec)) and not Path(spec).expanduser().exists()


def link_params(settings: RunSettings, model_spec: str, dtype: str) -> dict[str, str]:
    """The query parameters for these settings (model left out when it is a local folder, the
    prompt when it is longer than MAX_LINK_PROMPT)."""
    s = settings
    params = {
        "prompt": s.prompt,
        "chat": str(int(s.chat)),
        "max_new_tokens": str(s.max_new_tokens),
        "temperature": f"{s.temperature:g}",
        "top_k": str(s.top_k),
        "top_p": f"{s.top_p:g}",
        "seed": "" if s.seed is None else str(s.seed),
        "attention": s.attention,
        "kv": str(int(s.kv_cache)),
        "spec_k": str(s.speculative_k),
        "dtype": dtype,
        "model": model_spec,
    }
    if s.seed is None:
        del params["seed"]
    if len(s.prompt) > MAX_LINK_PROMPT:
        del params["prompt"]
    if not shareable_model(model_spec):
        del params["model"]
    return params


def link_url(base: str | None, params: dict[str, str]) -> str:
    """`base` is the page's address without a query (st.context.url); None gives a relative link."""
    if base and not urlsplit(base).path:
        base += "/"  # st.context.url leaves out the root page's slash
    return f"{base or ''}?{urlencode(params, quote_via=quote)}"


def parse_value(p: Param, raw: str) -> tuple[object, tuple[str, dict] | None]:
    """(value, None) or (None, (reason key, its format values))."""
    text = raw.strip()
    public = public_settings()
    if p.kind == "text":
        most = min(int(p.hi), public.max_prompt_chars) if public.enabled else int(p.hi)
        return (raw, None) if len(raw) <= most else (None, ("sh_bad_text", {"max": most}))
    if p.kind == "bool":
        flags = {"1": True, "true": True, "on": True, "0": False, "false": False, "off": False}
        return (flags[text.lower()], None) if text.lower() in flags else (None, ("sh_bad_bool", {}))
    if p.kind == "int":
        if re.fullmatch(r"[+-]?\d{1,12}", text) and p.lo <= int(text) <= p.hi:
            return int(text), None
        return None, ("sh_bad_int", {"lo": int(p.lo), "hi": int(p.hi)})
    if p.kind == "float":
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        if math.isfinite(value) and p.lo <= value <= p.hi:
            return value, None
        return None, ("sh_bad_float", {"lo": f"{p.lo:g}", "hi": f"{p.hi:g}"})
    if p.kind == "choice":
        return (text, None) if text in p.choices else (None, ("sh_bad_choice", {"choices": ", ".join(p.choices)}))
    if public.enabled:  # the owner's list only: a link never makes a public server load or read anything else
        return (text, None) if may_load(text) else (None, ("sh_model_not_offered", {}))
    return (text, None) if shareable_model(text) else (None, ("sh_bad_model", {}))


def parse_link(query: dict[str, str]) -> tuple[dict[str, object], list[str], list[tuple[str, str, str, dict]]]:
    """Query parameters -> (session-state updates, names applied, [(name, value, reason key, values)])."""
    updates, applied, ignored = {}, [], []
    for name, raw in query.items():
        if name in STREAMLIT_PARAMS:
            continue
        p = BY_NAME.get(name)
        if p is None:
            ignored.append((name, raw, "sh_unknown_param", {}))
            continue
        value, problem = parse_value(p, raw)
        if problem:
            ignored.append((name, raw, *problem))
        else:
            updates[p.key] = value
            applied.append(name)
    return updates, applied, ignored


def apply_share_link(page) -> None:
    """On the session's first run only: fill the controls from the address bar, note what was
    ignored, and take our parameters out of the address bar (it would show stale settings later)."""
    s = st.session_state
    if s.get(keys.SHARE_LINK_CHECKED):
        return
    s[keys.SHARE_LINK_CHECKED] = True
    if page.url_path not in PLAYGROUND_PATHS:
        return
    query = {name: st.query_params[name] for name in st.query_params}  # the last value of each
    updates, applied, ignored = parse_link(query)
    spec = updates.pop(SPEC_KEY, None)
    if spec is not None:
        current = s.get(SPEC_KEY) or default_model_spec()  # the sidebar is not drawn yet: its default
        if public_settings().enabled or spec == current:  # public: already on the owner's list
            updates[SPEC_KEY] = spec
        else:  # a link must not make this server read or download a model unasked: the page asks
            s[keys.SHARE_MODEL_PENDING] = spec
            applied.remove("model")
    s.update(updates)
    if applied or ignored:
        s[keys.SHARE_LINK_NOTES] = (applied, ignored)
    for name in query:
        if name not in STREAMLIT_PARAMS:
            del st.query_params[name]


def fit_to_model(max_position: int) -> tuple[int, int] | None:
    """A max_new_tokens beyond this model's context (from a link, or kept from a larger model) would
    make its number input fail: lower it to the context; (asked, set) when it was lowered."""
    asked = st.session_state.get(keys.MAX_NEW)
    if isinstance(asked, (int, float)) and asked > max_position:  # a float: the box is a whole_number_box
        st.session_state[keys.MAX_NEW] = max_position
        return whole_number(asked), max_position
    return None
