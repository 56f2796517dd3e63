"""A timing taken while other processes keep the machine busy is called unreliable, not
judged. The busy work is real: busy-looping processes this test starts (one per core) and stops by
their own handles."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest

from app_pages import page_file
from lab.busy import LoadMeter, MachineLoad
from lab.claims import TIMED_CLAIMS
from lab.claims_hardware import StepUse, c11_check
from lab.claims_scaling import c16_check
from lab.verdicts import FAILS, HOLDS, SHOWN, UNRELIABLE, Verdict, explain, unreliable_when_busy
from tests.app_helpers import errors, run_playground, run_sweep


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
    assert unreliable_when_busy(verdicts, quiet, TIMED_CLAIMS) == verdicts
    marked = unreliable_when_busy(verdicts, busy, TIMED_CLAIMS)
    assert marked["C1"].verdict == HOLDS and marked["C13"].verdict == UNRELIABLE  # a shape is exact either way
    assert explain(marked["C13"]).startswith(
        "Not judged: other processes kept 1.2 of 2 cores busy while this was timed."
    )
    assert not MachineLoad(None, 2, 1.0).busy  # unknown: the pages say so rather than guess


def test_a_busy_machine_keeps_what_was_not_timed():
    """C11's proxy is a ratio of timed shares: unreliable. C16's leak is bytes, its slowdown a timing:
    the bytes are still said, the slowdown is not. A claim only shown on its page stays shown."""
    busy = MachineLoad(other_cores=1.2, cores=2, seconds=5.0)
    leak = c16_check([1024, 2048, 3072], [10.0, 11.0, 30.0], [0, 0, 0])
    proxy = c11_check(StepUse(100.0, 0.5, 0.1), StepUse(0.5, 0.01, 0.5))  # intensity, compute, bandwidth
    marked = unreliable_when_busy({"C11": proxy, "C16": leak}, busy, TIMED_CLAIMS)
    assert leak.verdict == HOLDS and marked["C16"].verdict == marked["C11"].verdict == UNRELIABLE
    text = explain(marked["C16"])
    assert text.startswith("The naive loop's one cache kept 1 KiB more per request (3 KiB after 3)")
    assert "not judged: the machine was busy (other processes kept 1.2 of its 2 cores" in text and "×" not in text
    shown = {"C16": Verdict("C16", SHOWN, "why_c16_shown")}
    assert unreliable_when_busy(shown, busy, TIMED_CLAIMS) == shown


def test_a_sweep_on_a_busy_machine_says_unreliable_instead_of_a_verdict(new_app, tiny_dirs, monkeypatch, busy_machine):
    monkeypatch.setenv("PDLAB_MODEL", str(tiny_dirs["llama"]))
    at = new_app(300).run()
    at.switch_page(page_file("sweeps")).run()
    at = run_sweep(at)
    assert not at.exception and not errors(at), errors(at)
    table = next(d.value for d in at.table if "verdict" in d.value.columns)
    assert list(table["verdict"]) == ["⚠ unreliable: the machine was busy"] * 4
    assert not any("does not hold" in v for v in table["verdict"])
    assert all(m.startswith("Not judged: other processes kept") for m in table["measured"])
    assert any(w.value.startswith("Unreliable timings: the machine was busy") for w in at.warning)


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
    assert "The timings above shared the machine — other work: 1.2 of 2 cores." in [c.value for c in at.caption]
    titles = [c.proto.spec for c in at.get("plotly_chart")]
    assert sum("other work: 1.2 of 2 cores" in spec for spec in titles) == 2  # latency and time share, under the title
    assert not any("Unreliable" in w.value for w in at.warning)
