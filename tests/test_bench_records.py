"""Bench records and the docs made from them: every bench script writes a dated JSON record (its
machine, commit, arguments, load and printed tables), and the docs' records page shows each table
with its bench, date, machine and whether the machine was busy. The docs under docs/ are tracked
sources: the site's build (scripts/docs_pages.py, an MkDocs hook) puts the tables where their
markers and placeholders are."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

from bench.record import markdown_tables, recorded
from lab.busy import MachineLoad
from scripts.docs_pages import docs_links, filled_markdown, filled_page, readme_as_home, records_page, script_of

ROOT = Path(__file__).resolve().parent.parent
HELPERS = {"record.py", "decode_parts.py", "pair_words.py"}  # imported by the benches, not run


def test_every_bench_script_writes_a_record():
    scripts = [p for p in sorted((ROOT / "bench").glob("*.py")) if p.name not in HELPERS]
    assert len(scripts) >= 8
    missing = [p.name for p in scripts if not re.search(r'with recorded\("' + p.stem + r'"\)', p.read_text())]
    assert missing == []


def test_a_bench_run_leaves_a_record_with_its_machine_and_tables(tmp_path, monkeypatch):
    monkeypatch.setattr("sys.argv", ["bench/x.py", "--repeats", "2"])
    with recorded("x", out=tmp_path):
        print("| measurement (ms) | ours | HF |")
        print("|---|---|---|")
        print("| prefill L=16 | 50.5 | 96.2 |")
        print("not a table")
    (path,) = tmp_path.glob("*-x.json")
    record = json.loads(path.read_text())
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00", record["date"])
    assert {"cpu", "isa", "threads", "cores", "torch"} <= set(record["machine"])
    assert record["argv"] == ["--repeats", "2"] and isinstance(record["busy"], bool) and record["commit"]
    assert record["tables"] == [
        {"header": ["measurement (ms)", "ours", "HF"], "rows": [["prefill L=16", "50.5", "96.2"]]}
    ]
    assert "# machine: " in record["output"] and "not a table" in record["output"]


def test_two_tables_apart_are_two_tables():
    text = "| a | b |\n|--|--|\n| 1 | 2 |\n\ntext\n| c |\n|---|\n| 3 |\n| 4 |\n"
    assert markdown_tables(text) == [
        {"header": ["a", "b"], "rows": [["1", "2"]]},
        {"header": ["c"], "rows": [["3"], ["4"]]},
    ]


def test_the_records_page_names_machine_date_and_a_busy_run(tmp_path):
    record = {
        "bench": "decode",
        "date": "2026-12-03T05:07:02+00:00",
        "commit": "abc123",
        "machine": {"cpu": "AMD EPYC", "isa": "AVX512", "threads": 2, "cores": 2, "torch": "2.13.0+cpu"},
        "argv": ["--repeats", "3"],
        "busy": True,
        "load": MachineLoad(0.6, 2, 10.0).to_dict(),
        "tables": [{"header": ["x", "y|z"], "rows": [["1", "2"]]}],
        "output": "",
    }
    (tmp_path / "2026-12-03T050702Z-decode.json").write_text(json.dumps(record))
    page = records_page(tmp_path)
    assert "## `decode`, 2026-12-03 05:07 UTC" in page
    assert "Commit `abc123` · AMD EPYC, AVX512, 2 threads of 2 cores, torch 2.13.0+cpu" in page
    assert "**busy machine**: other processes kept 0.6 of 2 cores busy" in page
    assert "| x | y\\|z |" in page and "| 1 | 2 |" in page
    assert "No records yet" in records_page(tmp_path / "none")


def test_app_links_become_docs_links():
    assert docs_links("see [C3](/claims?claim=C3) and [it](/serving)") == "see [C3](claims.md) and [it](serving.md)"


def _record(date: str, busy: bool, value: str) -> dict:
    return {
        "bench": "decode",
        "date": date,
        "commit": "abc123",
        "machine": {"cpu": "AMD EPYC", "isa": "AVX2", "threads": 2, "cores": 2, "torch": "2.13.0+cpu"},
        "argv": [],
        "busy": busy,
        "load": MachineLoad(0.9 if busy else 0.0, 2, 10.0).to_dict(),
        "tables": [{"header": ["measurement", "ms"], "rows": [["TPOT", value]]}],
        "output": "",
    }


def test_a_page_takes_each_table_from_the_newest_quiet_record(tmp_path):
    for name, date, busy, value in [
        ("2026-12-01T000000Z-decode.json", "2026-12-01T00:00:00+00:00", False, "41.0"),
        ("2026-12-02T000000Z-decode.json", "2026-12-02T00:00:00+00:00", False, "40.0"),
        ("2026-12-03T000000Z-decode.json", "2026-12-03T00:00:00+00:00", True, "90.0"),  # newer, but busy
    ]:
        (tmp_path / name).write_text(json.dumps(_record(date, busy, value)))
    page = filled_page("Intro.\n\n<!-- record: decode 0 -->\n\n<!-- record: decode 1 -->\n", tmp_path)
    assert "| TPOT | 40.0 |" in page and "90.0" not in page and "41.0" not in page
    assert "2026-12-02 00:00 UTC, commit `abc123`: AMD EPYC, AVX2" in page and "quiet machine" in page
    assert "record `bench/results/2026-12-02T000000Z-decode.json`" in page
    assert "No record of `bench/decode.py` with this table yet" in page  # table 1 does not exist
    assert "<!--" not in page
    (tmp_path / "2026-12-02T000000Z-decode.json").unlink()
    (tmp_path / "2026-12-01T000000Z-decode.json").unlink()
    busy_only = filled_page("<!-- record: decode 0 -->", tmp_path)  # only a busy record: shown, and said
    assert "| TPOT | 90.0 |" in busy_only and "**busy machine**" in busy_only


def test_a_gpu_record_fills_only_the_markers_that_ask_for_it(tmp_path):
    cpu = _record("2026-12-01T00:00:00+00:00", False, "40.0")
    gpu = _record("2026-12-02T00:00:00+00:00", False, "11.0") | {"argv": ["--device", "cuda"]}
    gpu["machine"] = gpu["machine"] | {"gpu": "NVIDIA H200"}
    (tmp_path / "2026-12-01T000000Z-decode.json").write_text(json.dumps(cpu))
    (tmp_path / "2026-12-02T000000Z-decode.json").write_text(json.dumps(gpu))  # newer, but on a GPU
    page = filled_page("<!-- record: decode 0 -->\n\n<!-- record: decode 0 cuda -->\n", tmp_path)
    cpu_part, gpu_part = page.split("\n\n| measurement")
    assert "| TPOT | 40.0 |" in cpu_part and "11.0" not in cpu_part and "H200" not in cpu_part
    assert "| TPOT | 11.0 |" in gpu_part and "NVIDIA H200 (host: AMD EPYC, AVX2" in gpu_part
    assert "No record of `bench/serving.py` on cuda" in filled_page("<!-- record: serving 0 cuda -->", tmp_path)


def test_every_record_marker_of_the_docs_names_a_script_that_writes_it():
    """A marker names a bench/ script, or a scripts/ one for measurements of the app itself."""
    for template in (ROOT / "docs").glob("*.md"):
        for bench, *_ in re.findall(r"^<!-- record: (\w+) (\d+)( \w+)? -->$", template.read_text(), re.MULTILINE):
            script = ROOT / script_of(bench)
            assert script.exists(), (template.name, bench)
            assert f'recorded("{bench}"' in script.read_text(), (script.name, bench)
    assert script_of("decode") == "bench/decode.py" and script_of("soak_app") == "scripts/soak_app.py"
    assert script_of("ci_time") == "scripts/suite_times.py"


def test_a_marker_and_its_placeholder_become_the_table(tmp_path):
    """The italic line under a marker is what a forge shows; the built page has the table instead."""
    (tmp_path / "2026-12-01T000000Z-decode.json").write_text(
        json.dumps(_record("2026-12-01T00:00:00+00:00", False, "40.0"))
    )
    source = "Intro.\n\n<!-- record: decode 0 -->\n*Filled in when the site is built.*\n\nAfter.\n"
    page = filled_page(source, tmp_path)
    assert "| TPOT | 40.0 |" in page and "Filled in" not in page and "After." in page
    bold = filled_page("<!-- record: decode 0 -->\n**Errors.** a paragraph of its own\n", tmp_path)
    assert "**Errors.** a paragraph of its own" in bold  # only an italic line is a placeholder
    records = filled_markdown("# Bench records\n\n<!-- records -->\n*Every record, when built.*\n", tmp_path)
    assert "## `decode`, 2026-12-01 00:00 UTC" in records and "when built" not in records


def test_every_docs_page_reads_on_a_forge_and_is_filled_in_when_built():
    """Each marker under docs/ has its placeholder (a forge shows no HTML comment), and the built
    Markdown keeps no marker and no placeholder."""
    marker = re.compile(r"^<!-- (record: \w+ \d+( \w+)?|records|source) -->$", re.MULTILINE)
    for page in sorted((ROOT / "docs").glob("*.md")):
        text = page.read_text(encoding="utf-8")
        for found in marker.finditer(text):
            placeholder = text[found.end() :].split("\n", 2)[1]
            assert placeholder.startswith("*Filled in when the site is built"), (page.name, found.group(0))
        built = filled_markdown(text)
        assert "<!-- record" not in built and "Filled in when the site is built" not in built, page.name
    assert "## 5.1 · " in filled_markdown((ROOT / "docs" / "source.md").read_text(encoding="utf-8"))


def test_the_readme_is_the_sites_home_with_the_sites_links():
    readme = "![shot](docs/screenshots/a.png) [Deploy](docs/sharing.md), [`docs/`](docs/), [LICENSE](LICENSE), [w](https://x.org)"
    home = readme_as_home(readme)
    assert home == "![shot](screenshots/a.png) [Deploy](sharing.md), `docs/`, LICENSE, [w](https://x.org)"
    assert "## Quick start" in filled_markdown((ROOT / "docs" / "index.md").read_text(encoding="utf-8"))


def test_suite_times_read_pytests_closing_line():
    from scripts.suite_times import summary

    assert summary("..\n=== 800 passed, 1 skipped in 1373.93s (0:22:53) ===\n") == ("800 passed, 1 skipped", 1373.93)
    assert summary("505 passed, 295 deselected in 115.35s (0:01:55)") == ("505 passed, 295 deselected", 115.35)
    assert summary("ERROR: usage") == ("no summary", None)


def test_a_bench_that_exits_with_its_code_still_leaves_its_record(tmp_path, monkeypatch):
    """bench/soak.py ended in sys.exit inside the record's block, so no soak had ever been recorded."""
    monkeypatch.setattr("sys.argv", ["bench/soak.py"])
    with pytest.raises(SystemExit) as e, recorded("soak", out=tmp_path):
        print("| server | growth |\n|---|---|\n| engine serve | +60.2 |")
        sys.exit(1)  # over its limit: a failed check, and still a measurement
    assert e.value.code == 1
    (path,) = tmp_path.glob("*-soak.json")
    assert json.loads(path.read_text())["tables"] == [
        {"header": ["server", "growth"], "rows": [["engine serve", "+60.2"]]}
    ]


@pytest.mark.parametrize("code", [0, 2])
def test_help_or_a_usage_error_leaves_no_record(tmp_path, monkeypatch, code):
    """`bench/x.py --help` (exit 0) and a bad argument (exit 2) end before the bench runs."""
    monkeypatch.setattr("sys.argv", ["bench/x.py", "--help"])
    with pytest.raises(SystemExit), recorded("x", out=tmp_path):
        print("usage: x.py [-h]")
        sys.exit(code)
    assert not list(tmp_path.glob("*.json"))
