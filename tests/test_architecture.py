"""The house rules, read from the code itself: imports run one way, engine <- lab <- ui <- app_pages <-
app.py (bench uses engine and lab only); inside engine/, folders in the order of its data path; no
import cycle in engine/, lab/ or ui/ (imports inside functions counted); no page folder imports
another; ui/ holds only what more than one page (or the frame) uses; every page folder is in the one
table of pages."""

from __future__ import annotations

import ast
import importlib
import os
import re
import subprocess
from pathlib import Path

import pytest

from app_pages import PAGES

ROOT = Path(__file__).resolve().parent.parent
LAYERS = ("engine", "lab", "ui", "app_pages", "bench")
# What each layer may not import (a package, or a top-level module of a third-party library).
FORBIDDEN = {
    "engine": ("lab", "ui", "app_pages", "app", "streamlit", "plotly"),
    "lab": ("ui", "app_pages", "app", "streamlit", "plotly"),
    "ui": ("app_pages", "app"),
    "app_pages": ("app",),
    "bench": ("ui", "app_pages", "app", "streamlit"),
}


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path, root: Path) -> set[str]:
    """Every module a file imports, anywhere in it (functions included), relative imports resolved."""
    package = module_name(path, root).split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = (
                ".".join(package[: len(package) - node.level + 1] + [node.module or ""]) if node.level else node.module
            )
            base = base.strip(".")
            found.add(base)
            found |= {f"{base}.{a.name}" for a in node.names}  # `from pkg import module`
    return found


def layer_files(root: Path) -> list[Path]:
    files = [p for layer in LAYERS for p in sorted((root / layer).rglob("*.py"))]
    return files + [root / "app.py"] if (root / "app.py").exists() else files


def page_of(module: str, root: Path = ROOT) -> str | None:
    """The page folder a module is in (None for app_pages itself, or a name imported from it)."""
    parts = module.split(".")
    is_page = parts[0] == "app_pages" and len(parts) > 1 and (root / "app_pages" / parts[1]).is_dir()
    return parts[1] if is_page else None


def violations(root: Path) -> list[str]:
    """Every import edge against the house order, as 'file: imports X'."""
    found = []
    for path in layer_files(root):
        me = module_name(path, root)
        layer = me.split(".")[0]
        for imported in sorted(imports_of(path, root)):
            top = imported.split(".")[0]
            if top in FORBIDDEN.get(layer, ()):
                found.append(f"{path.relative_to(root)}: imports {imported}")
            elif (
                layer == "app_pages" and page_of(me, root) and page_of(imported, root) not in (None, page_of(me, root))
            ):
                found.append(f"{path.relative_to(root)}: imports another page's {imported}")
    return found


def test_imports_follow_the_layers():
    assert violations(ROOT) == []


@pytest.mark.parametrize(
    "planted, layer_file",
    [
        ("import streamlit", "engine/bad.py"),
        ("from lab.claims import CLAIM_IDS", "engine/bad.py"),
        ("from ui.i18n import t", "lab/bad.py"),
        ("import plotly.graph_objects as go", "lab/bad.py"),
        ("from app_pages.serving.panels import blocks_panel", "ui/bad.py"),
        ("from app_pages.serving import panels", "app_pages/memory/bad.py"),
        ("from ..serving import panels", "app_pages/memory/bad.py"),
        ("from ui.models import load_for_page", "bench/bad.py"),
        ("def f():\n    import streamlit as st", "bench/bad.py"),
    ],
)
def test_a_planted_bad_import_is_caught(tmp_path, planted, layer_file):
    """A test of the test: one wrong edge in an otherwise good tree is reported, by file."""
    for package in ("engine", "lab", "ui", "app_pages", "app_pages/memory", "app_pages/serving", "bench"):
        (tmp_path / package).mkdir(parents=True, exist_ok=True)
        (tmp_path / package / "__init__.py").write_text("")
    (tmp_path / "app_pages/memory/good.py").write_text(
        "from app_pages import PAGES\nfrom app_pages.memory import x\nfrom ui.i18n import t\nfrom lab.claims import C\n"
    )
    (tmp_path / "ui/good.py").write_text("import streamlit\nfrom lab.verdicts import Verdict\n")
    assert violations(tmp_path) == []
    (tmp_path / layer_file).write_text(planted + "\n")
    assert {v.split(":")[0] for v in violations(tmp_path)} == {layer_file}


