"""The app's pages, one folder each: app_pages/<name>/page.py reads like a description of the screen,
and the rest of that folder is what only that page uses (its controls, panels, figures, strings, keys).

This table is the one place that names the pages: app.py builds the navigation from it, the claims
page links through it, the tests open each page by it. URLs are explicit and stable: share links and
bookmarks use them. (The folder is not called pages/: a pages/ folder beside app.py switches
Streamlit to its legacy multipage mode on the first run.)
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass

from ui import replay


@dataclass(frozen=True)
class PageEntry:
    name: str  # the folder under app_pages/
    title_key: str  # the page's title: a key of the catalogues' shared context (lab/catalogues.py)
    icon: str
    url_path: str  # the page's URL is /<url_path>; the default page is also the root URL
    is_default: bool = False

    @property
    def file(self) -> str:
        """The page script, relative to the repository root (as st.page_link and AppTest take it)."""
        return f"app_pages/{self.name}/page.py"


PAGES: tuple[PageEntry, ...] = (
    PageEntry("playground", "nav_playground", ":material/play_circle:", "playground", is_default=True),
    PageEntry("memory", "nav_memory", ":material/memory:", "memory"),
    PageEntry("complexity", "nav_complexity", ":material/functions:", "complexity"),
    PageEntry("serving", "nav_serving", ":material/dns:", "serving"),
    PageEntry("compare", "nav_compare", ":material/compare:", "compare"),
    PageEntry("roofline", "nav_roofline", ":material/roofing:", "roofline"),
    PageEntry("sweeps", "nav_sweeps", ":material/ssid_chart:", "sweeps"),
    PageEntry("claims", "nav_claims", ":material/fact_check:", "claims"),
    PageEntry("remote", "nav_remote", ":material/cloud:", "remote"),
    PageEntry("precision", "nav_precision", ":material/tune:", "precision"),
    PageEntry("speculative", "nav_speculative", ":material/fast_forward:", "speculative"),
    PageEntry("disaggregation", "nav_disaggregation", ":material/call_split:", "disaggregation"),
    PageEntry("source", "nav_source", ":material/menu_book:", "source"),
)
BY_NAME = {p.name: p for p in PAGES}


def page_file(name: str) -> str:
    """app_pages/<name>/page.py, for a page of the table (KeyError for any other name)."""
    return BY_NAME[name].file


def translated_widgets() -> tuple[str, ...]:
    """Every widget whose option labels change with the language or the model: the shared replay's
    (ui/replay.py) and each page's (its keys.py). app.py re-sends them after such a change."""
    pages = (k for p in PAGES for k in importlib.import_module(f"app_pages.{p.name}.keys").TRANSLATED)
    return (*replay.TRANSLATED, *pages)
