"""One-off: the app's (en, zh) string tables -> gettext catalogues (assets/locale/<lang>/LC_MESSAGES/messages.po).

Reads each table with `ast` (never imports it), so it runs on any branch's tables:

    python scripts/convert_strings.py            # convert the tables of this tree, write both .po files
    python scripts/convert_strings.py --merge    # add only the keys the catalogues lack (a merged branch's
                                                 # new keys), then delete their tables by hand

A page's table becomes the msgctxt of its folder name; the frame's, the kit's, the verdicts' and the
load-capacity words share the context "shared". The "(s)" plurals and the `_1` keys become ngettext
plurals counted by `n`. Comments beside an entry become its notes (`#.`) for translators.
"""

from __future__ import annotations

import argparse
import ast
import io
import re
import sys
import tokenize
from datetime import UTC, datetime
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po, write_po

ROOT = Path(__file__).resolve().parent.parent
LOCALES = ROOT / "assets" / "locale"
SHARED = "shared"
LANGS = {"en": "en", "zh": "zh_Hans"}  # folder -> the Language header (Babel's locale: plural rule)
SHARED_TABLES = [
    ("ui/strings_common.py", "STRINGS"),
    ("ui/strings_kit.py", "STRINGS"),
    ("lab/verdict_texts.py", "VERDICT_TEXTS"),
]
PAGE_ORDER = [
    "playground", "memory", "complexity", "serving", "compare", "roofline", "sweeps", "claims",
    "remote", "precision", "speculative", "disaggregation", "source",
]  # fmt: skip
PLURALS = {
    "queue_ahead",
    "live_status",
    "live_kv_blocks",
    "run_stopped",
    "pr_stopped",
    "rm_connected",
    "rm_plan_line",
    "rm_imported",
}
# "(s)" where nothing is counted: said in words
WORDED = {"timings_caption": ("the step(s) behind", "the step or steps behind")}
RENAMED_FIELDS = {"live_status": {"n": "generated", "T": "n"}, "rm_imported": {"runs": "n"}}

# Words that lived outside the tables: lab/capacity.py, lab/capacity_cause.py, lab/remote_client.py, the
# default prompts of two pages, and the sidebar's name of each language.
EXTRA_SHARED: dict[str, tuple] = {
    "language_name": ("English", "简体中文", "the language's own name, as the sidebar lists it"),
    "remote_chunks": (("{n} chunk", "{n} chunks"), ("{n} 个数据块",), "a count of streamed chunks"),
    "search_slo_threshold": ("{name} ≤ {ms:g} ms", "{name} ≤ {ms:g} ms", "one objective of an SLO"),
    "search_why": (": {cause}", "：{cause}", "after “breaks first”: why it broke"),
    "search_busy": (
        "Unreliable, the machine was busy during the search: {answer}",
        "结果不可靠，搜索期间机器正忙：{answer}",
        "before the answer of a capacity search timed on a busy machine",
    ),
    "slo_cause_peaks": (
        "{cause}; up to {running} running and {waiting} waiting at once",
        "{cause}；同时最多 {running} 个运行、{waiting} 个等待",
        "a cause with the gauges' peaks over the load",
    ),
    "slo_cause_peak_running": (
        "{cause}; up to {running} running at once",
        "{cause}；同时最多 {running} 个运行",
        "a cause with the running gauge's peak (the waits fell between the reads)",
    ),
}
EXTRA_PAGES: dict[str, dict[str, tuple]] = {
    "playground": {
        "pg_default_prompt": (
            "What is the capital of France?",
            "法国的首都是哪里？",
            "the prompt box's first text",
        )
    },
    "compare": {
        "cmp_default_prompt": (
            "Explain in two sentences why the sky is blue.",
            "用两句话解释天空为什么是蓝色的。",
            "every column's first prompt",
        )
    },
}


def literal(path: Path, name: str):
    """The value of the module-level assignment `name` in `path`, or None."""
    for node in ast.parse(path.read_text()).body:
        target = node.targets[0] if isinstance(node, ast.Assign) else getattr(node, "target", None)
        if isinstance(target, ast.Name) and target.id == name:
            return ast.literal_eval(node.value)
    return None


def comments_by_line(path: Path) -> dict[int, str]:
    found = {}
    for tok in tokenize.generate_tokens(io.StringIO(path.read_text()).readline):
        if tok.type == tokenize.COMMENT:
            text = tok.string.lstrip("#").strip().strip("-").strip()
            if text and not text.startswith(("fmt:", "noqa")):
                found[tok.start[0]] = text
    return found


def table_with_notes(path: Path, name: str) -> list[tuple[str, tuple[str, str], list[str]]]:
    """[(key, (en, zh), notes)] in the table's order; notes: the comments since the previous entry."""
    if not path.exists():
        return []  # a table already converted
    comments = comments_by_line(path)
    for node in ast.parse(path.read_text()).body:
        target = node.targets[0] if isinstance(node, ast.Assign) else getattr(node, "target", None)
        if isinstance(target, ast.Name) and target.id == name:
            rows, last = [], node.value.lineno
            for k, v in zip(node.value.keys, node.value.values):
                notes = [comments[n] for n in range(last + 1, v.end_lineno + 1) if n in comments]
                rows.append((ast.literal_eval(k), ast.literal_eval(v), notes))
                last = v.end_lineno
            return rows
    return []