# engine/'s folders along its data path, lowest first: a module may import its own folder and the
# folders before it, never one after. The flat modules (errors, paths, config, sampling_params) are the
# ground; `engine/__main__.py` only hands over to the command line, so it stands with the entrypoints.
ENGINE_FLOORS = ("", "observe", "sched", "kernels", "layers", "models", "loader", "worker", "core", "entrypoints")
MAX_FLAT_ENGINE_MODULES = 8
CYCLE_FREE = ("engine", "lab", "ui")


def engine_floor(module: str) -> int | None:
    """The floor of an engine module: its folder's place in ENGINE_FLOORS (None: not engine's)."""
    parts = module.split(".")
    if parts[0] != "engine":
        return None
    if parts[1:] == ["__main__"]:
        return ENGINE_FLOORS.index("entrypoints")
    folder = parts[1] if len(parts) > 2 or (len(parts) == 2 and parts[1] in ENGINE_FLOORS) else ""
    return ENGINE_FLOORS.index(folder) if folder in ENGINE_FLOORS else None


def module_files(root: Path, package: str) -> dict[str, Path]:
    return {module_name(p, root): p for p in sorted((root / package).rglob("*.py"))}


def import_graph(root: Path, package: str) -> dict[str, set[str]]:
    """Module -> the modules of the same package it imports, anywhere in its file (inside functions too).
    `from pkg import name` counts as importing pkg.name where that is a module, else pkg."""
    files = module_files(root, package)
    graph = {}
    for me, path in files.items():
        graph[me] = {m for m in imports_of(path, root) if m in files and m != me}
    return graph


def engine_floor_violations(root: Path) -> list[str]:
    """Every import from a lower engine folder to a higher one, as 'file: imports X'."""
    found = []
    for me, path in module_files(root, "engine").items():
        mine = engine_floor(me)
        if mine is None:
            found.append(f"{path.relative_to(root)}: in no folder of ENGINE_FLOORS")
            continue
        for imported in sorted(import_graph(root, "engine")[me]):
            theirs = engine_floor(imported)
            if theirs is not None and theirs > mine and not root.joinpath(*imported.split(".")).is_dir():
                found.append(f"{path.relative_to(root)}: imports {imported}, a floor above its own")
    return found


def import_cycles(root: Path, package: str) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm): the cycles."""
    graph = import_graph(root, package)
    graph = {m: {d for d in deps if not root.joinpath(*d.split(".")).is_dir()} for m, deps in graph.items()}
    index, low, stack, on_stack, cycles = {}, {}, [], set(), []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return cycles


def test_engine_folders_follow_the_data_path():
    assert engine_floor_violations(ROOT) == []
    flat = [p.name for p in (ROOT / "engine").glob("*.py")]
    assert len(flat) <= MAX_FLAT_ENGINE_MODULES, flat


@pytest.mark.parametrize("package", CYCLE_FREE)
def test_no_import_cycles(package):
    assert import_cycles(ROOT, package) == []


def test_a_planted_cycle_and_a_floor_inversion_are_caught(tmp_path):
    """A test of the two tests above: an import inside a function closes a cycle; a low folder that
    imports a high one is named."""
    for folder in ("engine", "engine/layers", "engine/core", "lab"):
        (tmp_path / folder).mkdir(parents=True, exist_ok=True)
        (tmp_path / folder / "__init__.py").write_text("")
    (tmp_path / "engine/errors.py").write_text("")
    (tmp_path / "engine/layers/a.py").write_text("from engine.errors import X\n")
    (tmp_path / "engine/core/b.py").write_text("from engine.layers.a import f\n")
    (tmp_path / "lab/one.py").write_text("from lab import two\n")
    (tmp_path / "lab/two.py").write_text("def f():\n    from lab.one import g\n")
    assert engine_floor_violations(tmp_path) == [] and import_cycles(tmp_path, "engine") == []
    assert import_cycles(tmp_path, "lab") == [["lab.one", "lab.two"]]
    (tmp_path / "engine/layers/a.py").write_text("def f():\n    from engine.core import b\n")
    assert engine_floor_violations(tmp_path) == ["engine/layers/a.py: imports engine.core.b, a floor above its own"]
    assert import_cycles(tmp_path, "engine") == [["engine.core.b", "engine.layers.a"]]


def users_by_page() -> dict[str, set[str]]:
    """For each ui module, the pages (and 'frame' for app.py) that reach it, directly or through ui."""
    ui_imports = {
        module_name(p, ROOT): {m for m in imports_of(p, ROOT) if m.startswith("ui.")}
        for p in (ROOT / "ui").glob("*.py")
    }
    users: dict[str, set[str]] = {m: set() for m in ui_imports}

    def reach(user: str, start: set[str]) -> None:
        todo, seen = list(start), set()
        while todo:
            m = todo.pop()
            if m in seen or m not in ui_imports:
                continue
            seen.add(m)
            users[m].add(user)
            todo += ui_imports[m]

    for path in (ROOT / "app_pages").rglob("*.py"):
        if page_of(module_name(path, ROOT)):
            reach(page_of(module_name(path, ROOT)), imports_of(path, ROOT))
    reach("frame", imports_of(ROOT / "app.py", ROOT))
    return users


def test_ui_holds_only_what_several_pages_share():
    """A module one page uses lives in that page's folder; it moves to ui/ when a second one needs it."""
    alone = {m: sorted(u) for m, u in users_by_page().items() if len(u) == 1 and "frame" not in u}
    unused = sorted(m for m, u in users_by_page().items() if not u and m != "ui" and not m.startswith("ui.strings_"))
    assert alone == {} and unused == []


