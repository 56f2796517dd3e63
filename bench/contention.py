"""Do the lab's verdicts survive a busy machine? The claims quick check, Compare's default (the KV cache
on vs off on one prompt) and Precision's default configurations, each run on the machine as it is and
then with one core taken by a spinning process this bench starts and stops, in one dated record:
each one's verdicts both ways, whether they agree, the share that retreated to "not separable here"
(the goal: at most a third) and each one's wall time.

    .venv/bin/python bench/contention.py [--parts claims compare precision]

The rule the pages follow (lab/pairing.py): a busy machine may take a verdict back to "not
separable here", never turn it over. So a verdict that flips (holds ↔ does not hold, faster ↔
slower) is the failure this bench looks for; a retreat is allowed, within the share.

What it calls, as the interfaces stand on this branch (each part's adapter is one function below):
  claims     lab.claims_run.measure_all(ClaimSettings.quick(), hf_model=, quantized=) and
             lab.claims.check_all (bench/claims.py --quick, the same runs)
  compare    lab.interleaved.race over two lanes at Compare's default column settings (COMPARE_*),
             judged by lab.pairing.compare on lab.interleaved.step_ratio (decode steps, off ÷ on)
  precision  lab.precision_formats.parse_weights and RunSettings' prompt and output lengths; each of
             Precision's default configurations (PRECISION_DEFAULTS) raced against float32, judged
             the same way (its decode steps ÷ float32's)
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench.record import recorded  # noqa: E402
from lab.pairing import GREATER, LESS  # noqa: E402
from lab.pairing import NOT_SEPARABLE as PAIR_NOT_SEPARABLE  # noqa: E402
from lab.verdicts import FAILS, HOLDS, NOT_SEPARABLE, ROUGHLY, UNRELIABLE  # noqa: E402

GOAL_SHARE = 1 / 3  # at most this share of a part's verdicts may retreat to "not separable here"
RETREATS = frozenset({NOT_SEPARABLE, PAIR_NOT_SEPARABLE, UNRELIABLE})  # no verdict, said as such
# Verdicts that contradict each other: a busy machine must never turn one into the other.
OPPOSITES = frozenset(frozenset(pair) for pair in ((HOLDS, FAILS), (ROUGHLY, FAILS), (GREATER, LESS)))

# Compare's default columns (app_pages/compare/controls.py and state.py, which bench/ may not import):
# the same prompt, greedy, sdpa, chat template on, 32 new tokens, column 1 with the KV cache and
# column 2 without, three timed runs each.
COMPARE_PROMPT = "Explain in two sentences why the sky is blue."  # the catalogue's cmp_default_prompt
COMPARE_MAX_NEW, COMPARE_REPEATS = 32, 3
# Precision's default configurations (app_pages/precision/run.py: DEFAULT_WEIGHTS, then float32 with
# each of DEFAULT_KV), used unless lab/precision_formats.py names its own (DEFAULT_CONFIGS).
PRECISION_DEFAULTS = (("float32", "auto"), ("bfloat16", "auto"), ("int8 + bfloat16", "auto"), ("w8a8", "auto"))
PRECISION_DEFAULTS += (("float32", "int8"),)


# --- the pure part: agreement and shares ------------------------------------------------------------
SAME, RETREATED, ADVANCED, OPPOSITE, SHIFTED = "same", "retreated", "advanced", "opposite", "shifted"


def agreement(quiet: str, busy: str) -> str:
    """How a busy run's verdict stands to the quiet run's: the same, retreated to no verdict, advanced
    from none to one, turned over (OPPOSITE, the failure), or moved without contradicting (SHIFTED:
    holds ↔ roughly, a verdict ↔ "not measurable here")."""
    if quiet == busy:
        return SAME
    if busy in RETREATS:
        return RETREATED
    if quiet in RETREATS:
        return ADVANCED
    return OPPOSITE if frozenset((quiet, busy)) in OPPOSITES else SHIFTED


@dataclass(frozen=True)
class PartSummary:
    """One part's verdicts quiet and busy, summed up."""

    items: int
    same: int
    retreated: int
    advanced: int
    opposite: int
    shifted: int
    not_separable_quiet: float  # share of the quiet run's verdicts that are "not separable here"
    not_separable_busy: float  # the same with one core busy: the goal is GOAL_SHARE at most

    @property
    def agreement(self) -> float:
        return self.same / self.items if self.items else 1.0

    @property
    def within_goal(self) -> bool:
        return self.opposite == 0 and self.not_separable_busy <= GOAL_SHARE


