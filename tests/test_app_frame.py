"""The shared frame under AppTest: every page of the router, with a model that cannot be loaded,
says so in the page (and what to do about it) without an exception."""

from __future__ import annotations

import re

import pytest

from app_pages import page_file
from app_pages.source.sections import SECTIONS, pages_of

PAGES = [page_file("playground"), page_file("memory"), page_file("complexity"), page_file("serving")]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_page_says_the_model_cannot_be_loaded(new_app, monkeypatch, tmp_path, lang):
    monkeypatch.setenv("PDLAB_MODEL", str(tmp_path / "no-such-model"))
    at = new_app(60)
    at.run()
    at = at.sidebar.radio(key="lang").set_value(lang).run()
    for page in PAGES:
        at.switch_page(page).run()
        assert not at.exception, (page, [e.value for e in at.exception])
        shown = [re.sub(r"\\(.)", r"\1", e.value) for e in at.error]
        hint = "Pick another model in the sidebar" if lang == "en" else "请在侧边栏选择其他模型"
        assert any("no-such-model" in e and hint in e for e in shown), (page, shown)
        assert at.title[0].value  # the page itself is still drawn


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_source_page_opens_from_the_sidebar_and_links_each_section(new_app, monkeypatch, tiny_dirs, lang):
    """The UI spoke of "the source" and "section 5.5" and never said what the source is."""
    monkeypatch.setenv("PDLAB_MODEL", str(tiny_dirs["llama"]))
    at = new_app(120).run()
    at = at.sidebar.radio(key="lang").set_value(lang).run()
    at.switch_page(page_file("source")).run()
    assert not at.exception
    assert at.title[0].value == (
        "The source: a tutorial on prefill and decode" if lang == "en" else "原文：一篇讲预填充与解码的教程"
    )
    assert len(at.main.subheader) == 8 and at.main.subheader[0].value.startswith("5.1")
    claims = " ".join(c.value for c in at.caption)
    assert all(f"C{i}" in claims for i in range(1, 25))  # every claim sits under its section
    labels = [link.proto.label for link in at.get("page_link")]
    assert labels[0] == ("Check every claim on the Claims page" if lang == "en" else "在「论断核查」页核查全部论断")
    assert len(labels) == 1 + sum(len(pages_of(s)) for s in SECTIONS)  # and the pages each section shows on


def test_the_model_box_speaks_the_page_language_and_keeps_the_model(new_app, bundled_dir, monkeypatch):
    """The text "(bundled, offline)" stayed English on a Chinese page. The label follows the language;
    the choice stays the bundled model, and a label of either language handed back means that model."""
    from ui.sidebar import spec_of

    monkeypatch.setenv("PDLAB_MODEL", "bundled")
    at = new_app(120).run()
    box = at.sidebar.selectbox(key="model_spec")
    assert box.options[0] == "SmolLM2-135M-Instruct (bundled, offline)" and box.value == "bundled"
    at = at.sidebar.radio(key="lang").set_value("zh").run()
    box = at.sidebar.selectbox(key="model_spec")
    assert box.options[0] == "SmolLM2-135M-Instruct（内置，可离线）" and box.value == "bundled"
    assert "Qwen/Qwen2.5-0.5B-Instruct（Hub，需联网）" in box.options
    assert not at.exception and not at.error
    options = ["bundled", "Qwen/Qwen2.5-0.5B-Instruct"]
    assert spec_of("SmolLM2-135M-Instruct (bundled, offline)", options) == "bundled"
    assert spec_of("Qwen/Qwen2.5-0.5B-Instruct（Hub，需联网）", options) == "Qwen/Qwen2.5-0.5B-Instruct"
    assert spec_of("/models/mine", options) == "/models/mine"  # typed in: its own spec
