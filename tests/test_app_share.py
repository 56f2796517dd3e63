"""Sharing a playground run under AppTest, on the tiny models: download buttons after a run, a
trace file uploaded into a fresh session (and into one with no model) shows the same run with no
model run, invalid files get a message, and share links fill the controls once."""

from __future__ import annotations

import json
import re
from urllib.parse import parse_qsl, urlsplit

import pytest

from app_pages.playground.share_link import parse_link
from tests.app_helpers import errors, html_bodies, run_playground, upload_trace
from tests.figure_checks import charts


def test_a_run_offers_both_downloads(saved_run):
    at, _, _ = saved_run
    labels = {b.proto.label for b in at.get("download_button")}
    assert labels == {"Download trace (JSON)", "Download report (HTML)"}


def test_uploaded_trace_shows_the_same_run_without_running_a_model(saved_run, app, monkeypatch):
    original_at, original, text = saved_run
    import ui.live

    started, start_run = [], ui.live.start_run
    monkeypatch.setattr(ui.live, "start_run", lambda *a: started.append(a) or start_run(*a))
    at = upload_trace(app, text, "my run.json")
    assert started == [], "an upload must not run a model"
    assert not at.exception and not errors(at)
    shown = at.session_state["pg_result"]
    assert shown.loaded_from == "my run.json" and shown.tokens == original.tokens
    assert shown.load == original.load  # how busy the machine was travels with the run
    notes = [re.sub(r"\\(.)", r"\1", i.value) for i in at.info]  # the page backslash-escapes the name
    assert any("my run.json" in n and "No model was run" in n for n in notes), notes
    assert charts(at) == charts(original_at)  # every chart's Plotly JSON, as the browser gets it
    assert html_bodies(at) == html_bodies(original_at)  # chips and replay
    assert at.dataframe[0].value.equals(original_at.dataframe[0].value)
    at = at.run()  # a rerun does not load the file again, and a new run replaces it
    assert at.session_state["pg_result"] is shown
    at = run_playground(at, "Hello", max_new=2)
    assert len(started) == 1 and at.session_state["pg_result"].loaded_from is None and not at.exception


def test_an_output_cut_inside_a_character_is_explained(saved_run, app):
    doc = json.loads(saved_run[2])
    doc["request"]["text"] = "今天\ufffd"  # the run stopped after one of a character's three bytes
    at = upload_trace(app, json.dumps(doc), "cut.json")
    assert not at.exception
    assert any(c.value.startswith("The text ends in �: the model writes some characters") for c in at.caption)
    at = upload_trace(app, saved_run[2], "whole.json")
    assert not any(c.value.startswith("The text ends in �") for c in at.caption)


def test_upload_works_when_no_model_can_be_loaded(new_app, saved_run, monkeypatch, tmp_path):
    monkeypatch.setenv("PDLAB_MODEL", str(tmp_path / "no-such-model"))
    at = new_app().run()
    assert any("not found" in e for e in errors(at))
    older = {k: v for k, v in json.loads(saved_run[2]).items() if k != "load"}  # saved before it was recorded
    at = upload_trace(at, json.dumps(older))
    assert not at.exception
    assert at.session_state["pg_result"].tokens == saved_run[1].tokens
    assert "Attention probabilities, layer 1, head 0" in charts(at)
    assert any("does not say how busy the machine was" in c.value for c in at.caption)


@pytest.mark.parametrize(
    "content, expected",
    [
        (b"this is not json", "not JSON"),
        (b"\xff\xfe\x00binary", "not UTF-8"),
        ('{"format": "pdlab-playground-trace", "version": 7}', "Unsupported trace version 7"),
        ('{"hello": "world"}', "format"),
        ("[]", "should be an object"),
    ],
)
def test_invalid_upload_gets_a_clear_message(app, content, expected):
    at = upload_trace(app, content, "bad.json")
    assert not at.exception
    assert any("Could not load bad.json" in e and expected in e for e in errors(at)), errors(at)
    assert at.session_state.get("pg_result") is None
    at = run_playground(at, "Hello", max_new=2)  # the page keeps working
    assert not at.exception and at.session_state["pg_result"].tokens


def test_broken_field_names_the_field(saved_run, app):
    doc = json.loads(saved_run[2])
    doc["steps"][1]["kv_tokens"] = "many"
    at = upload_trace(app, json.dumps(doc), "edited.json")
    assert any("steps[1].kv_tokens should be a whole number" in e for e in errors(at)), errors(at)


