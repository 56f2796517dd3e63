"""The docs' tables made from the project's own data, filled in as the site is built: an MkDocs hook
(mkdocs.yml's `hooks:`), so every page under docs/ is a tracked source that also reads on a forge.

    <!-- record: BENCH N -->       table N of BENCH's newest CPU record (a quiet one if there is one) and
                                   the line that names the record, its date, commit and machine;
                                   `<!-- record: BENCH N cuda -->` takes it from the runs on a GPU
    <!-- records -->               every bench record under bench/results/ (docs/records.md): each table
                                   with its bench, date, commit, machine and whether other processes
                                   shared it (bench/record.py)
    <!-- source -->                the source document's sections and claims, in the lab's words: the
                                   app's Source page (app_pages/source/), in English (docs/source.md)
    <!-- readme -->                the README, its links made the site's own: the home page (docs/index.md)
    <!-- gallery -->               every page's screenshots at each width and in each language, those
                                   taken so far (docs/gallery.md; scripts/shot_gallery.py)

A marker's next line, when it is an italic line, is what a reader of the Markdown sees instead (on a
forge, say "filled in from bench/results/ when the site is built"); the build replaces both.
`make docs` builds the site; `.venv/bin/mkdocs serve` rebuilds it as the docs or the records change.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.record import RESULTS  # noqa: E402
from scripts.shot_gallery import gallery_page  # noqa: E402

PLACEHOLDER = r"(?:\n\*(?!\*)[^\n]+\*)?$"  # the italic line a forge shows where the build puts the data
MARK = re.compile(r"^<!-- record: (\w+) (\d+)(?: (\w+))? -->" + PLACEHOLDER, re.MULTILINE)
RECORDS_MARK = re.compile(r"^<!-- records -->" + PLACEHOLDER, re.MULTILINE)
SOURCE_MARK = re.compile(r"^<!-- source -->" + PLACEHOLDER, re.MULTILINE)
README_MARK = re.compile(r"^<!-- readme -->" + PLACEHOLDER, re.MULTILINE)
GALLERY_MARK = re.compile(r"^<!-- gallery -->" + PLACEHOLDER, re.MULTILINE)


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def _when(record: dict) -> str:
    return f"{record['date'][:16].replace('T', ' ')} UTC"


def record_device(record: dict) -> str:
    """The device a bench ran on: what its --device argument named, else the CPU."""
    argv = record["argv"]
    for i, arg in enumerate(argv):
        if arg == "--device" and i + 1 < len(argv):
            return argv[i + 1]
        if arg.startswith("--device="):
            return arg.split("=", 1)[1]
    return "cpu"


def _machine(record: dict) -> str:
    m = record["machine"]
    host = f"{m['cpu']}, {m['isa']}, {m['threads']} threads of {m['cores']} cores, torch {m['torch']}"
    if record_device(record) != "cpu":
        return f"{m.get('gpu') or record_device(record)} (host: {host})"
    return host


def _load(record: dict) -> str:
    """Quiet, or how busy other processes kept the machine while the bench ran."""
    if not record["busy"]:
        return "quiet machine"
    load = record.get("load") or {}
    return (
        f"**busy machine**: other processes kept {load.get('other_cores', 0):.1f} of {load.get('cores')} cores "
        "busy, so its times and ratios are not the engine's own"
    )


def _args(record: dict) -> str:
    return " ".join(record["argv"]) or "(defaults)"


def record_section(record: dict, name: str) -> list[str]:
    out = [
        f"## `{record['bench']}`, {_when(record)}",
        "",
        f"Commit `{record['commit']}` · {_machine(record)} · {_load(record)} · arguments: `{_args(record)}` · "
        f"record: `bench/results/{name}`",
        "",
    ]
    for table in record["tables"]:
        out += [*table_lines(table), ""]
    if not record["tables"]:
        out += ["```text", record["output"].rstrip(), "```", ""]
    return out


def table_lines(table: dict) -> list[str]:
    return [
        "| " + " | ".join(_cell(h) for h in table["header"]) + " |",
        "|" + "---|" * len(table["header"]),
        *("| " + " | ".join(_cell(c) for c in row) + " |" for row in table["rows"]),
    ]


def newest_record(bench: str, results: Path = RESULTS, device: str = "cpu") -> tuple[str, dict] | None:
    """The newest record of a bench run on `device` on a quiet machine, else its newest there:
    (file name, record)."""
    found = [(p.name, json.loads(p.read_text(encoding="utf-8"))) for p in sorted(results.glob(f"*-{bench}.json"))]
    found = [f for f in found if record_device(f[1]) == device]
    quiet = [f for f in found if not f[1]["busy"]]
    return (quiet or found)[-1] if found else None


WRITTEN_BY = {"ci_time": "suite_times"}  # records a script writes under another name than its own


def script_of(bench: str) -> str:
    """The script that writes a bench's records: bench/ for the engine and lab, scripts/ for
    measurements of the app itself (bench/ imports no page code)."""
    name = WRITTEN_BY.get(bench, bench)
    return f"scripts/{name}.py" if (ROOT / "scripts" / f"{name}.py").exists() else f"bench/{name}.py"


def provenance(record: dict, name: str) -> str:
    return (
        f"*`{script_of(record['bench'])} {_args(record)}`, {_when(record)}, commit `{record['commit']}`: "
        f"{_machine(record)}, {_load(record)}; record `bench/results/{name}`.*"
    )


def filled_page(template: str, results: Path = RESULTS) -> str:
    """A page's `<!-- record: BENCH N -->` lines (and the placeholder under each) replaced by that table
    and where it comes from."""

    def table(match: re.Match) -> str:
        bench, index, device = match.group(1), int(match.group(2)), match.group(3) or "cpu"
        found = newest_record(bench, results, device)
        if found is None or index >= len(found[1]["tables"]):
            on = f" on {device}" if device != "cpu" else ""
            return f"*No record of `{script_of(bench)}`{on} with this table yet: run the bench to fill it in.*"
        name, record = found
        return "\n".join([*table_lines(record["tables"][index]), "", provenance(record, name)])

    return MARK.sub(table, template)


def records_page(results: Path = RESULTS) -> str:
    """Every record, newest first (the names start with the date): the body of docs/records.md."""
    files = sorted(results.glob("*.json"), reverse=True)
    if not files:
        return "No records yet: run a bench (`.venv/bin/python bench/decode.py`) to write one.\n"
    out = []
    for path in files:
        out += record_section(json.loads(path.read_text(encoding="utf-8")), path.name)
    return "\n".join(out)


def docs_links(text: str) -> str:
    """The app's own links ("/claims?claim=C3", "/serving") point at the docs page of that page."""
    return re.sub(r"\]\(/([a-z]+)(\?[^)]*)?\)", lambda m: f"]({m.group(1)}.md)", text)


