"""Public mode (ui/public.py): the settings file and its switch, then the app with public mode on
under AppTest: the model box offers the owner's list only and shows no server path; a share link
naming /etc or an unlisted hub id is refused with a note and the listed model stays; max_new_tokens
and the prompt are capped and say so; the remote page is off unless the owner lists servers, and
then offers only those. With public mode off nothing changes (the rest of the suite)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from app_pages import page_file
from tests.app_helpers import unescaped
from ui.live import RUN_KEY
from ui.public import PUBLIC_ENV, SETTINGS_ENV, PublicSettings, parse_settings, read_settings


def test_settings_defaults_switch_and_bad_fields(tmp_path):
    assert parse_settings({}) == PublicSettings()
    assert parse_settings({}, env_public="1").enabled and not parse_settings({"public": {"enabled": True}}, "0").enabled
    s = parse_settings({"public": {"enabled": True, "models": ["bundled", "/srv/models/x"], "max_new_tokens": 64}})
    assert s.models == ("bundled", "/srv/models/x") and s.max_new_tokens == 64 and s.remote_urls == ()
    for doc, message in [
        ({"public": {"models": []}}, "lists no model"),
        ({"public": {"models": "bundled"}}, "public.models should be a list"),
        ({"public": {"max_prompt_chars": 0}}, "max_prompt_chars should be a whole number"),
        ({"public": {"enabled": "yes"}}, "public.enabled should be true or false"),
        ({"public": {"max_tokens": 3}}, "Unknown setting"),
        ({"public": 3}, "should be a table"),
    ]:
        with pytest.raises(ValueError, match=message):
            parse_settings(doc)
    bad = tmp_path / "lab.toml"
    bad.write_text("[public\nenabled = true")
    with pytest.raises(ValueError, match="not valid TOML"):
        read_settings(env={SETTINGS_ENV: str(bad)})
    with pytest.raises(ValueError, match="not a file"):
        read_settings(env={SETTINGS_ENV: str(tmp_path / "none.toml")})
    example = Path(__file__).resolve().parent.parent / "lab.example.toml"
    assert read_settings(env={SETTINGS_ENV: str(example)}) == PublicSettings(enabled=True)  # the sample is valid


def test_one_rule_says_which_models_a_visitor_may_load(monkeypatch, tmp_path):
    """`may_load` is the rule every page, the share link and the registry ask; on a public server
    only the exact strings on the owner's list pass."""
    from ui.models import ModelChoice, ModelRegistry
    from ui.public import may_load

    settings = tmp_path / "lab.toml"
    settings.write_text('[public]\nmodels = ["bundled", "/srv/models/llama"]\n')
    monkeypatch.setenv(SETTINGS_ENV, str(settings))
    monkeypatch.setenv(PUBLIC_ENV, "0")
    assert may_load("/etc") and may_load("someorg/any-model")  # a private server: the owner's own machine
    monkeypatch.setenv(PUBLIC_ENV, "1")
    assert may_load("bundled") and may_load("/srv/models/llama")
    hostile = ["/etc", "/etc/passwd", "someorg/unlisted-model", "llama", "Bundled", " bundled", "bundled\n",
               "./bundled", "/srv/models/llama/", "/srv/models/llama/../../../etc", "/srv/models/./llama", "",
               None, 3, ["bundled"]]  # fmt: skip
    assert [spec for spec in hostile if may_load(spec)] == []
    with pytest.raises(ValueError, match="offers only the models in its list"):
        ModelRegistry().get(ModelChoice("/etc"))  # whatever a session holds


@pytest.fixture
def public(tiny_dirs, tmp_path, monkeypatch):
    """Public mode on, the tiny model the owner's only listed model, small caps."""
    settings = tmp_path / "lab.toml"
    settings.write_text(f'[public]\nmodels = ["{tiny_dirs["llama"]}"]\nmax_new_tokens = 12\nmax_prompt_chars = 40\n')
    monkeypatch.setenv(PUBLIC_ENV, "1")
    monkeypatch.setenv(SETTINGS_ENV, str(settings))
    monkeypatch.setenv("PDLAB_MODEL", str(tiny_dirs["llama"]))
    return settings


