"""Section 1 of the complexity lab (C13, C14): generate with and without the KV cache on the loaded
model, the two raced a decode step each in turn (lab/complexity_race.py) so that both see the same
load, with progress and the steps drawn as they come; result.py shows what was measured.

The whole comparison holds the registry's step lock a step at a time: it is a timing experiment,
and another session's steps between a pair's two would show up as noise in that pair only.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import streamlit as st

from app_pages.complexity import keys
from app_pages.complexity.figures import step_time_figure
from app_pages.complexity.strings import t
from engine.errors import LabError
from lab.busy import MachineLoad
from lab.complexity import CacheRun, crossover_context, run_with_and_without_cache, seconds_left
from lab.complexity_math import Exponent, prompt_of_length, time_exponent
from lab.complexity_race import CacheRace, race_cache
from ui.errors import show_error
from ui.public import check_run_work
from ui.public_caps import cap_help, capped
from ui.run_section import run_with_progress
from ui.text import with_eta
from ui.widget_state import seed
from ui.widgets import whole_number_box

# N = 128 after L = 8: about 15 s on the bundled model on 2 quiet cores, counted (docs/complexity.md)
DEFAULT_L, DEFAULT_N, MIN_N, MAX_N = 8, 128, 8, 1024
REDRAW_S = 1.0  # the progress bar's redraw interval: each redraw costs the browser CPU (docs/playground.md)
CHART_S = 3.0  # the steps so far, redrawn at most this often (the first within a few seconds)
FIRST_ESTIMATE = 3  # rounds after which the time left can be estimated (lab/complexity.seconds_left)


@dataclass
class Comparison:
    """One finished comparison, as kept in st.session_state (plain lists, no tensors)."""

    model: str
    prompt_len: int
    max_new_tokens: int
    race: CacheRace
    text: str
    crossover: int  # C* of the model, with the cache
    crossover_uncached: int  # and without it
    time_exponents: dict[bool, Exponent | None] = field(default_factory=dict)  # fitted once: a bootstrap

    @property
    def runs(self) -> dict[bool, CacheRun]:
        return self.race.runs

    @property
    def load(self) -> MachineLoad | None:
        return self.race.ratio.load

    @property
    def tokens_match(self) -> bool:
        return self.runs[True].tokens == self.runs[False].tokens

    @property
    def num_steps(self) -> int:
        return len(self.runs[True].step_ms)


def run_comparison(bundle, prompt_len: int, max_new_tokens: int, lock, on_round=None) -> Comparison:
    """Both ways, raced; LabError (readable) on settings the model cannot run. on_round: as
    lab/complexity_race.race_cache calls it."""
    if max_new_tokens < MIN_N:
        raise LabError(f"N must be at least {MIN_N}: a slope needs a few decode steps to fit on.")
    c = bundle.model.config
    if prompt_len + max_new_tokens > c.max_position:
        raise LabError(
            f"L = {prompt_len} + N = {max_new_tokens} exceed this model's context of "
            f"{c.max_position} tokens; lower one of them."
        )
    ids = prompt_of_length(bundle.tokenizer, prompt_len)
    with lock:
        # A two-token pass first: a fresh process pays one-off costs on the first steps of new shapes
        # (oneDNN primitives, allocator growth) that would otherwise bend the start of both curves.
        run_with_and_without_cache(bundle.model, bundle.tokenizer, ids, 2)
    race = race_cache(bundle.model, bundle.tokenizer, ids, max_new_tokens, lock, on_round)
    text = bundle.tokenizer.decode(race.runs[True].tokens, skip_special_tokens=True)
    exponents = {kv: time_exponent(race.runs[kv].step_ms) for kv in (True, False)}
    crossovers = crossover_context(c, True), crossover_context(c, False)
    return Comparison(bundle.name, prompt_len, max_new_tokens, race, text, *crossovers, exponents)


def render_controls(max_position: int, lang: str) -> tuple[int, int, bool]:
    max_l = max(1, max_position - MIN_N)
    seed({keys.L: min(DEFAULT_L, max_l), keys.N: DEFAULT_N})
    c1, c2, c3 = st.columns([1, 1, 1], vertical_alignment="bottom")
    prompt_len = whole_number_box(c1, t("cx_L", lang), 1, max_l, keys.L, help=t("cx_L_help", lang))
    most = capped("max_new_tokens", MAX_N, keys.N, MIN_N)
    max_new = whole_number_box(
        c2, t("cx_N", lang), MIN_N, most, keys.N, step=8, help=cap_help("max_new_tokens", lang, t("cx_N_help", lang))
    )
    clicked = c3.button(t("cx_run", lang), type="primary", key=keys.RUN, icon=":material/speed:")
    return prompt_len, max_new, clicked


class _Live:
    """The run's progress bar with the time left, and the steps measured so far as a chart, redrawn
    now and then (each redraw costs the browser CPU, which both lanes' next steps share alike)."""

    def __init__(self, box, prompt_len: int, max_new: int, lang: str):
        self.bar = box.progress(0.0, text=t("cx_progress", lang, done=0, N=max_new - 1))
        self.chart = box.empty()
        self.prompt_len, self.max_new, self.lang = prompt_len, max_new, lang
        self.start = time.perf_counter()
        self.drawn = {"bar": 0.0, "chart": self.start}

    def __call__(self, done: int, total: int, so_far: dict[bool, list[float]]) -> None:
        now = time.perf_counter()
        if now - self.drawn["bar"] >= REDRAW_S or done in (1, FIRST_ESTIMATE, total):
            self.drawn["bar"] = now
            left = seconds_left(None, so_far[True], so_far[False], self.prompt_len, total) if done < total else None
            spent = now - self.start
            fraction = spent / (spent + left) if left is not None else done / total
            what = t("cx_progress", self.lang, done=done, N=total)
            self.bar.progress(min(max(fraction, 0.0), 1.0), text=with_eta(what, left, self.lang))
        if now - self.drawn["chart"] >= CHART_S and done < total:
            self.drawn["chart"] = now
            runs = {kv: CacheRun(kv, [], list(ms), [], []) for kv, ms in so_far.items()}
            with self.chart.container():
                # no key: redrawn into this slot several times in one run, each time with more steps
                st.plotly_chart(step_time_figure(runs, self.prompt_len, self.lang))
                st.caption(t("cx_so_far", self.lang))


def measure_comparison(bundle, registry, prompt_len: int, max_new: int, lang: str) -> None:
    """Run the comparison under an st.status with a progress bar; keep the result or show why not."""
    try:
        check_run_work(prompt_len, max_new, kv_cache=False)  # one lane runs without the cache
    except LabError as exc:
        show_error(exc, lang)
        return
    st.session_state.pop(keys.RESULT, None)

    def measure(box) -> Comparison:
        live = _Live(box, prompt_len, max_new, lang)
        result = run_comparison(bundle, prompt_len, max_new, registry.step_lock, live)
        live.chart.empty()  # the full charts follow
        return result

    run_with_progress(
        measure,
        lang,
        running=t("cx_running", lang, L=prompt_len, N=max_new),
        failed=t("cx_failed", lang),
        done=t("cx_done", lang, L=prompt_len, N=max_new),
        keep=keys.RESULT,
    )