def source_page() -> str:
    """The source page's introduction and sections, as the app's Source page words them: the body of
    docs/source.md."""
    from app_pages import BY_NAME
    from app_pages.source.sections import SECTIONS, intro_numbers, pages_of
    from app_pages.source.strings import t

    out = [t("src_intro", "en", **intro_numbers()), ""]
    for section in SECTIONS:
        title = t(f"src_{section.key}_title", "en")
        out += [f"## {section.number} · {title}" if section.number else f"## {title}", ""]
        out += [t(f"src_{section.key}_text", "en"), ""]
        pages = ", ".join(t(BY_NAME[name].title_key, "en") for name in pages_of(section))
        out += [f"Claims: {', '.join(section.claims)}; shown on: {pages}.", ""]
    return docs_links("\n".join(out))


def readme_as_home(readme: str) -> str:
    """The README as the site's home page: its links into docs/ become the site's own, and a link to
    anything else in the repository (a folder, LICENSE) becomes its text, which the site does not hold."""

    def link(match: re.Match) -> str:
        text, target = match.group(1), match.group(2)
        if target.startswith("docs/") and target != "docs/":
            return f"[{text}]({target.removeprefix('docs/')})"
        return text

    return re.sub(r"\[([^\]]*)\]\((?!https?:|mailto:|#)([^)]+)\)", link, readme)


def filled_markdown(markdown: str, results: Path = RESULTS) -> str:
    """A docs page with every marker replaced by what it stands for."""
    markdown = filled_page(markdown, results)
    markdown = RECORDS_MARK.sub(lambda _: records_page(results).rstrip(), markdown)
    markdown = README_MARK.sub(lambda _: readme_as_home((ROOT / "README.md").read_text(encoding="utf-8")), markdown)
    markdown = GALLERY_MARK.sub(lambda _: gallery_page().rstrip(), markdown)
    return SOURCE_MARK.sub(lambda _: source_page().rstrip(), markdown)  # its strings load only where asked


def on_page_markdown(markdown: str, **_: object) -> str:
    """MkDocs' hook: each page's Markdown before it is rendered (and its links checked)."""
    return filled_markdown(markdown)
