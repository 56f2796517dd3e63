"""The KV leak of C16 as the page runs it: the same N requests through a hand-written Hugging Face
loop that never releases its cache, and through the engine, which frees each request's blocks.

The Hugging Face copy of the weights is loaded once per server (st.cache_resource, like the
engine's model registry) from the folder the engine loaded, and only when the leak is run.
"""

from __future__ import annotations

import threading
from contextlib import nullcontext
from dataclasses import dataclass, field

import streamlit as st

from engine.errors import LabError
from lab.busy import MachineLoad
from lab.memory_lab import LeakPoint, engine_loop, load_hf_model, naive_hf_loop
from ui.i18n import t

MAX_REQUESTS = 32
MAX_NEW_TOKENS = 64
PROMPT_TOKENS = 24  # a generous bound on one request's prompt tokens
TOPICS = ["the sea", "a mountain", "bread", "the moon", "a river", "winter", "a library", "trains"]


@st.cache_resource(show_spinner=False, max_entries=1)
def hf_model(path: str):
    """transformers' own model on the same safetensors folder, once per server."""
    return load_hf_model(path)


def leak_prompts(n: int) -> list[str]:
    """N distinct short requests, as a stream of users would send them."""
    return [f"Request {i + 1}: write one sentence about {TOPICS[i % len(TOPICS)]}." for i in range(n)]


def check_settings(n: int, max_new_tokens: int, max_position: int, lang: str = "en") -> None:
    """ValueError with a readable message for settings the loop cannot run."""
    if not 2 <= n <= MAX_REQUESTS:
        raise LabError(t("mem_err_leak_n", lang, n=n, max=MAX_REQUESTS))
    if not 1 <= max_new_tokens <= MAX_NEW_TOKENS:
        raise LabError(t("mem_err_leak_new", lang, n=max_new_tokens, max=MAX_NEW_TOKENS))
    # the naive loop's one cache holds every request: it must stay inside the model's context
    per_request = max_new_tokens + PROMPT_TOKENS
    if n * per_request >= max_position:
        raise LabError(t("mem_err_leak_ctx", lang, n=n, per=per_request, ctx=max_position))


@dataclass
class LeakResult:
    n: int
    max_new_tokens: int
    naive: list[LeakPoint] = field(default_factory=list)
    engine: list[LeakPoint] = field(default_factory=list)
    kv_bytes_per_token: int = 0  # of the naive loop's float32 cache: what each leaked token keeps
    load: MachineLoad | None = None  # other processes' CPU use while both loops were timed

    @property
    def growth_per_request(self) -> float:
        """Bytes the naive loop keeps per request, on average (first to last)."""
        if len(self.naive) < 2:
            return 0.0
        return (self.naive[-1].retained_bytes - self.naive[0].retained_bytes) / (len(self.naive) - 1)


def run_naive(bundle, hf, result: LeakResult, lock: threading.Lock | None = None, progress=None) -> None:
    prompts = leak_prompts(result.n)
    with lock or nullcontext():
        result.naive = naive_hf_loop(hf, bundle.tokenizer, prompts, result.max_new_tokens, progress=progress)


def run_engine(bundle, result: LeakResult, lock: threading.Lock | None = None, progress=None) -> None:
    prompts = leak_prompts(result.n)
    with lock or nullcontext():
        result.engine = engine_loop(bundle.model, bundle.tokenizer, prompts, result.max_new_tokens, progress=progress)
