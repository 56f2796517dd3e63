"""A third language is a catalogue, not code: a stub one (the English catalogue with a marker before
every text) put beside the real ones in a temporary folder is offered by the sidebar and draws the pages
in it, with the lab's verdicts worded from it too."""

from __future__ import annotations

import pytest

from app_pages import page_file
from lab import catalogues
from lab.catalogues import Message, languages, say, word
from tests.text_support import add_language, copy_catalogues

STUB, MARK = "eo", "«eo» "  # Esperanto's code: a real locale, so its plural rule is Babel's own


@pytest.fixture
def three_languages(tmp_path, monkeypatch):
    folder = copy_catalogues(tmp_path / "locale")
    add_language(folder, STUB, MARK)
    monkeypatch.setattr(catalogues, "LOCALES", folder)  # read afresh: the catalogues are cached per folder
    return folder


def test_a_catalogue_folder_adds_a_language(three_languages):
    assert list(languages().items()) == [("en", "English"), (STUB, f"{MARK}English"), ("zh", "简体中文")]
    assert say("lang_label", STUB) == f"{MARK}Language"
    assert say("run_stopped", STUB, n=1).endswith("1 generated token; below is what ran.")
    assert word(Message("search_answer_nothing", {"stopped": Message("search_stop_budget")}), STUB) == (
        f"{MARK}Nothing was measured ({MARK}the time budget ran out)."
    )


def test_the_pages_are_drawn_in_the_third_language(three_languages, new_app, monkeypatch, tiny_dirs):
    monkeypatch.setenv("PDLAB_MODEL", str(tiny_dirs["llama"]))
    at = new_app(120).run()
    picker = at.sidebar.radio(key="lang")
    assert picker.options == ["English", f"{MARK}English", "简体中文"]  # the catalogues present, English first
    at = picker.set_value(STUB).run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.text_area(key="pg_prompt").value == f"{MARK}What is the capital of France?"
    for page in ("source", "claims"):
        at.switch_page(page_file(page)).run()
        assert not at.exception, (page, [e.value for e in at.exception])
        assert at.title[0].value.startswith(MARK), (page, at.title[0].value)
        assert at.sidebar.radio(key="lang").value == STUB
