"""Every strings table of the app, and any string by its key whichever table holds it: a test reads a
page's text in both languages without knowing which table (shared or the page's own) a key lives in."""

from __future__ import annotations

import importlib
import re

from app_pages import PAGES
from lab import verdict_texts
from ui import strings_common, strings_kit
from ui.i18n import page_translator


def all_tables() -> dict[str, dict[str, tuple[str, str]]]:
    """Every strings table by its module: the shared ones (ui/, lab/) and each page's own."""
    tables = {m.__name__: m.STRINGS for m in (strings_common, strings_kit)}
    tables[verdict_texts.__name__] = verdict_texts.VERDICT_TEXTS
    for p in PAGES:
        module = importlib.import_module(f"app_pages.{p.name}.strings")
        tables[module.__name__] = module.STRINGS
    return tables


ALL_STRINGS = {key: pair for table in all_tables().values() for key, pair in table.items()}
# Every page's keys in one table, looked up as a page looks them up: then the shared ones.
t = page_translator(
    {k: pair for name, table in all_tables().items() if name.startswith("app_pages.") for k, pair in table.items()}
)


CLAIM = re.compile(r"\bC(1\d|2[0-3]|[1-9])\b")
LINKED = re.compile(r"\[C(\d+)\]\(/claims\?claim=C(\d+)\)")


def bare_claims(text: str) -> list[str]:
    """Claim numbers in `text` that are not the text of a link to their own claim (a link to another
    claim counts, as 'C12→C13')."""
    wrong = [f"C{m.group(1)}→C{m.group(2)}" for m in LINKED.finditer(text) if m.group(1) != m.group(2)]
    return wrong + [f"C{n}" for n in CLAIM.findall(LINKED.sub("", text))]
