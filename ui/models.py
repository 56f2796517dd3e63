"""One model registry per server: loads each (spec, dtype, device) once, warms it up, and hands
the same read-only weights to every browser session. Engines are made per run, never shared.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, replace

import streamlit as st

from engine import Engine, EngineConfig, ModelBundle, SamplingParams, load_model
from engine.errors import LabError
from ui.public import may_load, public_settings
from ui.run_queue import FairLock, RunQueue

DEFAULT_SPEC_ENV = "PDLAB_MODEL"  # tests point this at a tiny model folder
ProgressFn = Callable[[str, float], None]


def default_model_spec() -> str:
    return os.environ.get(DEFAULT_SPEC_ENV, "").strip() or "bundled"


@dataclass(frozen=True)
class ModelChoice:
    spec: str
    dtype: str = "float32"
    device: str = "cpu"


class ModelRegistry:
    """Loaded models by choice, at most `max_models` at once (least recently used goes first)."""

    def __init__(self, max_models: int = 2):
        self.max_models = max_models
        self._models: OrderedDict[tuple[ModelChoice, int | None], ModelBundle] = OrderedDict()
        self._load_lock = threading.Lock()
        self.step_lock = FairLock()  # one engine step at a time across sessions, in arrival order
        self._queues: dict[int, RunQueue] = {}

    def run_queue(self, slots: int) -> RunQueue:
        """The queue public mode's runs wait in (one per size: tests change the settings in one process)."""
        with self._load_lock:
            return self._queues.setdefault(slots, RunQueue(slots))

    @staticmethod
    def _key(choice: ModelChoice) -> tuple[ModelChoice, int | None]:
        public = public_settings()
        return choice, public.max_context if public.enabled else None

    def loaded(self, choice: ModelChoice) -> ModelBundle | None:
        return self._models.get(self._key(choice))  # a plain dict read: no lock, never waits for a load

    def get(self, choice: ModelChoice, progress: ProgressFn | None = None) -> ModelBundle:
        """The bundle for `choice`, loading and warming it up on first use. LabError on bad specs."""
        if not may_load(choice.spec):  # whatever a session holds, a public server loads its owner's list only
            raise LabError("This server offers only the models in its list.")
        key = self._key(choice)
        with self._load_lock:
            if key in self._models:
                self._models.move_to_end(key)
                return self._models[key]
            bundle = load_model(
                choice.spec, dtype=choice.dtype, device=choice.device, progress=progress or (lambda stage, frac: None)
            )
            if key[1] is not None:  # public: every page sizes its runs by the model's context, so one cap holds all
                c = bundle.model.config
                bundle.model.config = replace(c, max_position=min(c.max_position, key[1]))
            if progress:
                progress("Warming up", 0.98)
            warm_up(bundle)
            self._models[key] = bundle
            while len(self._models) > self.max_models:
                self._models.popitem(last=False)
            return bundle


def warm_up(bundle: ModelBundle) -> None:
    """The first step of a fresh process is slow (oneDNN primitives, the memory probe's first use):
    pay it here, for both attention backends, not in a user's first run."""
    ids = bundle.tokenizer("Hello there").input_ids or [0]
    for attention in ("sdpa", "eager"):
        config = EngineConfig(
            attention=attention, kv_cache_bytes=0, probe_memory=True, capture_attention=attention == "eager"
        )
        Engine(bundle.model, bundle.tokenizer, config).generate(ids, SamplingParams(max_new_tokens=2, ignore_eos=True))


@st.cache_resource(show_spinner=False)
def get_registry() -> ModelRegistry:
    return ModelRegistry()


def load_for_page(choice: ModelChoice, lang: str) -> ModelBundle | None:
    """The chosen model, with a progress display while it loads; None (and a message) if it can't."""
    from ui.errors import show_error, show_message
    from ui.i18n import t
    from ui.text import md_escape

    registry = get_registry()
    slot = st.empty()  # always one element here, loading or not, so the page's layout never shifts
    bundle = registry.loaded(choice)
    if bundle is not None:
        return bundle
    with slot.container():
        box = st.status(t("loading_model", lang, spec=md_escape(choice.spec)), expanded=True)
        bar = box.progress(0.0, text=t("loading_start", lang))

    def progress(stage: str, fraction: float) -> None:
        bar.progress(min(max(float(fraction), 0.0), 1.0), text=md_escape(stage))

    try:
        bundle = registry.get(choice, progress)
    except Exception as exc:  # noqa: BLE001 - a bad spec or broken files: say so, keep serving
        box.update(label=t("loading_failed", lang), state="error", expanded=False)
        if isinstance(exc, LabError):  # the loader's messages are written for users: add what to do
            show_message(t("loading_failed_msg", lang, msg=str(exc)))
        else:
            show_error(exc, lang)
        return None
    slot.empty()
    return bundle