def not_separable_share(verdicts: dict[str, str]) -> float:
    """The share of verdicts that are none ("not separable here", or the old "unreliable")."""
    return sum(v in RETREATS for v in verdicts.values()) / len(verdicts) if verdicts else 0.0


def summarise(quiet: dict[str, str], busy: dict[str, str]) -> PartSummary:
    """Item by item (the items both runs judged); an item only one run has counts as changed."""
    names = sorted(set(quiet) | set(busy))
    kinds = [agreement(quiet.get(n, NOT_SEPARABLE), busy.get(n, NOT_SEPARABLE)) for n in names]
    return PartSummary(
        len(names),
        kinds.count(SAME),
        kinds.count(RETREATED),
        kinds.count(ADVANCED),
        kinds.count(OPPOSITE),
        kinds.count(SHIFTED),
        not_separable_share(quiet),
        not_separable_share(busy),
    )


# --- the adapters: one function per part, verdicts by item ------------------------------------------
def claims_verdicts(bundle, hf_model, quantized) -> dict[str, str]:
    """The claims page's quick check (as bench/claims.py --quick runs it): claim -> verdict."""
    from lab.claims import check_all
    from lab.claims_measure import ClaimSettings
    from lab.claims_run import measure_all

    data = measure_all(
        bundle.model, bundle.tokenizer, ClaimSettings.quick(), bundle.name, hf_model=hf_model, quantized=quantized
    )
    return {claim: v.verdict for claim, v in check_all(data).items()}


def raced_decode(make: Callable[[], dict], base: str, repeats: int) -> dict[str, str]:
    """Race fresh lanes (`make`) `repeats` times; each lane's decode steps ÷ `base`'s, step by step,
    pooled over the races and judged: lane name ÷ base -> GREATER, LESS or NOT_SEPARABLE."""
    from lab.busy import busiest
    from lab.interleaved import race
    from lab.pairing import compare, ratio_interval

    values: dict[str, list[float]] = {}
    bases: dict[str, list[float]] = {}
    loads = []
    for _ in range(repeats):
        lanes = make()
        loads.append(race(lanes))
        for name, lane in lanes.items():
            if name == base:
                continue
            mine, theirs = lane.phase_ms("decode"), lanes[base].phase_ms("decode")
            n = min(len(mine), len(theirs))
            values.setdefault(name, []).extend(mine[:n])
            bases.setdefault(name, []).extend(theirs[:n])
    load = busiest(loads)
    return {f"{name} ÷ {base}": compare(ratio_interval(values[name], bases[name], 0, load)) for name in values}


def compare_verdicts(bundle, repeats: int = COMPARE_REPEATS) -> dict[str, str]:
    """Compare's default: the KV cache off ÷ on, decode step by decode step, over `repeats` races
    (timed bare, as the page times its columns: no memory probe)."""
    from engine import EngineConfig, SamplingParams
    from lab.interleaved import Lane

    def make() -> dict:
        lanes = {}
        for name, kv in (("cache on", True), ("cache off", False)):
            config = EngineConfig(kv_cache=kv, kv_cache_bytes=0, probe_memory=False)
            lane = Lane.of(bundle.model, bundle.tokenizer, config, name)
            lane.engine.add_request(COMPARE_PROMPT, SamplingParams(max_new_tokens=COMPARE_MAX_NEW), chat=True)
            lanes[name] = lane
        return lanes

    return raced_decode(make, "cache on", repeats)


def precision_configs() -> list[tuple[str, str]]:
    """(weights, KV dtype) of Precision's default configurations, the lab's own list where it has one."""
    from lab import precision_formats

    named = getattr(precision_formats, "DEFAULT_CONFIGS", None)
    return [(c.weights, c.kv_dtype) for c in named] if named else list(PRECISION_DEFAULTS)


def precision_models(spec: str) -> dict[str, tuple[object, str]]:
    """Each default configuration's model (loaded once, before any timing) and its KV dtype, by name."""
    from engine import load_model
    from lab.precision_formats import FormatConfig, parse_weights

    models, loaded = {}, {}
    for weights, kv in precision_configs():
        if weights not in loaded:
            dtype, fmt = parse_weights(weights)
            loaded[weights] = load_model(spec, dtype=dtype, weights=fmt)
        models[FormatConfig(weights, kv).name] = (loaded[weights], kv)
    return models


