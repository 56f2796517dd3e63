"""Issue 16.7: every C-number in the lab's text links to its claim (/claims?claim=C12), and the claims
page opened by such a link shows that claim first. Labels cannot hold links (tab names, titles,
widget help, legend names, table cells): their keys are listed here with that reason."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from app_pages import PAGES, page_file
from lab.claims import CLAIM_IDS
from tests.text_support import all_tables

APP = str(Path(__file__).resolve().parent.parent / "app.py")
CLAIM = re.compile(r"\bC(1\d|2[0-3]|[1-9])\b")
LINKED = re.compile(r"\[C(\d+)\]\(/claims\?claim=C(\d+)\)")


def bare_claims(text: str) -> list[str]:
    """C-numbers in `text` that are not the text of a link to their own claim."""
    for m in LINKED.finditer(text):
        assert m.group(1) == m.group(2), f"C{m.group(1)} links to C{m.group(2)}"
    return CLAIM.findall(LINKED.sub("", text))


def is_label(key: str) -> bool:
    """Strings drawn where Markdown links are not (tabs, titles, help tooltips, legends, table cells)."""
    return key.endswith(("_help", "_title")) or key.startswith(("tab_", "why_c", "sw_tr_")) or "_tab_" in key


STRINGS = [(key, pair) for table in all_tables().values() for key, pair in table.items() if not is_label(key)]


@pytest.mark.parametrize("key, pair", STRINGS, ids=[k for k, _ in STRINGS])
def test_every_claim_number_in_body_text_is_a_link(key, pair):
    for text in pair:
        assert not bare_claims(text), f"{key}: {text[:200]}"


def test_the_rule_has_something_to_check():
    assert sum(bool(LINKED.search(en)) for _, (en, _) in STRINGS) >= 20


@pytest.fixture(scope="module")
def shown(tiny_dirs) -> dict[str, list[str]]:
    """Every page's Markdown text as first drawn (before any run), by page."""
    mp = pytest.MonkeyPatch()
    mp.setenv("PDLAB_MODEL", str(tiny_dirs["llama"]))
    at = AppTest.from_file(APP, default_timeout=240).run()
    out = {}
    for page in PAGES:
        at.switch_page(page_file(page.name)).run()
        assert not at.exception, (page.name, [e.value for e in at.exception])
        out[page.name] = [
            e.value for kind in ("markdown", "caption", "info", "warning", "success") for e in at.get(kind)
        ]
    mp.undo()
    return out


@pytest.mark.parametrize("page", [p.name for p in PAGES])
def test_no_page_shows_a_bare_claim_number(shown, page):
    for text in shown[page]:
        if page == "claims" and re.match(r"\*\*C\d+\*\* · ", text):
            continue  # the claims page's own rows: the claim itself
        assert not bare_claims(text), text[:300]


@pytest.mark.parametrize("lang, words", [("en", "You followed a link to C12"), ("zh", "你从链接来到 C12")])
def test_a_claim_link_opens_the_claims_page_on_its_claim(tiny_dirs, monkeypatch, lang, words):
    monkeypatch.setenv("PDLAB_MODEL", str(tiny_dirs["llama"]))
    at = AppTest.from_file(APP, default_timeout=240).run()  # the link opens a new tab: a new session
    at.session_state["lang"] = lang
    at.query_params["claim"] = "C12"
    at.switch_page(page_file("claims")).run()
    assert not at.exception
    texts = [m.value for m in at.markdown]
    first = next(i for i, text in enumerate(texts) if words in text)
    assert texts[first + 1].startswith("**C12** · ") and len(texts[first + 1]) > 30  # its statement
    assert "C12" in CLAIM_IDS


def test_an_unknown_claim_in_the_link_is_ignored(tiny_dirs, monkeypatch):
    monkeypatch.setenv("PDLAB_MODEL", str(tiny_dirs["llama"]))
    at = AppTest.from_file(APP, default_timeout=240).run()
    at.query_params["claim"] = "C99"
    at.switch_page(page_file("claims")).run()
    assert not at.exception and not [m for m in at.markdown if "followed a link" in m.value]
