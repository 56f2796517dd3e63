"""Every message of the app's catalogues as (English, Chinese) pairs, any message by its key whichever
context holds it (a test reads a page's text without knowing whether a key is shared or the page's
own), and catalogues written for a test into a folder of its own."""

from __future__ import annotations

import functools
import re
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po, write_po

from lab.catalogues import SHARED, SOURCE, catalogue, catalogues, po_file, say

Pair = tuple[str, str]
COUNTS = (1, 2, 0, 5, 11, 21, 101)  # enough counts to meet every form of the usual plural rules


def pairs(key: str, en, zh) -> dict[str, Pair]:
    """One message as rows: itself, or, for a plural, one row per English form ("key[i]") beside the
    Chinese form of the same count."""
    if isinstance(en, str):
        return {key: (en, zh)}
    rule_en, rule_zh = catalogue(SOURCE).plural, catalogue("zh").plural
    rows = {}
    for n in COUNTS:
        rows.setdefault(f"{key}[{rule_en(n)}]", (en[rule_en(n)], zh[rule_zh(n)]))
    return rows


def all_tables() -> dict[str, dict[str, Pair]]:
    """{context: {key: (en, zh)}}, the shared context first; every message of the English catalogue
    (a message missing in Chinese is an empty string here, for the rules to report)."""
    en, zh = catalogues()[SOURCE].texts, catalogues()["zh"].texts
    tables: dict[str, dict[str, Pair]] = {SHARED: {}}
    for (context, key), text in en.items():
        other = zh.get((context, key), "" if isinstance(text, str) else ("",))
        tables.setdefault(context, {}).update(pairs(key, text, other))
    return tables


@functools.cache
def _context_of() -> dict[str, str]:
    found = {}
    for context, key in catalogue(SOURCE).texts:
        if context != SHARED or key not in found:
            found[key] = context
    return found


def t(key: str, lang: str = SOURCE, /, **values) -> str:
    """Any message by its key, as a page would say it: a page's own first, then the shared one."""
    return say(key, lang, _context_of()[key], **values)


def copy_catalogues(folder: Path) -> Path:
    """The app's catalogues (their .po files) copied under `folder`, for a test to add to."""
    for lang in catalogues():
        target = po_file(lang, folder)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(po_file(lang).read_bytes())
    return folder


def add_language(folder: Path, lang: str, marker: str) -> Catalog:
    """A stub catalogue for `lang` under `folder`: the English one with `marker` before every text."""
    with po_file(SOURCE).open("rb") as f:
        stub = read_po(f)
    stub.locale = lang
    for m in stub:
        if m.id:
            m.string = f"{marker}{m.string}" if isinstance(m.string, str) else tuple(f"{marker}{s}" for s in m.string)
    write(stub, po_file(lang, folder))
    return stub


def write(catalog: Catalog, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as f:
        write_po(f, catalog)


CLAIM = re.compile(r"\bC(1\d|2[0-3]|[1-9])\b")
LINKED = re.compile(r"\[C(\d+)\]\(/claims\?claim=C(\d+)\)")


def bare_claims(text: str) -> list[str]:
    """Claim numbers in `text` that are not the text of a link to their own claim (a link to another
    claim counts, as 'C12→C13')."""
    wrong = [f"C{m.group(1)}→C{m.group(2)}" for m in LINKED.finditer(text) if m.group(1) != m.group(2)]
    return wrong + [f"C{n}" for n in CLAIM.findall(LINKED.sub("", text))]