def test_urls_stay_as_they_were():
    """Share links and bookmarks use them (the browser test opens each one)."""
    assert [(p.name, p.url_path) for p in PAGES] == [
        (n, n)
        for n in (
            "playground",
            "memory",
            "complexity",
            "serving",
            "compare",
            "roofline",
            "sweeps",
            "claims",
            "remote",
            "precision",
            "speculative",
            "disaggregation",
            "source",
        )
    ]
    assert [p.name for p in PAGES if p.is_default] == ["playground"]


def test_every_page_folder_is_in_the_table_and_has_a_page():
    folders = {p.name for p in (ROOT / "app_pages").iterdir() if p.is_dir() and p.name != "__pycache__"}
    assert folders == {p.name for p in PAGES}
    for p in PAGES:
        assert (ROOT / p.file).is_file() and (ROOT / "app_pages" / p.name / "strings.py").is_file()
    assert len({p.url_path for p in PAGES}) == len(PAGES) and sum(p.is_default for p in PAGES) == 1
    assert not (ROOT / "pages").exists()  # a pages/ folder beside app.py: Streamlit's legacy mode


def literal_state_keys(path: Path) -> list[str]:
    """String literals a module uses as a session-state key: key=..., st.session_state[...] or .get(...)
    (and the same through a local name for st.session_state, such as `s = st.session_state`)."""
    tree = ast.parse(path.read_text())
    aliases = {
        t.id
        for n in ast.walk(tree)
        if isinstance(n, ast.Assign) and isinstance(n.value, ast.Attribute) and n.value.attr == "session_state"
        for t in n.targets
        if isinstance(t, ast.Name)
    }

    def is_state(node: ast.expr) -> bool:
        return (isinstance(node, ast.Attribute) and node.attr == "session_state") or (
            isinstance(node, ast.Name) and node.id in aliases
        )

    found = []
    for node in ast.walk(tree):
        key = None
        if isinstance(node, ast.keyword) and node.arg == "key":
            key = node.value
        elif isinstance(node, ast.Subscript) and is_state(node.value):
            key = node.slice
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and is_state(node.func.value)
            and node.func.attr in ("get", "pop", "setdefault")
            and node.args
        ):
            key = node.args[0]
        if isinstance(key, (ast.Constant, ast.JoinedStr)):
            found.append(ast.unparse(key))
    return found


