"""Every strings table of the app, and any string by its key whichever table holds it: a test reads a
page's text in both languages without knowing which table (shared or the page's own) a key lives in."""

from __future__ import annotations

import importlib

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
