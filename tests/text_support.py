"""Any string of the app by its key, whichever table holds it: a test reads a page's text in both
languages without knowing which table (shared or the page's own) a key lives in."""
from __future__ import annotations

import importlib

from app_pages import PAGES
from ui.i18n import STRINGS

ALL_STRINGS = dict(STRINGS)
for _page in PAGES:
    ALL_STRINGS.update(importlib.import_module(f"app_pages.{_page.name}.strings").STRINGS)


def t(key: str, lang: str = "en", **values) -> str:
    text = ALL_STRINGS[key][0 if lang == "en" else 1]
    return text.format(**values) if values else text