def precision_verdicts(models: dict[str, tuple[object, str]]) -> dict[str, str]:
    """Precision's default: each configuration's decode steps and prefills ÷ float32's, timed as the page
    times them (lab/precision_timing.time_against: beside float32, a step each in turn)."""
    from lab.pairing import compare
    from lab.precision import PROMPTS
    from lab.precision_timing import TimingPlan, time_against

    ref = models["float32"][0]
    prompt, plan = ref.tokenizer(PROMPTS[0]).input_ids, TimingPlan()
    verdicts = {}
    for name, (bundle, kv) in models.items():
        if name == "float32":
            continue
        timing = time_against(ref, bundle, kv, prompt, plan)
        verdicts[f"{name} TPOT ÷ float32"] = compare(timing.decode)
        verdicts[f"{name} prefill ÷ float32"] = compare(timing.prefill)
    return verdicts


# --- the run -----------------------------------------------------------------------------------------
@contextmanager
def one_busy_core() -> Iterator[subprocess.Popen]:
    """One other process spinning on a core for as long as the block runs, stopped by its own handle."""
    spinner = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    time.sleep(0.3)  # let it take its core before anything is timed
    try:
        yield spinner
    finally:
        spinner.kill()
        spinner.wait(timeout=10)


def quiet_then_busy(run: Callable[[], dict[str, str]]) -> tuple[dict[str, str], dict[str, str], float, float]:
    """(quiet verdicts, busy verdicts, quiet wall s, busy wall s)."""
    start = time.perf_counter()
    quiet = run()
    quiet_s = time.perf_counter() - start
    with one_busy_core():
        start = time.perf_counter()
        busy = run()
        busy_s = time.perf_counter() - start
    return quiet, busy, quiet_s, busy_s


def print_part(part: str, quiet: dict[str, str], busy: dict[str, str]) -> None:
    print(f"\n{part}: each verdict quiet and with one core busy\n")
    print("| item | quiet | one core busy | agreement |\n|---|---|---|---|")
    for name in sorted(set(quiet) | set(busy), key=lambda n: (len(n), n)):
        q, b = quiet.get(name, "—"), busy.get(name, "—")
        print(f"| {name} | {q} | {b} | {agreement(q, b)} |")


def print_summary(rows: dict[str, tuple[PartSummary, float, float]]) -> None:
    print("\nEach part quiet, then with one core busy (a verdict may retreat to none, never turn over):")
    print(
        f"\n| part | items | agree | retreated | advanced | opposite | shifted | not separable quiet | "
        f"not separable busy (goal ≤ {GOAL_SHARE:.2f}) | within goal | wall quiet s | wall busy s |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for part, (s, quiet_s, busy_s) in rows.items():
        print(
            f"| {part} | {s.items} | {s.same} ({s.agreement:.0%}) | {s.retreated} | {s.advanced} | {s.opposite} | "
            f"{s.shifted} | {s.not_separable_quiet:.2f} | {s.not_separable_busy:.2f} | "
            f"{'yes' if s.within_goal else 'no'} | {quiet_s:.1f} | {busy_s:.1f} |"
        )  # fmt: skip


def main() -> int:
    from engine import load_model
    from engine.loader.model_loader import convert_bundled

    parts = ("claims", "compare", "precision")
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--parts", nargs="+", choices=parts, default=list(parts))
    args = ap.parse_args()
    bundle = load_model(str(convert_bundled()), dtype="float32", device="cpu")
    runs: dict[str, Callable[[], dict[str, str]]] = {}
    if "claims" in args.parts:
        from lab.memory_lab import load_hf_model

        hf = load_hf_model(str(bundle.path))
        quantized = load_model(str(bundle.path), dtype="bfloat16", weights="int8").model  # C19, as bench/claims.py
        runs["claims"] = lambda: claims_verdicts(bundle, hf, quantized)
    if "compare" in args.parts:
        runs["compare"] = lambda: compare_verdicts(bundle)
    if "precision" in args.parts:
        start = time.perf_counter()
        models = precision_models(str(bundle.path))
        print(f"precision: {len(models)} configurations loaded in {time.perf_counter() - start:.1f} s (not timed)")
        runs["precision"] = lambda: precision_verdicts(models)
    measured = {part: quiet_then_busy(run) for part, run in runs.items()}
    print_summary({part: (summarise(q, b), q_s, b_s) for part, (q, b, q_s, b_s) in measured.items()})
    for part, (quiet, busy, _, _) in measured.items():  # the summary is the record's first table
        print_part(part, quiet, busy)
    return 0


if __name__ == "__main__":
    with recorded("contention"):
        code = main()
    sys.exit(code)
