"""The screenshot gallery's plan, without a browser: every page of the app is shot at every width in
every language, each shot to its own file, the docs' names kept, and the gallery page shows them all."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from app_pages import PAGES
from app_pages.source.strings import t
from scripts.docs_pages import filled_markdown
from scripts.screenshots import RUNS, parse_args
from scripts.shot_gallery import gallery_page
from scripts.shot_plan import DESKTOP, LANGS, TAB_SHOTS, WIDTHS, Shot, parse_list, plan

ROOT = Path(__file__).resolve().parent.parent


def test_the_plan_covers_every_page_width_and_language_with_distinct_files():
    shots = plan()
    assert {(s.page, s.width, s.lang) for s in shots} == {(p.name, w, g) for p in PAGES for w in WIDTHS for g in LANGS}
    assert len({s.file for s in shots}) == len(shots) == len(PAGES) * len(WIDTHS) * len(LANGS)
    assert all(re.fullmatch(r"[a-z0-9-]+\.png", s.file) for s in shots)


def test_the_docs_names_are_kept_and_the_others_suffixed():
    assert Shot("compare", DESKTOP, "en").file == "compare.png"
    assert Shot("compare", 390, "en").file == "compare-390.png"
    assert Shot("compare", DESKTOP, "zh").file == "compare-zh.png"
    assert Shot("compare", 390, "zh").file == "compare-zh-390.png"
    assert Shot("remote", DESKTOP, "en").file == "remote-one.png"
    assert Shot("compare", 390, "en").max_height and Shot("compare", DESKTOP, "en").max_height is None


def test_every_page_has_a_run_and_a_shot_target():
    assert set(RUNS) == {p.name for p in PAGES}
    assert set(TAB_SHOTS) <= set(RUNS)


def test_a_subset_is_chosen_on_the_command_line():
    args = parse_args(["--pages", "compare,precision", "--widths", "390", "--langs", "zh"])
    assert [s.file for s in plan(args.pages, args.widths, args.langs)] == ["compare-zh-390.png", "precision-zh-390.png"]
    assert parse_args([]).pages == tuple(p.name for p in PAGES)
    with pytest.raises(ValueError, match="unknown page"):
        parse_list("compare,nope", tuple(p.name for p in PAGES), "page")
    with pytest.raises(ValueError, match="whole numbers"):
        parse_list("wide", WIDTHS, "width")


def test_the_gallery_shows_every_shot_taken_and_names_the_others(tmp_path):
    """The gallery's body (scripts/shot_gallery.py, filled into docs/gallery.md by the docs hook):
    a picture for each shot there is, the command for each that is not (a missing picture would fail
    the strict build)."""
    taken = {Shot("compare", w, g).file for w in WIDTHS for g in LANGS}
    for name in taken:
        (tmp_path / name).write_bytes(b"")
    body = gallery_page(tmp_path)
    assert set(re.findall(r"\(screenshots/([a-z0-9-]+\.png)\)", body)) == taken
    assert body.count("not taken yet") == len(plan()) - len(taken)
    assert "`scripts/screenshots.py --pages memory`" in body and f"## {t('nav_compare', 'en')}" in body


def test_the_gallery_is_in_the_docs():
    assert "<!-- gallery -->" in (ROOT / "docs" / "gallery.md").read_text(encoding="utf-8")
    assert "gallery.md" in (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    assert "<!-- gallery -->" not in filled_markdown("# Screenshots\n\n<!-- gallery -->\n*filled in*\n")
