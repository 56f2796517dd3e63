"""Every claim number the lab shows links to its claim (/claims?claim=C12), and the claims page opened
by such a link shows that claim first. (The catalogues' messages are held to the rule in
tests/test_string_rules.py; here every page as first drawn.)"""

from __future__ import annotations

import re

import pytest

from app_pages import PAGES, page_file
from lab.claims import CLAIM_IDS
from tests.text_support import bare_claims


def test_no_page_shows_a_bare_claim_number(new_app, tiny_dirs, monkeypatch):
    """Every page's Markdown, captions and boxes as first drawn (before any run), all pages in one session."""
    monkeypatch.setenv("PDLAB_MODEL", str(tiny_dirs["llama"]))
    at = new_app().run()
    found, pages_seen = [], 0
    for page in PAGES:
        at.switch_page(page_file(page.name)).run()
        assert not at.exception, (page.name, [e.value for e in at.exception])
        kinds = ("markdown", "caption", "info", "warning", "success")
        texts = [e.value for kind in kinds for e in at.get(kind)]
        pages_seen += bool(texts)
        for text in texts:
            if page.name == "claims" and re.match(r"\*\*C\d+\*\* · ", text):
                continue  # the claims page's own rows: the claim itself
            if bare_claims(text):
                found.append(f"{page.name}: {bare_claims(text)} in {text[:300]!r}")
    assert pages_seen == len(PAGES)
    assert not found, "\n".join(found)


@pytest.mark.parametrize("lang, words", [("en", "You followed a link to C12"), ("zh", "你从链接来到 C12")])
def test_a_claim_link_opens_the_claims_page_on_its_claim(new_app, tiny_dirs, monkeypatch, lang, words):
    monkeypatch.setenv("PDLAB_MODEL", str(tiny_dirs["llama"]))
    at = new_app().run()  # the link opens a new tab: a new session
    at.session_state["lang"] = lang
    at.query_params["claim"] = "C12"
    at.switch_page(page_file("claims")).run()
    assert not at.exception
    texts = [m.value for m in at.markdown]
    first = next(i for i, text in enumerate(texts) if words in text)
    assert texts[first + 1].startswith("**C12** · ") and len(texts[first + 1]) > 30  # its statement
    assert "C12" in CLAIM_IDS


def test_an_unknown_claim_in_the_link_is_ignored(new_app, tiny_dirs, monkeypatch):
    monkeypatch.setenv("PDLAB_MODEL", str(tiny_dirs["llama"]))
    at = new_app().run()
    at.query_params["claim"] = "C99"
    at.switch_page(page_file("claims")).run()
    assert not at.exception and not [m for m in at.markdown if "followed a link" in m.value]
