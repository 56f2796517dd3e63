"""A timing taken while other processes keep the machine busy: the meter sees them (and not the lab's own
work); the busy reading stands beside the number it touched and never switches a verdict; timed
comparisons run their arms interleaved, so beside one busy core three timed claims give the quiet
verdict or "not separable here", never the opposite. The busy work is real: busy-looping processes
these tests start and stop by their own handles."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest

from app_pages import page_file
from lab.busy import LoadMeter, MachineLoad
from lab.claims_scaling import c16_check
from lab.verdicts import FAILS, HOLDS, NOT_SEPARABLE, ROUGHLY, SHOWN, UNRELIABLE, Verdict, explain, unreliable_when_busy
from tests.app_helpers import errors, run_playground, run_sweep

OLD_SWITCH = ("C13", "C16")  # claims a page still switching on the busy meter passes (the memory lab's C16)


@pytest.fixture
def busy_machine():
    """Every core busy-looping in another process, for as long as the test runs."""
    loops = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(os.cpu_count() or 1)]
    time.sleep(0.5)
    yield
    for p in loops:
        p.kill()
        p.wait(timeout=10)


def test_the_meter_sees_other_processes_and_not_its_own_work(busy_machine):
    with LoadMeter() as meter:
        end = time.perf_counter() + 1.5
        while time.perf_counter() < end:  # this process's own work does not count as "other"
            pass
    load = meter.load
    assert load.cores == (os.cpu_count() or 1) and load.seconds >= 1.5
    assert load.other_cores is not None and load.other_cores >= 0.5 and load.busy, load


# A child that leaves an orphan burning a second of CPU (as Chromium's helpers outlive their parent),
# measured with and without counting descendants; in a fresh Python, since adopting orphans lasts.
ORPHAN_PROBE = """
import json, os, subprocess, sys, time
from lab.busy import LoadMeter
burn = "import os, time\\nif os.fork() == 0:\\n    end = time.process_time() + 1.0\\n    while time.process_time() < end: pass"
plain, ours = LoadMeter().start(), LoadMeter(children=True).start()
subprocess.run([sys.executable, "-c", burn], check=True)  # returns at once: the orphan burns on
time.sleep(1.6)
print(json.dumps([ours.stop().other_cores, plain.stop().other_cores]))
"""


def test_orphans_of_a_measured_child_are_not_other_work():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    out = subprocess.run([sys.executable, "-c", ORPHAN_PROBE], capture_output=True, text=True, check=True, cwd=root)
    ours, plain = json.loads(out.stdout)
    assert plain - ours >= 0.3, (ours, plain)  # the orphan's second is ours, not another process's


def test_busy_marks_only_the_timed_claims():
    verdicts = {"C1": Verdict("C1", HOLDS, "r"), "C13": Verdict("C13", FAILS, "r")}
    quiet = MachineLoad(other_cores=0.1, cores=2, seconds=5.0)
    busy = MachineLoad(other_cores=1.2, cores=2, seconds=5.0)
    assert unreliable_when_busy(verdicts, quiet, OLD_SWITCH) == verdicts
    marked = unreliable_when_busy(verdicts, busy, OLD_SWITCH)
    assert marked["C1"].verdict == HOLDS and marked["C13"].verdict == UNRELIABLE  # a shape is exact either way
    assert explain(marked["C13"]).startswith(
        "Not judged: other processes kept 1.2 of 2 cores busy while this was timed."
    )
    assert not MachineLoad(None, 2, 1.0).busy  # unknown: the pages say so rather than guess


def test_a_busy_machine_keeps_what_was_not_timed():
    """The memory lab's C16 (lab/claims_scaling.c16_check, still behind the old switch there): its leak is
    bytes, its slowdown a timing; the bytes are still said. A claim only shown on its page stays shown."""
    busy = MachineLoad(other_cores=1.2, cores=2, seconds=5.0)
    leak = c16_check([1024, 2048, 3072], [10.0, 11.0, 30.0], [0, 0, 0])
    marked = unreliable_when_busy({"C16": leak}, busy, OLD_SWITCH)
    assert leak.verdict == HOLDS and marked["C16"].verdict == UNRELIABLE
    text = explain(marked["C16"])
    assert text.startswith("The naive loop's one cache kept 1 KiB more per request (3 KiB after 3)")
    shown = {"C16": Verdict("C16", SHOWN, "why_c16_shown")}
    assert unreliable_when_busy(shown, busy, OLD_SWITCH) == shown


def test_the_busy_reading_stands_beside_a_timed_verdict_and_never_switches_it():
    from lab.pairing import ratio_interval
    from lab.sweep_verdicts import c4_verdict
    from lab.verdicts import value_interval
    from ui.claims_verdicts import verdict_numbers

    busy = MachineLoad(other_cores=1.2, cores=2, seconds=5.0)
    growth = ratio_interval([880.0, 860.0, 870.0, 875.0, 865.0], [23.0, 22.5, 23.2, 22.8, 23.0], 1, busy)
    v = c4_verdict(growth, value_interval([0.999] * 5, busy), (16, 1024), (23.0, 870.0))
    assert v.verdict == HOLDS and v.load is busy  # the interval excludes the alternative: busy or not
    assert verdict_numbers(v, "en").endswith(" · ⚠ 1.2/2 cores busy with other work")
    untimed = Verdict("C1", HOLDS, "why_c1_holds", dict(L=8, shape="[1, 8, 64]"))
    assert "other work" not in verdict_numbers(untimed, "en")


def test_a_sweep_on_a_busy_machine_states_its_load_beside_each_verdict(new_app, tiny_dirs, monkeypatch, busy_machine):
    monkeypatch.setenv("PDLAB_MODEL", str(tiny_dirs["llama"]))
    at = new_app(300).run()
    at.switch_page(page_file("sweeps")).run()
    at = run_sweep(at)
    assert not at.exception and not errors(at), errors(at)
    table = next(d.value for d in at.table if "verdict" in d.value.columns)
    assert not any("unreliable" in v for v in table["verdict"])  # no switch: a verdict or "not separable here"
    assert all(v.endswith(("holds", "roughly", "does not hold", "not separable here")) for v in table["verdict"])
    assert all("cores busy with other work" in m for m in table["measured"])  # the busy reading beside each
    result = at.session_state["sw_result"]
    assert result.load.busy and result.retaken >= 1  # a busy round measured again, within the budget
    assert any("measured again: other work took the machine" in c.value for c in at.caption)


def test_three_timed_claims_beside_a_busy_core_give_the_quiet_verdict_or_not_separable(bundled, busy_core):
    """C4 timed (TTFT at a short and a long prompt, interleaved runs), C13 and C21 about work (counted,
    their times raced step by step beside): on the bundled model, quiet, C4 holds (TTFT grows ~8x from
    16 to 256 tokens), C13 holds roughly (the linear layers dominate at these contexts) and C21 holds.
    Beside one spinning core each gives that verdict or "not separable here", never the opposite."""
    from lab.claims_lanes import race_cache, race_hol
    from lab.claims_measure import CHAT_STEPS, ClaimData, ClaimSettings
    from lab.claims_run import ClaimsCheck
    from lab.sweeps import SweepSettings
    from lab.workload import text_tokens

    sweep = SweepSettings(prompt_lens=(16, 256), prompt_new_tokens=2, output_prompt_len=16, output_lens=(2, 3))
    s = ClaimSettings(sweep=sweep, cache_new_tokens=12, hol_long_prompt=128, hol_stream_output=8, hol_chunk=32)
    check = ClaimsCheck(bundled.model, bundled.tokenizer, s, "bundled")
    d: ClaimData = check.data
    check._sweep(lambda f: None)
    d.cache = race_cache(bundled.model, bundled.tokenizer, text_tokens(bundled.tokenizer, 16), 12)
    d.hol = race_hol(bundled.model, bundled.tokenizer, 5, 128, 8, 32, CHAT_STEPS)
    from lab.claims import judge

    c4, c13, c21 = (judge(c, d) for c in ("C4", "C13", "C21"))
    assert c4.verdict in (HOLDS, NOT_SEPARABLE), explain(c4)
    assert c13.verdict == ROUGHLY and c13.load is not None, explain(c13)
    assert c21.verdict == HOLDS, explain(c21)
    assert FAILS not in (c4.verdict, c13.verdict, c21.verdict)


def test_every_timed_page_shows_the_load_of_its_run(new_app, tiny_dirs, monkeypatch):
    """The playground records the machine's load over its timed run, and shows it beside each timing
    when other work took a busy share (planted here: a busy reading is the machine's, not the test's)."""
    import ui.run_driver

    monkeypatch.setenv("PDLAB_MODEL", str(tiny_dirs["llama"]))
    at = run_playground(new_app().run(), "Hello there", max_new=3)
    load = at.session_state["pg_result"].load
    assert load is not None and load.seconds > 0

    class BusyMeter(LoadMeter):
        def stop(self) -> MachineLoad:
            super().stop()
            self.load = MachineLoad(1.2, 2, self.load.seconds)
            return self.load

    monkeypatch.setattr(ui.run_driver, "LoadMeter", BusyMeter)
    at = run_playground(at, "Hello there", max_new=3)
    assert "The timings above shared the machine — ⚠ 1.2/2 cores busy with other work." in [c.value for c in at.caption]
    titles = [c.proto.spec for c in at.get("plotly_chart")]
    assert (
        sum("2 cores busy with other work" in spec for spec in titles) == 2
    )  # latency and time share, under the title
    assert not any("Unreliable" in w.value for w in at.warning)


def test_a_timing_beside_other_work_takes_only_the_cores_it_leaves_free():
    from lab.busy import free_threads

    assert free_threads(None, 2) == 2 and free_threads(MachineLoad(None, 2, 1.0), 2) == 2  # unknown: as is
    assert free_threads(MachineLoad(0.1, 2, 1.0), 2) == 2  # quiet
    assert free_threads(MachineLoad(0.85, 2, 1.0), 2) == 1  # one spinning core of two
    assert free_threads(MachineLoad(1.9, 2, 1.0), 2) == 1  # never none
    assert free_threads(MachineLoad(1.0, 8, 1.0), 8) == 8  # under a quarter of the cores: not busy
    assert free_threads(MachineLoad(2.5, 8, 1.0), 8) == 5 and free_threads(MachineLoad(2.5, 8, 1.0), 4) == 4
