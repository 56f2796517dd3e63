"""The screenshot gallery's plan: every page of the app (app_pages.PAGES), shot after its default run
at each width and in each language, and the file each shot goes to.

Names and choices only, no browser: scripts/screenshots.py takes the shots, docs/gallery.md shows
them and tests/test_screenshot_plan.py checks that the plan covers every page with distinct files.
"""

from __future__ import annotations

from dataclasses import dataclass

from app_pages import BY_NAME, PAGES

WIDTHS = (1400, 390)  # px: a desktop window, and a phone (the CSS width of most recent iPhones)
DESKTOP = WIDTHS[0]  # the width the docs' shots have; a shot at it keeps the docs' name unsuffixed
LANGS = ("en", "zh")
LANG_NAMES = {"en": "English", "zh": "简体中文"}  # the sidebar's language choice, the same in every language
PHONE_MAX_HEIGHT = 2400  # px: a page at phone width runs many screens tall; the gallery shows its top
# A page whose whole desktop shot would be too tall to read: the claims' long table shows its first rows.
DESKTOP_MAX_HEIGHTS = {"claims": 2600}
MAX_BYTES = 400_000  # docs/screenshots is in git: a PNG above this is stored with a 256-colour palette

# The docs' name of a page's shot where it is not the page's own name (English, desktop).
BASE_NAMES = {"remote": "remote-one"}
# The shot holds this tab's panel (the tab's place among the page's tabs: its label changes with the
# language); a page not listed is shot whole (its main block).
TAB_SHOTS = {
    "memory": 0,
    "complexity": 0,
    "serving": 0,
    "roofline": 1,
    "speculative": 0,
    "disaggregation": 0,
    "remote": 0,
}


@dataclass(frozen=True)
class Shot:
    page: str  # a page of app_pages.PAGES
    width: int  # the viewport's width, px
    lang: str  # one of LANGS

    def __post_init__(self):
        if self.page not in BY_NAME or self.lang not in LANGS or self.width <= 0:
            raise ValueError(f"no such shot: page {self.page!r}, width {self.width}, language {self.lang!r}")

    @property
    def file(self) -> str:
        """compare.png (English, desktop), compare-390.png, compare-zh.png, compare-zh-390.png."""
        lang = "" if self.lang == "en" else f"-{self.lang}"
        width = "" if self.width == DESKTOP else f"-{self.width}"
        return f"{BASE_NAMES.get(self.page, self.page)}{lang}{width}.png"

    @property
    def max_height(self) -> int | None:
        """How much of the page the shot keeps from its top (None: all of it)."""
        return DESKTOP_MAX_HEIGHTS.get(self.page) if self.width >= DESKTOP else PHONE_MAX_HEIGHT


def plan(
    pages: tuple[str, ...] | None = None, widths: tuple[int, ...] = WIDTHS, langs: tuple[str, ...] = LANGS
) -> list[Shot]:
    """Every shot of these pages, page by page in the app's order, each language's widths together
    (the language is switched once per page and language, the width by resizing the same page)."""
    names = [p.name for p in PAGES if pages is None or p.name in pages]
    return [Shot(name, width, lang) for name in names for lang in langs for width in widths]


def parse_list(text: str, allowed: tuple, kind: str) -> tuple:
    """A comma-separated choice ("compare,memory", "1400,390") checked against what is allowed."""
    convert = int if kind == "width" else str
    try:
        chosen = tuple(convert(part.strip()) for part in text.split(",") if part.strip())
    except ValueError:
        raise ValueError(f"{text!r}: widths are whole numbers of pixels") from None
    unknown = [c for c in chosen if allowed and c not in allowed]
    if unknown or not chosen:
        raise ValueError(f"unknown {kind} {unknown or text!r}; choose among {', '.join(map(str, allowed))}")
    return chosen
