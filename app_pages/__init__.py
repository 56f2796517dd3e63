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

# The navigation's sections, in order: every page in view at once, grouped by what it is for.
SECTIONS = ("learn", "measure", "serve")  # titles: the catalogues' nav_section_<name>


@dataclass(frozen=True)
class PageEntry:
    name: str  # the folder under app_pages/
    title_key: str  # the page's title: a key of the catalogues' shared context (lab/catalogues.py)
    icon: str
    url_path: str  # the page's URL is /<url_path>; the default page is also the root URL
    section: str  # one of SECTIONS
    is_default: bool = False

    def __post_init__(self):
        if self.section not in SECTIONS:
            raise ValueError(f"page {self.name}: section {self.section!r} is none of {SECTIONS}")

    @property
    def file(self) -> str:
        """The page script, relative to the repository root (as st.page_link and AppTest take it)."""
        return f"app_pages/{self.name}/page.py"


PAGES: tuple[PageEntry, ...] = (
    PageEntry("playground", "nav_playground", ":material/play_circle:", "playground", "learn", is_default=True),
    PageEntry("memory", "nav_memory", ":material/memory:", "memory", "learn"),
    PageEntry("complexity", "nav_complexity", ":material/functions:", "complexity", "learn"),
    PageEntry("serving", "nav_serving", ":material/dns:", "serving", "serve"),
    PageEntry("compare", "nav_compare", ":material/compare:", "compare", "measure"),
    PageEntry("roofline", "nav_roofline", ":material/roofing:", "roofline", "measure"),
    PageEntry("sweeps", "nav_sweeps", ":material/ssid_chart:", "sweeps", "measure"),
    PageEntry("claims", "nav_claims", ":material/fact_check:", "claims", "measure"),
    PageEntry("remote", "nav_remote", ":material/cloud:", "remote", "serve"),
    PageEntry("precision", "nav_precision", ":material/tune:", "precision", "measure"),
    PageEntry("speculative", "nav_speculative", ":material/fast_forward:", "speculative", "measure"),
    PageEntry("disaggregation", "nav_disaggregation", ":material/call_split:", "disaggregation", "serve"),
    PageEntry("source", "nav_source", ":material/menu_book:", "source", "learn"),
)
BY_NAME = {p.name: p for p in PAGES}


def by_section() -> dict[str, list[PageEntry]]:
    """The pages of each section, in SECTIONS' order and, within one, the table's."""
    return {s: [p for p in PAGES if p.section == s] for s in SECTIONS}


def page_file(name: str) -> str:
    """app_pages/<name>/page.py, for a page of the table (KeyError for any other name)."""
    return BY_NAME[name].file


def translated_widgets() -> tuple[str, ...]:
    """Every widget whose option labels change with the language or the model: the shared replay's
    (ui/replay.py) and each page's (its keys.py). app.py re-sends them after such a change."""
    pages = (k for p in PAGES for k in importlib.import_module(f"app_pages.{p.name}.keys").TRANSLATED)
    return (*replay.TRANSLATED, *pages)