def test_a_literal_state_key_is_found(tmp_path):
    """A test of the test below: each way of writing a key as a literal is caught."""
    bad = tmp_path / "bad.py"
    bad.write_text(
        'import streamlit as st\ns = st.session_state\nst.button("x", key="pg_a")\n'
        's["pg_b"] = 1\nst.session_state.get("pg_c")\nst.text_input("y", key=f"pg_{1}")\n'
    )
    assert sorted(literal_state_keys(bad)) == ["'pg_a'", "'pg_b'", "'pg_c'", "f'pg_{1}'"]


def test_each_page_names_its_state_keys_in_its_keys_module():
    """A page's session-state keys are constants in its keys.py, and no two pages share a key."""
    literal = {str(p.relative_to(ROOT)): literal_state_keys(p) for p in (ROOT / "app_pages").glob("*/*.py")}
    assert {f: k for f, k in literal.items() if k} == {}
    owner: dict[str, str] = {}
    for page in PAGES:
        module = importlib.import_module(f"app_pages.{page.name}.keys")
        for name, value in vars(module).items():
            if name.isupper() and isinstance(value, str):
                assert owner.setdefault(value, page.name) == page.name, (
                    f"{value} is a key of {owner[value]} and {page.name}"
                )


TRACKER_REFERENCE = re.compile(r"\b[Ii]ssue #?\d|\bticket #?\d|\(#\d+\)")
TEXT_SUFFIXES = {".py", ".md", ".toml", ".txt", ".ini", ".cfg", ".yml", ".yaml"}


def tracker_references(root: Path) -> list[str]:
    """Lines that cite a tracker number ("issue #12", "Issue 16.4"): a reader of the repository
    cannot open them; code and docs say what a rule is instead."""
    found = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d != "node_modules")  # .venv never walked
        for name in sorted(files):
            path = Path(folder) / name
            if path.suffix not in TEXT_SUFFIXES or path == Path(__file__).resolve():  # this rule's own examples
                continue
            for n, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
                if TRACKER_REFERENCE.search(line):
                    found.append(f"{path.relative_to(root)}:{n}: {line.strip()[:120]}")
    return found


def test_no_tracker_numbers_in_code_or_docs(tmp_path):
    assert tracker_references(ROOT) == []
    (tmp_path / "planted.py").write_text('"""Fixed as issue 16.9 asked."""\n# see (#14)\n')
    assert len(tracker_references(tmp_path)) == 2


RELATIVE_LINK = re.compile(r"\]\((?!https?:|mailto:|#|/)([^)\s#?]+)")  # a link or image into the tree


def tracked_paths(root: Path) -> set[str]:
    """What a fresh clone and a forge hold: the tracked files and every folder above one."""
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=root, capture_output=True, text=True, check=True)
    files = {f for f in listed.stdout.split("\0") if f}
    return files | {str(parent) for f in files for parent in Path(f).parents if parent != Path(".")}


def broken_links(page: Path, root: Path, tracked: set[str]) -> list[str]:
    """The page's relative links whose target is not tracked: a 404 on a forge and in a fresh clone."""
    broken = []
    for link in RELATIVE_LINK.findall(page.read_text(encoding="utf-8")):
        target = os.path.relpath(os.path.normpath(page.parent / link), root)
        if target not in tracked:
            broken.append(f"{page.relative_to(root)}: {link}")
    return broken


def test_every_link_of_the_readme_and_the_docs_is_a_tracked_file(tmp_path):
    if not (ROOT / ".git").exists():
        pytest.skip("not a git checkout: nothing says which files are tracked")
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    tracked = tracked_paths(ROOT)
    assert [b for page in pages for b in broken_links(page, ROOT, tracked)] == []  # `git add` a new page
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text("[b](b.md), [up](../src/), [web](https://x.org/y.md), [top](#t)")
    assert broken_links(tmp_path / "docs" / "a.md", tmp_path, {"docs", "docs/a.md", "src"}) == ["docs/a.md: b.md"]


def test_readme_is_a_front_door():
    """What the lab is, how to start it and where the rest lives: every guide in docs/ is a link."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 200
    assert "make run" in readme and "make test" in readme and "make docs" in readme
    guides = {f"docs/{p.name}" for p in (ROOT / "docs").glob("*.md")} - {"docs/index.md"}  # the site's home
    assert guides <= set(RELATIVE_LINK.findall(readme)), sorted(guides - set(RELATIVE_LINK.findall(readme)))
