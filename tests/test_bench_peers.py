"""bench/peers.py runs each llama.cpp system in a process of its own: a stand-in child that dies by a
signal (as llama.cpp built with -march=native does with SIGILL on some VMs) is named with the signal
in the output and in its table rows, so in the record, and the other systems' rows still land. No
llama.cpp needed."""

from __future__ import annotations

import json
import sys
import textwrap

import pytest

from bench.peers import PeerCrashed, PeerProcess, died_how, print_times, time_systems
from bench.record import recorded

# A child that speaks the peers' protocol and dies by SIGILL where told: "load", "time" or never.
STANDIN = textwrap.dedent(
    """
    import json, os, resource, signal, sys
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # no core file from the signal
    def die():
        os.kill(os.getpid(), signal.SIGILL)
    if sys.argv[1] == "load":
        die()
    print(json.dumps("ready"), flush=True)
    for line in sys.stdin:
        if sys.argv[1] == "time":
            die()
        print(json.dumps([1.5, 2.5]), flush=True)
    """
)


def standin(dies: str) -> list[str]:
    return [sys.executable, "-c", STANDIN, dies]


def test_a_system_that_dies_by_a_signal_is_named_and_the_other_rows_land(tmp_path, monkeypatch):
    monkeypatch.setattr("sys.argv", ["bench/peers.py", "--repeats", "2"])
    with recorded("peers", out=tmp_path):
        fine, dies = PeerProcess("llama.cpp F32", standin("never")), PeerProcess("llama.cpp Q8_0", standin("time"))
        systems = {
            "ours, float32": lambda ids: (3.0, 4.0),
            "llama.cpp F32": lambda ids: tuple(fine.call("time", ids)),
            "llama.cpp Q8_0": lambda ids: tuple(dies.call("time", ids)),
        }
        times, crashed = time_systems(systems, {16: [1, 2, 3], 256: [4, 5]}, repeats=2)
        print_times(systems, [16, 256], times, crashed)
        fine.close()
    assert crashed == {"llama.cpp Q8_0": "SIGILL (signal 4)"}
    assert len(times[("llama.cpp F32", 256)]) == 2 and times[("llama.cpp Q8_0", 16)] == []
    (path,) = tmp_path.glob("*-peers.json")
    record = json.loads(path.read_text())
    rows = {row[0]: row[1:] for row in record["tables"][0]["rows"]}
    assert rows["llama.cpp Q8_0"] == ["crashed: SIGILL (signal 4)"] * 4
    assert rows["ours, float32"] == ["3.0", "4.0"] * 2 and rows["llama.cpp F32"] == ["1.5", "2.5"] * 2
    assert "llama.cpp Q8_0 crashed: its process died with SIGILL (signal 4)" in record["output"]


def test_a_system_that_dies_while_loading_is_named_too():
    with pytest.raises(PeerCrashed) as e:
        PeerProcess("llama.cpp Q4_1", standin("load"))
    assert e.value.name == "llama.cpp Q4_1" and e.value.how == "SIGILL (signal 4)"
    assert died_how(3) == "exit code 3" and died_how(-9) == "SIGKILL (signal 9)"
