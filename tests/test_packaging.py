"""The package: pyproject.toml declares what the code imports, requirements.txt (the lock `make`
installs) pins versions inside those ranges, and the `pdlab` command is the engine's CLI."""

from __future__ import annotations

import ast
import importlib
import sys
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parent.parent
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
IMPORT_TO_DIST = {"PIL": "pillow"}  # import names that differ from the distribution's
OPTIONAL = {"pynvml"}  # imported only when there is a GPU (lab/nvml.py says so when it is missing)
OURS = {"engine", "lab", "ui", "app_pages", "app", "__future__"}


def declared(group: list[str]) -> dict[str, Requirement]:
    return {canonicalize_name(r.name): r for r in map(Requirement, group)}


def locked() -> dict[str, str]:
    pins = {}
    for line in (ROOT / "requirements.txt").read_text().splitlines():
        if "==" in line and not line.startswith("#"):
            name, version = line.split("==")
            pins[canonicalize_name(name)] = version.strip()
    return pins


def third_party_imports() -> set[str]:
    files = [ROOT / "app.py", *[p for d in ("engine", "lab", "ui", "app_pages") for p in (ROOT / d).rglob("*.py")]]
    found = set()
    for path in files:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                found |= {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                found.add(node.module.split(".")[0])
    return found - set(sys.stdlib_module_names) - OURS - OPTIONAL


def test_every_import_of_the_code_is_a_declared_dependency():
    deps = declared(PROJECT["dependencies"])
    missing = {m for m in third_party_imports() if canonicalize_name(IMPORT_TO_DIST.get(m, m)) not in deps}
    assert third_party_imports() and missing == set()


def test_the_lock_pins_every_dependency_inside_its_range():
    pins = locked()
    for group in (PROJECT["dependencies"], PROJECT["optional-dependencies"]["test"]):
        for name, req in declared(group).items():
            assert name in pins, f"{name} is not pinned in requirements.txt"
            assert req.specifier.contains(pins[name]), f"{name}=={pins[name]} is outside {req.specifier}"


def test_pdlab_is_the_engine_command():
    module, func = PROJECT["scripts"]["pdlab"].split(":")
    assert getattr(importlib.import_module(module), func) is importlib.import_module("engine.entrypoints.cli").main
