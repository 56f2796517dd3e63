"""What eager attention's materialised scores cost in time against sdpa, for the memory lab (C20):
the same prefill each way, a prefill each in turn (lab/pairing.interleave: order alternating, busy
rounds re-taken within a budget), so both see the same seconds of the machine. A prefill is one engine
step here, so step granularity and run granularity are the same thing.

    rounds = time_prefills(model, tokenizer, 1024, rounds=5)
    rounds.ratio("eager", "sdpa")    # eager ÷ sdpa, median [interval], n

The memory the scores take is counted elsewhere (lab/memory_lab.py: heads × Lq × Lk × bytes, and the
probe's tagged bytes): this is only their time, uninstrumented (the probe would time itself).
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import nullcontext

from engine.core.llm_engine import Engine, EngineConfig
from engine.errors import LabError
from engine.sampling_params import SamplingParams
from lab.pairing import Rounds, interleave

BACKENDS = ("eager", "sdpa")


def prompt_ids(model, prompt_len: int) -> list[int]:
    """Any valid tokens, prompt_len of them (the memory sweep's, lab/memory_lab.py)."""
    return [(i * 7919) % (model.config.vocab_size - 1000) + 500 for i in range(prompt_len)]


def prefill_ms(model, tokenizer, ids: list[int], backend: str) -> float:
    """One uninstrumented prefill of `ids` with `backend`: its step's wall time (ms)."""
    n = len(ids)
    config = EngineConfig(
        attention=backend, probe_memory=False, max_model_len=n + 1, max_num_batched_tokens=max(n, 8192)
    )
    engine = Engine(model, tokenizer, config)
    engine.add_request(list(ids), SamplingParams(max_new_tokens=1, ignore_eos=True))
    return engine.step().step.ms


def time_prefills(
    model,
    tokenizer,
    prompt_len: int,
    rounds: int,
    lock=None,
    deadline: float | None = None,
    warm: bool = True,
    on_round: Callable[[int, int], None] | None = None,
) -> Rounds:
    """The same prefill of prompt_len tokens with eager and with sdpa attention, `rounds` rounds of one
    each; `warm`: one untimed prefill each first (new shapes pay one-off costs); `lock` held for each
    prefill (another session's step never runs inside one). rounds.ratio("eager", "sdpa") is what
    materialising the scores costs in time."""
    if not 0 < prompt_len < model.config.max_position:
        raise LabError(f"Prompt length must be in 1..{model.config.max_position - 1}.")
    if rounds < 1:
        raise LabError(f"Time each backend at least once, not {rounds} times.")
    ids = prompt_ids(model, prompt_len)

    def arm(backend: str) -> Callable[[], float]:
        def one() -> float:
            with lock or nullcontext():
                return prefill_ms(model, tokenizer, ids, backend)

        return one

    arms = {backend: arm(backend) for backend in BACKENDS}
    if warm:
        for one in arms.values():
            one()
    return interleave(arms, rounds, deadline=deadline, on_round=on_round)