def test_the_model_box_offers_the_list_and_no_path(new_app, public, tiny_dirs):
    at = new_app(180).run()
    assert not at.exception, [e.value for e in at.exception]
    box = at.sidebar.selectbox(key="model_spec")
    assert box.options == ["llama"]  # the folder's name, not its path
    assert box.value == str(tiny_dirs["llama"])
    assert str(Path(tiny_dirs["llama"]).parent) not in " ".join(c.value for c in at.caption)
    assert any("caps a prompt at 40 characters and 1,024 tokens, a run at 12 new tokens" in c.value for c in at.caption)
    assert at.number_input(key="pg_max_new").max == 12


@pytest.mark.parametrize("model", ["/etc", "someorg/unlisted-model", "bundled"])
def test_a_link_cannot_name_another_model(new_app, public, tiny_dirs, model):
    at = new_app(180)
    at.query_params.update({"model": model, "max_new_tokens": "500", "prompt": "hi", "top_p": "0"})
    at = at.run()
    assert not at.exception
    assert at.sidebar.selectbox(key="model_spec").value == str(tiny_dirs["llama"])
    notes = " ".join(unescaped(at.info) + unescaped(at.warning))
    assert "not a model this public server offers" in notes, notes
    assert at.number_input(key="pg_max_new").value == 12  # 500 lowered to the cap, and said so
    assert "max_new_tokens 500 is more than this public server allows; set to 12" in notes, notes
    filled = [text for text in unescaped(at.info) if "Filled in" in text]
    assert filled and "max_new_tokens" not in filled[0] and "top_p" not in filled[0], filled  # lowered, not filled
    assert "top_p='0' (not a number from 0.01 to 1)" in notes, notes  # the box's range: 0 is not taken silently


def test_a_prompt_over_the_cap_never_runs_whole(new_app, public):
    """The box stops typing at the cap and Streamlit cuts a longer value on the server too; a link's
    longer prompt is refused with a note, before anything is tokenised."""
    at = new_app(180).run()
    at.session_state["pg_prompt"] = "x" * 41
    at = at.button(key="pg_run").click().run()
    assert not at.exception and at.session_state["pg_prompt"] == "x" * 40
    assert len(at.session_state[RUN_KEY].settings.prompt) == 40
    at = new_app(180)
    at.query_params.update({"prompt": "y" * 41})
    at = at.run()
    assert at.session_state["pg_prompt"] != "y" * 41
    assert any("longer than 40 characters" in n for n in unescaped(at.info) + unescaped(at.warning))


def test_the_remote_page_is_off_unless_servers_are_listed(new_app, public):
    at = new_app(180).run()
    at.switch_page(page_file("remote")).run()
    assert any("This page is off on this public server" in i.value for i in at.info)
    assert not at.text_input  # no URL box at all
    public.write_text(public.read_text() + 'remote_urls = ["http://127.0.0.1:9"]\n')
    from ui.public import _loaded

    _loaded.cache_clear()  # the owner restarted the server with the new file
    at = new_app(180).run()
    at.switch_page(page_file("remote")).run()
    assert at.selectbox(key="rm_url_choice").options == ["http://127.0.0.1:9"]
    assert not [b for b in at.text_input if b.key == "rm_url"]


