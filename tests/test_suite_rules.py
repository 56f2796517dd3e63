"""The test suite's own rules, read from the sources: a test reaches the real model, the pages, a
server or the browser only through the conftest fixtures that mark it (so `make test-fast` leaves
it out), the tiers are registered and are what `make test-fast` deselects, no test module imports
another, and scripts/ and bench/ import nothing from tests/; a session that starts on a busy machine
runs one thread per test process. Each rule is shown catching a planted violation."""

from __future__ import annotations

import ast
import configparser
import os
import re
import types
from pathlib import Path

import torch

from tests.conftest import MARKS, pytest_collection_modifyitems

ROOT = Path(__file__).resolve().parent.parent
TESTS = sorted((ROOT / "tests").glob("*.py"))
# What only a marking fixture may do, and the fixture that does it.
GATED = {
    r"AppTest\.from_file\(": "new_app",
    r"\bengine_server\(": "servers",
    r"\bengine_process\(": "servers",
    r"\brouter_server\(": "servers",
    r"\brouter_process\(": "servers",
    r"\bstart_app\(": "servers",
    # a CLI run is no server; another project's server, started as a module, is one
    r"subprocess\.Popen\([^;]{0,300}?[\"'](serve|streamlit|llama_cpp\.server)[\"']": "servers",
    r"\bsync_playwright\(": "chromium",
    r"\bconvert_bundled\(": "bundled_dir",
    r"[\"']-m[\"'],\s*[\"']engine[\"']": "cli",
}


def ungated_uses(path: Path, source: str) -> list[str]:
    """Places in a test module that do what only a marking fixture may do."""
    if path.name in ("conftest.py", Path(__file__).name):  # the fixtures themselves; this file's planted cases
        return []
    code = re.sub(r'"""[\s\S]*?"""|#[^\n]*', "", source)  # docstrings and comments may name them
    return [
        f"{path.name}: {pattern} (use the {fixture} fixture)"
        for pattern, fixture in GATED.items()
        if re.search(pattern, code)
    ]


def test_only_the_marking_fixtures_reach_the_model_pages_servers_and_browser():
    found = [hit for path in TESTS for hit in ungated_uses(path, path.read_text(encoding="utf-8"))]
    assert not found, "\n".join(found)


def test_the_gate_catches_a_planted_violation():
    planted = Path("tests/test_planted.py")
    assert ungated_uses(planted, 'at = AppTest.from_file("app.py")\n')
    assert ungated_uses(planted, "proc = subprocess.Popen(['python', '-m', 'engine', 'serve'])\n")
    (cli_run,) = ungated_uses(planted, "proc = subprocess.Popen(['python', '-m', 'engine', 'generate'])\n")
    assert cli_run.endswith("(use the cli fixture)")
    assert not ungated_uses(planted, '"""Uses AppTest.from_file( through new_app."""\nx = 1  # engine_server(\n')
    assert not ungated_uses(Path("tests/conftest.py"), "AppTest.from_file(APP)")


def test_the_gate_catches_every_way_a_test_starts_a_server():
    """Each of launch.py's servers, and a peer's server started as a module, is the servers fixture's to
    start (so the test is tiered `server`); through that fixture's methods it is allowed."""
    planted = Path("tests/test_planted.py")
    started = {
        "engine_server": "with engine_server('bundled', log) as url:\n",
        "engine_process": "with engine_process(model, log, '--role', 'decode') as (url, proc):\n",
        "router_server": "with router_server(p, d, log) as url:\n",
        "router_process": "with router_process(p, d, log) as (url, proc):\n",
        "llama_cpp": "proc = subprocess.Popen(\n    [sys.executable, '-m', 'llama_cpp.server', '--port', str(port)]\n)\n",
    }
    for way, source in started.items():
        (hit,) = ungated_uses(planted, source)
        assert hit.endswith("(use the servers fixture)"), (way, hit)
    through_the_fixture = (
        "with servers.held_engine(model, 'w.log', '--role', 'decode') as (url, proc):\n"
        "    with servers.router(p, url, 'r.log') as r:\n"
        "        pass\n"
        "with servers.command([sys.executable, '-m', 'llama_cpp.server', '--port', '{port}'], '/v1/models', 'l.log'):\n"
        "    pytest.importorskip('llama_cpp.server')\n"
    )
    assert not ungated_uses(planted, through_the_fixture)