def renamed(text: str, names: dict[str, str]) -> str:
    return re.sub(r"\{(\w+)", lambda m: "{" + names.get(m.group(1), m.group(1)), text)


def plural_rows(rows):
    """The "(s)" and `_1` plurals as (key, ((en_one, en_other), (zh,)), notes)."""
    by_key = {k: (pair, notes) for k, pair, notes in rows}
    out = []
    for key, (en, zh), notes in rows:
        if key.endswith("_1") and key[:-2] in by_key:
            continue  # the singular of the next entry
        if key + "_1" in by_key:
            (one, _), one_notes = by_key[key + "_1"]
            out.append((key, ((one, en), (zh,)), one_notes + notes))
        elif key in WORDED:
            out.append((key, (en.replace(*WORDED[key]), zh), notes))
        elif key in PLURALS:
            names = RENAMED_FIELDS.get(key, {})
            en, zh = renamed(en, names), renamed(zh, names)
            assert "{n" in en, key  # a plural is counted by its n
            out.append((key, ((en.replace("(s)", ""), en.replace("(s)", "s")), (zh,)), notes))
        else:
            out.append((key, (en, zh), notes))
    return out


def load_capacity_rows():
    """The words of lab/capacity.py and lab/capacity_cause.py, as shared rows."""
    cap, cause = ROOT / "lab" / "capacity.py", ROOT / "lab" / "capacity_cause.py"
    if not cap.exists():
        return []
    rows = []
    for by, words in literal(cap, "LOAD_WORDS").items():
        for kind, pair in words.items():
            rows.append((f"search_{kind}_{by}", pair, [f"a load, as the answer's “{{{kind}}}” names it"]))
    for word, pair in literal(cap, "STOP_WORDS").items():
        rows.append((f"search_stop_{word.replace(' ', '_')}", pair, ["why the search stopped"]))
    for kind, pair in literal(cap, "SENTENCES").items():
        if kind != "busy":
            rows.append((f"search_{kind}" if kind == "no_cause" else f"search_answer_{kind}", pair, []))
    for kind, pair in literal(cause, "CAUSES").items():
        rows.append((f"slo_cause_{kind}", pair, ["why a load broke its SLO"]))
    return rows


def extra_rows(extra: dict[str, tuple]):
    return [(k, (en, zh), [note]) for k, (en, zh, note) in extra.items()]


def tables() -> dict[str, list]:
    """{context: rows}: the shared context first, then each page's."""
    shared = [row for path, name in SHARED_TABLES for row in table_with_notes(ROOT / path, name)]
    out = {SHARED: plural_rows(shared + load_capacity_rows() + extra_rows(EXTRA_SHARED))}
    for page in PAGE_ORDER:
        rows = table_with_notes(ROOT / "app_pages" / page / "strings.py", "STRINGS")
        out[page] = plural_rows(rows + extra_rows(EXTRA_PAGES.get(page, {})))
    keys = [k for rows in out.values() for k, _, _ in rows]
    left = [k for rows in out.values() for k, (en, _), _ in rows if isinstance(en, str) and re.search(r"\w\(s\)", en)]
    assert not left, f"(s) left in {left}: a plural (PLURALS) or words (WORDED)?"
    assert len(keys) == len(set(keys)), sorted({k for k in keys if keys.count(k) > 1})
    return out


def new_catalog(lang: str) -> Catalog:
    when = datetime(2026, 1, 1, tzinfo=UTC)
    return Catalog(
        locale=LANGS[lang],
        domain="messages",
        project="prefill-decode-lab",
        version="0.2.0",
        copyright_holder="the prefill/decode lab",
        msgid_bugs_address="",
        creation_date=when,
        revision_date=when,
        last_translator="the prefill/decode lab",
        language_team=f"{LANGS[lang]}",
        header_comment=f"# The prefill/decode lab's words in {LANGS[lang]}: `make messages` keeps every language in step.",
        fuzzy=False,
    )


def add(catalogs: dict[str, Catalog], context: str, key: str, pair, notes: list[str]) -> None:
    en, zh = pair
    plural = isinstance(en, tuple)
    msgid = (key, key) if plural else key
    catalogs["en"].add(msgid, en, context=context, auto_comments=notes)
    catalogs["zh"].add(msgid, zh, context=context)


def po_path(lang: str) -> Path:
    return LOCALES / lang / "LC_MESSAGES" / "messages.po"


def write(catalogs: dict[str, Catalog]) -> None:
    for lang, catalog in catalogs.items():
        po_path(lang).parent.mkdir(parents=True, exist_ok=True)
        with po_path(lang).open("wb") as f:
            write_po(f, catalog)


def main() -> None:
    args = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    args.add_argument("--merge", action="store_true", help="add only the keys the catalogues lack")
    merge = args.parse_args().merge
    if merge:
        catalogs = {lang: read_po(po_path(lang).open("rb")) for lang in LANGS}
    else:
        catalogs = {lang: new_catalog(lang) for lang in LANGS}
    added = 0
    for context, rows in tables().items():
        for key, pair, notes in rows:
            if merge and catalogs["en"].get(key, context=context) is not None:
                continue
            add(catalogs, context, key, pair, notes)
            added += 1
    write(catalogs)
    print(f"{added} messages written to {', '.join(str(po_path(lang).relative_to(ROOT)) for lang in LANGS)}")


if __name__ == "__main__":
    sys.exit(main())
