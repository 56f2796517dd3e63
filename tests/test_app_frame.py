"""The shared frame under AppTest: every page of the router, with a model that cannot be loaded,
says so in the page (and what to do about it) without an exception."""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from app_pages import page_file

APP = str(Path(__file__).resolve().parent.parent / "app.py")
PAGES = [page_file("playground"), page_file("memory"), page_file("complexity"), page_file("serving")]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_page_says_the_model_cannot_be_loaded(monkeypatch, tmp_path, lang):
    monkeypatch.setenv("PDLAB_MODEL", str(tmp_path / "no-such-model"))
    at = AppTest.from_file(APP, default_timeout=60)
    at.run()
    at = at.sidebar.radio(key="lang").set_value(lang).run()
    for page in PAGES:
        at.switch_page(page).run()
        assert not at.exception, (page, [e.value for e in at.exception])
        shown = [re.sub(r"\\(.)", r"\1", e.value) for e in at.error]
        hint = "Pick another model in the sidebar" if lang == "en" else "请在侧边栏选择其他模型"
        assert any("no-such-model" in e and hint in e for e in shown), (page, shown)
        assert at.title[0].value  # the page itself is still drawn
