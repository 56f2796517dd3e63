"""The claims check as it runs: its parts in order (lab/claims_measure.py says what each measures), each
reporting how far it is, and every claim judged the moment the parts it needs are measured
(lab/claims.NEEDS), so its verdict can land on the page while the rest is still measured.

    check = ClaimsCheck(model, tokenizer, ClaimSettings(), hf_loader=..., quantized_loader=...)
    for verdict in check.verdicts(progress):   # progress(ClaimsProgress) within every part
        show(verdict)
    check.data                                 # what was measured

The Hugging Face copy (C16) and the int8 copy (C19) are loaded by their own parts, late, so the
first verdicts do not wait for them; a loader that returns None (the copy cannot be made) leaves C16
shown on its page and C19 argued from the roofline.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator

import torch

from engine.config import dtype_name
from lab.claims import CLAIM_IDS, judge, needs
from lab.claims_lanes import race_cache, race_hol
from lab.claims_leak import measure_leak
from lab.claims_measure import CHAT_STEPS, ClaimData, ClaimSettings, MachineRoofs, measure_run_a, measure_worked
from lab.claims_pace import ClaimsPace, ClaimsProgress
from lab.claims_precision import measure_precision
from lab.memory_lab import measure_prefill_memory
from lab.sweeps import request_work, run_sweep, sweep_work
from lab.verdicts import Verdict
from lab.workload import text_tokens

LEAK_TOPICS = ["the sea", "a mountain", "bread", "the moon", "a river", "winter"]
PARTS = ["run A", "worked", "scores", "ceilings", "sweep", "cache", "hol", "leak", "precision"]
Within = Callable[[float], None]


class ClaimsCheck:
    """Every part of the claims check, each claim judged as soon as what it needs is measured."""

    def __init__(
        self,
        model,
        tokenizer,
        settings: ClaimSettings,
        name: str = "model",
        hf_loader: Callable[[], object | None] | None = None,
        quantized_loader: Callable[[], object | None] | None = None,
        ceilings: MachineRoofs | None = None,
        clock: Callable[[], float] = time.perf_counter,
        step_s: float | None = None,
    ) -> None:
        """step_s: the expected seconds a decode step of this model takes here, where known: the
        estimate of the time left starts from it (lab/claims_pace.ClaimsPace)."""
        settings.validate(model.config.max_position)
        self.model, self.tokenizer, self.settings, self.clock = model, tokenizer, settings, clock
        self.hf_loader, self.quantized_loader, self.roofs = hf_loader, quantized_loader, ceilings
        elem = torch.empty((), dtype=model.dtype).element_size()
        self.data = ClaimData(name, model.config, elem, settings)
        skip = {"leak"} if hf_loader is None else set()
        skip |= {"precision"} if quantized_loader is None else set()
        self.parts = [p for p in PARTS if p not in skip]
        self.deadline, self.step_s = 0.0, step_s

    def verdicts(self, progress: Callable[[ClaimsProgress], None] | None = None) -> Iterator[Verdict]:
        """Measure every part in order; after each, the verdicts it made possible, in claim order."""
        pace, done, judged = ClaimsPace(self.parts, self.settings, self.clock, self.step_s), set(), set()
        self.deadline = time.perf_counter() + self.settings.budget_s  # no busy round measured again past it
        for i, part in enumerate(self.parts):
            if progress:
                progress(pace.at(i))
            getattr(self, "_" + part.replace(" ", "_"))(lambda f, i=i: progress and progress(pace.at(i, f)))
            done.add(part)
            for claim in CLAIM_IDS:
                if claim not in judged and needs(claim, self.parts) <= done:
                    judged.add(claim)
                    yield judge(claim, self.data)
        if progress:
            progress(pace.at(len(self.parts)))

    # --- the parts -------------------------------------------------------------------------------------
    def _run_A(self, within: Within) -> None:
        measure_run_a(self.model, self.tokenizer, self.settings, self.data, within)

    def _worked(self, within: Within) -> None:
        measure_worked(self.model, self.tokenizer, self.data)

    def _scores(self, within: Within) -> None:
        self.data.scores = measure_prefill_memory(self.model, self.tokenizer, self.settings.scores_len, "eager")

    def _ceilings(self, within: Within) -> None:
        self.data.ceilings = self.roofs or MachineRoofs.measure(
            self.model.device.type, dtype_name(self.model.dtype), lambda _what, f: within(f)
        )

    def _sweep(self, within: Within) -> None:
        s = self.settings.sweep
        work = [sweep_work(s), sum(request_work(L, 2) for L in set(s.prompt_lens) | {s.output_prompt_len})]
        per_round, shown = sum(request_work(L, n) for _, L, n in s.points), [0.0]

        def report(done: float) -> None:  # never backwards: a round measured again holds the bar
            shown[0] = max(shown[0], min(1.0, done / work[0]))
            within(shown[0])

        def request(_count: int, total: int, _what: str, point) -> None:
            if point is not None:  # None: the warm-up begins
                work[0] = sweep_work(s) + (total - s.num_runs) // len(s.points) * per_round  # rounds measured again
                work[1] += request_work(point.prompt_len, point.max_new_tokens)
                report(work[1])

        def step(L: int, N: int, fraction: float) -> None:  # within a request: a slow machine's long ones
            report(work[1] + fraction * request_work(L, N))

        self.data.sweep = run_sweep(
            self.model, self.tokenizer, s, self.data.model, progress=request, deadline=self.deadline, on_step=step
        )

    def _cache(self, within: Within) -> None:
        s = self.settings
        ids = text_tokens(self.tokenizer, s.cache_prompt_len)
        self.data.cache = race_cache(self.model, self.tokenizer, ids, s.cache_new_tokens, within)

    def _hol(self, within: Within) -> None:
        s = self.settings
        self.data.hol = race_hol(
            self.model,
            self.tokenizer,
            s.hol_streams,
            s.hol_long_prompt,
            s.hol_stream_output,
            s.hol_chunk,
            CHAT_STEPS,
            within,
        )

    def _leak(self, within: Within) -> None:
        hf = self.hf_loader()
        if hf is None:
            return  # C16 is then shown on its page
        s = self.settings
        prompts = [
            f"Request {i + 1}: write one sentence about {LEAK_TOPICS[i % len(LEAK_TOPICS)]}."
            for i in range(s.leak_requests)
        ]
        self.data.leak = measure_leak(hf, self.model, self.tokenizer, prompts, s.leak_new_tokens, within)

    def _precision(self, within: Within) -> None:
        quantized = self.quantized_loader()
        if quantized is None:
            return  # C19 then argues from the roofline
        s = self.settings
        self.data.precision = measure_precision(
            self.model,
            quantized,
            self.tokenizer,
            text_tokens(self.tokenizer, s.cache_prompt_len),
            s.new_tokens,
            s.prompt_len,
            s.rounds,
            self.deadline,
            within,
        )


def measure_all(
    model,
    tokenizer,
    s: ClaimSettings,
    name: str = "model",
    hf_model=None,
    ceilings: MachineRoofs | None = None,
    progress: Callable[[ClaimsProgress], None] | None = None,
    quantized=None,
    clock: Callable[[], float] = time.perf_counter,
) -> ClaimData:
    """Every part, every claim judged on the way; the measured data (lab.claims.check_all judges it)."""
    check = ClaimsCheck(
        model,
        tokenizer,
        s,
        name,
        (lambda: hf_model) if hf_model is not None else None,
        (lambda: quantized) if quantized is not None else None,
        ceilings,
        clock,
    )
    for _ in check.verdicts(progress):
        pass
    return check.data
