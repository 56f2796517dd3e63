"""Every page in the navigation at once, grouped in sections, with no "View more" fold, in English and
in 简体中文 (a newcomer found three pages only after "View 3 more", left in English in 中文)."""

from __future__ import annotations

import re

import pytest

from app_pages import PAGES, SECTIONS
from lab.catalogues import say
from scripts.app_browser import ARTIFACTS, wait_idle
from tests.browser_utils import page_at

NAV = '[data-testid="stSidebarNav"]'


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_page_is_in_view_in_its_section(chromium, app_server, lang):
    with page_at(chromium, app_server, "source", lambda p: p.locator(NAV)) as page:
        if lang == "zh":
            page.locator('[data-testid="stSidebar"]').get_by_text("简体中文").click()
            wait_idle(page)
        nav = page.locator(NAV)
        for p in PAGES:
            link = nav.get_by_role("link", name=say(p.title_key, lang), exact=True)
            assert link.count() == 1 and link.is_visible(), p.name
        for section in SECTIONS:
            assert nav.get_by_text(say(f"nav_section_{section}", lang), exact=True).is_visible(), section
        assert nav.get_by_text(re.compile(r"View \d+ more|View less|查看")).count() == 0  # no fold
        page.locator('[data-testid="stSidebar"]').screenshot(path=str(ARTIFACTS / f"navigation_{lang}.png"))