def test_a_broken_settings_file_still_means_public(new_app, tmp_path, monkeypatch, tiny_dirs):
    broken = tmp_path / "broken.toml"
    broken.write_text("[public]\nmodels = 3\n")
    monkeypatch.setenv(SETTINGS_ENV, str(broken))
    monkeypatch.delenv(PUBLIC_ENV, raising=False)
    monkeypatch.setenv("PDLAB_MODEL", str(tiny_dirs["llama"]))
    at = new_app(180).run()
    assert at.sidebar.selectbox(key="model_spec").options == ["SmolLM2-135M-Instruct (bundled, offline)"]
    assert any("settings file is not valid" in w.value for w in at.sidebar.warning)


def test_every_page_sizes_its_runs_within_the_public_context(new_app, public, tiny_dirs):
    """One cap holds the lengths of every page: the loaded model's context is lowered to max_context."""
    public.write_text(public.read_text() + "max_context = 96\n")
    from ui.public import _loaded

    _loaded.cache_clear()
    at = new_app(180).run()
    for page, key in (("roofline", "rf_L"), ("complexity", "cx_L")):
        at.switch_page(page_file(page)).run()
        assert not at.exception, [e.value for e in at.exception]
        assert at.number_input(key=key).max <= 96, page
    at.switch_page(page_file("claims")).run()
    quick = at.toggle(key="cl_quick")
    assert quick.value and quick.disabled


def page_texts(at) -> list[str]:
    """Every text a visitor can read on the page: prose, notes, labels, metrics and table cells."""
    out = []
    for kind in ("markdown", "caption", "info", "warning", "error", "success", "title", "header", "subheader",
                 "text", "code", "latex", "exception"):  # fmt: skip
        out += [str(e.value) for e in getattr(at, kind)]
    out += [f"{m.label} {m.value}" for m in at.metric]
    out += [e.label for e in (*at.expander, *at.button, *at.toggle, *at.selectbox, *at.number_input, *at.text_area)]
    out += [str(o) for box in at.selectbox for o in box.options]
    out += [frame.value.to_string() for frame in at.dataframe]
    return [re.sub(r"\\(.)", r"\1", text) for text in out]  # as read: pages backslash-escape Markdown


def test_no_public_page_shows_a_server_path(new_app, public, tiny_dirs):
    """Every page, opened by a visitor of a public server, names no folder of the server: not its
    home, cache, repository or model folder."""
    import os

    from app_pages import PAGES
    from engine.paths import cache_dir
    from tests.conftest import ROOT

    secrets = {str(Path.home()), str(cache_dir()), str(ROOT), str(Path(tiny_dirs["llama"]).parent)}
    if os.environ.get("TMPDIR"):
        secrets.add(os.environ["TMPDIR"])
    at = new_app(300).run()
    for page in PAGES:
        at.switch_page(page.file).run()
        assert not at.exception, (page.name, [e.value for e in at.exception])
        texts = page_texts(at)
        assert len(texts) > 3, page.name  # the page drew
        leaks = [(page.name, secret, text[:200]) for text in texts for secret in secrets if secret in text]
        assert not leaks, leaks


def test_a_visitors_capacity_search_is_capped(new_app, public, tiny_server):
    """On a public server the remote page's capacity search ends within two minutes and tries at
    most max_batch requests in flight (or per second), whatever a crafted session holds."""
    from ui.public import _loaded

    url, _ = tiny_server
    public.write_text(public.read_text() + f'remote_urls = ["{url}"]\n')
    _loaded.cache_clear()
    at = new_app(180).run()
    at.switch_page(page_file("remote")).run()
    at.session_state["rm_cap_max_load"] = 500.0
    at = next(b for b in at.button if b.label == "Connect").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert at.number_input(key="rm_cap_budget").max == 120
    assert at.number_input(key="rm_cap_max_load").max == 8 and at.number_input(key="rm_cap_max_load").value <= 8
    at.session_state["rm_cap_max_rate"] = 60.0  # by request rate: as many per second as in flight
    at = at.radio(key="rm_cap_by").set_value("rate").run()
    assert at.number_input(key="rm_cap_max_rate").max == 8 and at.number_input(key="rm_cap_max_rate").value <= 8
