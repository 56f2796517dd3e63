"""The body of the docs' gallery (docs/gallery.md, its `<!-- gallery -->` marker): every page of
the app after its default run, at each width and in each language, as scripts/shot_plan.py plans
them. A shot not taken yet is named with the command that takes it, so the site builds (a link to a
missing picture fails `mkdocs --strict`) and fills in once the shots are there.
"""

from __future__ import annotations

from pathlib import Path

from app_pages import PAGES
from scripts.shot_plan import DESKTOP, LANG_NAMES, LANGS, WIDTHS, Shot

ROOT = Path(__file__).resolve().parent.parent
SHOTS_DIR = ROOT / "docs" / "screenshots"


def _cell(shot: Shot, folder: Path) -> str:
    if (folder / shot.file).exists():
        picture = f"![{shot.page}, {LANG_NAMES[shot.lang]}, {shot.width} px](screenshots/{shot.file})"
        return f"[{picture}](screenshots/{shot.file})"  # a click opens it at its own size
    return f"*not taken yet: `scripts/screenshots.py --pages {shot.page}`*"


def _width_label(width: int) -> str:
    return f"{width} px" + (" (desktop)" if width == DESKTOP else " (phone)")


def gallery_page(folder: Path = SHOTS_DIR) -> str:
    """One section per page: a table of its shots, a row per width and a column per language."""
    from app_pages.source.strings import t  # the pages' English titles, as the app's navigation says them

    out = []
    for page in PAGES:
        out += [f"## {t(page.title_key, 'en')}", "", f"The page's documentation: [{page.name}]({page.name}.md).", ""]
        out += ["| | " + " | ".join(LANG_NAMES[lang] for lang in LANGS) + " |", "|---" * (len(LANGS) + 1) + "|"]
        for width in WIDTHS:
            cells = [_cell(Shot(page.name, width, lang), folder) for lang in LANGS]
            out.append(f"| {_width_label(width)} | " + " | ".join(cells) + " |")
        out.append("")
    return "\n".join(out)