def imported_modules(source: str) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
    return found


def test_modules_import_across_the_suite_as_allowed():
    """Test modules import helpers (tests/*_support.py, app_helpers, browser_utils...), never another test
    module; scripts/ and bench/ import nothing from tests/."""
    found = []
    for path in TESTS:
        found += [f"{path.name} imports {m}" for m in imported_modules(path.read_text()) if m.startswith("tests.test_")]
    for path in sorted((ROOT / "scripts").glob("*.py")) + sorted((ROOT / "bench").glob("*.py")):
        found += [f"{path.name} imports {m}" for m in imported_modules(path.read_text()) if m.split(".")[0] == "tests"]
    assert not found, "\n".join(found)
    assert imported_modules("from tests.test_reference import x\nimport tests.browser_utils") == {
        "tests.test_reference",
        "tests.browser_utils",
    }


def test_the_tiers_are_registered_and_make_test_fast_leaves_them_out():
    ini = configparser.ConfigParser()
    ini.read(ROOT / "pytest.ini")
    registered = {line.split(":")[0].strip() for line in ini["pytest"]["markers"].strip().splitlines()}
    assert set(MARKS.values()) | {"slow"} == registered
    assert "--strict-markers" in ini["pytest"]["addopts"]  # a misspelt marker fails instead of marking nothing
    fast = re.search(r'^test-fast:.*\n\t.*-m "not \(([^)]*)\)"', (ROOT / "Makefile").read_text(), re.M)
    assert fast and set(fast.group(1).split(" or ")) == registered


def test_a_test_is_marked_by_the_fixtures_it_uses(request):
    """The conftest hook on planted items, and on every test this session collected."""

    class Planted:
        def __init__(self, *fixtures: str):
            self.fixturenames, self.marks = list(fixtures), []

        def add_marker(self, mark: str) -> None:
            self.marks.append(mark)

        def get_closest_marker(self, name: str):
            return name if name in self.marks else None

    model, browser, plain = Planted("tiny", "bundled_dir"), Planted("chromium", "servers"), Planted("tiny")
    items = [model, browser, plain]
    pytest_collection_modifyitems(request.config, items)
    assert [sorted(i.marks) for i in (model, browser, plain)] == [["model"], ["browser", "server"], []]
    assert items == [model, plain, browser]  # the browser's event loop must not outlive asyncio.run() users
    for item in request.session.items:
        marks = {m.name for m in item.iter_markers()}
        missing = {mark for fixture, mark in MARKS.items() if fixture in item.fixturenames} - marks
        assert not missing, (item.nodeid, missing)


def test_a_busy_machine_gets_one_thread_per_test_process_and_a_quiet_one_keeps_the_default(monkeypatch):
    import tests.conftest as conftest
    from lab.busy import MachineLoad

    class Meter:  # what LoadMeter would have measured over the probe
        def __init__(self, load):
            self.load = load

        def __call__(self):
            return self

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return None

    threads = torch.get_num_threads()
    config = types.SimpleNamespace()
    try:
        monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
        monkeypatch.setattr(conftest, "LoadMeter", Meter(MachineLoad(0.1, 2, 1.0)))
        conftest._threads_for_the_machine(config, probe_s=0)
        assert "OMP_NUM_THREADS" not in os.environ and torch.get_num_threads() == threads
        monkeypatch.setenv("OMP_NUM_THREADS", "2")  # the shell's choice is kept
        monkeypatch.setattr(conftest, "LoadMeter", Meter(MachineLoad(1.0, 2, 1.0)))
        conftest._threads_for_the_machine(config, probe_s=0)
        assert os.environ["OMP_NUM_THREADS"] == "2" and torch.get_num_threads() == threads
        monkeypatch.delenv("OMP_NUM_THREADS")
        conftest._threads_for_the_machine(config, probe_s=0)
        assert os.environ["OMP_NUM_THREADS"] == "1" and torch.get_num_threads() == 1
        assert "other processes keep 1.0 of 2 cores busy" in conftest.pytest_report_header(config)
    finally:
        torch.set_num_threads(threads)