def test_share_link_fills_the_controls_once(new_app, tiny_dirs, monkeypatch):
    monkeypatch.setenv("PDLAB_MODEL", str(tiny_dirs["llama"]))
    at = new_app()
    at.query_params.update(
        {
            "prompt": "<b>shared</b> prompt",
            "max_new_tokens": "7",
            "attention": "eager",
            "kv": "0",
            "chat": "0",
            "temperature": "0.7",
            "top_k": "5",
            "top_p": "0.9",
            "seed": "42",
            "dtype": "bfloat16",
        }
    )
    at = at.run()
    assert not at.exception
    assert at.text_area(key="pg_prompt").value == "<b>shared</b> prompt"
    assert at.number_input(key="pg_max_new").value == 7 and at.radio(key="pg_attention").value == "eager"
    assert at.toggle(key="pg_kv").value is False and at.toggle(key="pg_chat").value is False
    assert at.number_input(key="pg_temperature").value == 0.7 and at.number_input(key="pg_top_k").value == 5
    assert at.number_input(key="pg_top_p").value == 0.9 and at.number_input(key="pg_seed").value == 42
    assert at.sidebar.selectbox(key="model_dtype").value == "bfloat16"
    assert any("Filled in from the shared link" in i.value for i in at.info)
    at.text_area(key="pg_prompt").input("my own edit")  # in the form: sent with Run
    at = at.button(key="pg_run").click().run()
    settings = at.session_state["pg_result"].settings
    assert settings.prompt == "my own edit" and settings.kv_cache is False and not at.exception
    at = at.run().run()  # later reruns never apply the link again
    assert at.text_area(key="pg_prompt").value == "my own edit"
    assert not any("shared link" in i.value for i in at.info)  # the note goes with the first run


def test_invalid_link_parameters_are_ignored_with_a_note(new_app, tiny_dirs, monkeypatch):
    monkeypatch.setenv("PDLAB_MODEL", str(tiny_dirs["llama"]))
    at = new_app()
    at.query_params.update(
        {
            "max_new_tokens": "lots",
            "attention": "flash",
            "top_p": "7",
            "dtype": "int4",
            "model": "/etc/passwd",
            "wat": "1",
            "prompt": "kept",
        }
    )
    at = at.run()
    assert not at.exception and not errors(at)
    assert at.text_area(key="pg_prompt").value == "kept"
    assert at.number_input(key="pg_max_new").value == 32 and at.radio(key="pg_attention").value == "sdpa"
    warning = re.sub(r"\\(.)", r"\1", " ".join(w.value for w in at.warning))
    for name in ("max_new_tokens", "attention", "top_p", "dtype", "model", "wat"):
        assert f"{name}=" in warning, warning


def test_link_asking_more_tokens_than_the_context_is_lowered(new_app, tiny_dirs, monkeypatch):
    monkeypatch.setenv("PDLAB_MODEL", str(tiny_dirs["llama"]))  # context 512
    at = new_app()
    at.query_params["max_new_tokens"] = "5000"
    at = at.run()
    assert not at.exception and at.number_input(key="pg_max_new").value == 512
    assert any("5000" in w.value for w in at.warning)


def test_show_share_link_shows_the_current_settings(app):
    app.text_area(key="pg_prompt").input("Ünïcode & spaces?")
    app.number_input(key="pg_max_new").set_value(9)
    app.radio(key="pg_attention").set_value("eager")
    assert not app.code  # no link until asked for
    at = app.button(key="pg_share").click().run()  # submits the form: the link has the typed settings
    assert "pg_result" not in at.session_state  # and runs nothing
    link = at.code[0].value
    query = dict(parse_qsl(urlsplit(link).query))
    assert "model" not in query  # the tiny model is a local folder
    updates, applied, ignored = parse_link(query)
    assert not ignored and updates["pg_prompt"] == "Ünïcode & spaces?" and updates["pg_max_new"] == 9
    assert updates["pg_attention"] == "eager" and updates["model_dtype"] == "float32"
    # the button said "Copy share link" and copied nothing; it says what it does
    assert at.button(key="pg_share").label == "Show share link"
    assert any("press the copy button" in c.value for c in at.caption)
    at = at.button(key="pg_link_hide").click().run()
    assert not at.code


def test_link_to_a_hub_model_that_cannot_load_still_offers_the_uploader(new_app, tiny_dirs, monkeypatch):
    monkeypatch.setenv("PDLAB_MODEL", str(tiny_dirs["llama"]))
    at = new_app()
    at.query_params.update({"model": "someorg/no-such-model", "dtype": "bfloat16", "prompt": "hi"})
    at = at.run()
    assert not at.exception
    # the link's model waits for a yes (a hub id would be downloaded); the rest is filled in
    assert at.sidebar.selectbox(key="model_spec").value == str(tiny_dirs["llama"])
    assert any("This link was made with the model someorg/no-such-model" in i.value.replace("\\", "") for i in at.info)
    assert any("Filled in from the shared link: dtype, prompt" in i.value for i in at.info)
    at = at.button(key="pg_share_model_load").click().run()
    assert at.sidebar.selectbox(key="model_spec").value == "someorg/no-such-model"
    assert any("could not be loaded" in e for e in errors(at))  # no such repo, online or not
    # AppTest cannot send a typed-in selectbox value back, so the upload itself is tested above
    assert at.file_uploader(key="pg_trace_upload") is not None


def test_keeping_the_current_model_drops_the_question(new_app, tiny_dirs, monkeypatch):
    monkeypatch.setenv("PDLAB_MODEL", str(tiny_dirs["llama"]))
    at = new_app()
    at.query_params.update({"model": "bundled"})
    at = at.run()
    at = at.button(key="pg_share_model_keep").click().run()
    assert not any("This link was made with the model" in i.value for i in at.info)
    assert at.sidebar.selectbox(key="model_spec").value == str(tiny_dirs["llama"])
