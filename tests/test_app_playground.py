"""The playground page under streamlit.testing's AppTest, on a tiny random model."""

from __future__ import annotations

import logging
import re

import pytest

from app_pages import page_file
from tests.app_helpers import click_run, count_chips, errors, html_bodies, run_playground
from tests.figure_checks import charts
from ui.replay import step_caption
from ui.run_state import RunStatus
from ui.theme import MIB


def test_generation_shows_tokens_metrics_and_charts(app):
    at = run_playground(app, "The quick brown fox", max_new=5, attention="eager")
    assert not at.exception and not errors(at)
    result = at.session_state["pg_result"]
    assert result.status == RunStatus.DONE and 1 <= len(result.tokens) <= 5
    body = html_bodies(at)
    assert count_chips(body, "pd-prefill", "pd-in") == result.num_prompt_tokens  # replay ends lit
    assert count_chips(body, "pd-out") == len(result.tokens)
    first = f"step {result.tokens[0].step} · {result.latencies_ms()[0]:.0f} ms"  # the first chip: its TTFT
    assert first in body and "ms on a chip: time since the previous token reached you" in body  # which clock
    m = result.metrics
    shown = {x.label: x.value for x in at.metric}
    assert shown["TTFT"] == f"{m.ttft_ms:.1f} ms" and shown["E2E"] == f"{m.e2e_ms:.0f} ms"
    specs = charts(at)
    assert {
        "KV cache per step: tokens and blocks",
        "Latency of each output token",
        "Peak transient memory per step",
        "Attention probabilities, layer 1, head 0",
    } <= set(specs)
    kv = specs["KV cache per step: tokens and blocks"]
    prefill = next(d for d in kv["data"] if d["name"] == "prefill")
    assert prefill["y"] == [result.num_prompt_tokens]
    latency = specs["Latency of each output token"]
    assert next(d for d in latency["data"] if d["name"] == "TTFT (prefill)")["y"] == pytest.approx([m.ttft_ms])
    memory = specs["Peak transient memory per step"]
    peak = next(d for d in memory["data"] if d["name"] == "peak, prefill")
    assert peak["y"] == pytest.approx([result.steps[0].peak_bytes / MIB])
    table = at.dataframe[0].value
    assert list(table["step"]) == [s.step for s in result.steps]


def test_sdpa_run_explains_missing_heatmap(app):
    at = run_playground(app, "Hello there", max_new=3, attention="sdpa")
    assert not at.exception and not errors(at)
    assert any("eager" in i.value for i in at.info)
    assert not any(title.startswith("Attention probabilities") for title in charts(at))


@pytest.mark.parametrize(
    "prompt, settings, expected",
    [
        ("", {}, "The prompt is empty"),
        ("   ", {}, "The prompt is empty"),
        ("word " * 600, {}, "context"),  # the tiny model's context is 512 tokens
        ("word " * 450, {"max_new": 100}, "exceed the context"),  # each fits alone, not together
    ],
)  # top-p 0 cannot be typed any more: the box's minimum is above 0 (tests/test_browser.py)
def test_bad_input_shows_a_message_not_a_traceback(app, prompt, settings, expected):
    at = run_playground(app, prompt, **settings)
    assert not at.exception
    assert any(expected in e for e in errors(at)), errors(at)
    at = run_playground(at, "Hello", max_new=2, top_p=1.0)  # and the page keeps working
    assert not at.exception and not errors(at)
    assert at.session_state["pg_result"].status == RunStatus.DONE


def test_a_bug_is_logged_and_shown_as_an_internal_error(app, monkeypatch, caplog):
    """A ValueError that is not a LabError (numpy's, torch's, a bug of ours) is not the visitor's
    fault: the page says "internal error" with an id, the server log holds its traceback under
    that id, and the page keeps working."""
    from engine.worker.sampler import Sampler

    def broken(self, *args):
        raise ValueError("planted: operands could not be broadcast together")

    sample = Sampler.sample
    monkeypatch.setattr(Sampler, "sample", broken)
    with caplog.at_level(logging.ERROR, logger="pdlab.ui"):
        at = run_playground(app, "Hello", max_new=2)
    shown = " ".join(errors(at))
    found = re.search(r"Internal error \(ValueError\), logged as ([0-9a-f]{8})", shown)
    assert found and "Cannot run this" not in shown and "planted" not in shown, shown
    logged = [r for r in caplog.records if found.group(1) in r.getMessage()]
    assert logged and "planted" in str(logged[0].exc_info[1]), caplog.text
    monkeypatch.setattr(Sampler, "sample", sample)
    at = run_playground(at, "Hello", max_new=2)
    assert not errors(at) and at.session_state["pg_result"].status == RunStatus.DONE


def test_the_sampling_panel_says_what_is_active(app):
    """The closed panel read "greedy by default" while temperature 0.7 was in use."""
    assert app.expander[0].label == "Sampling: greedy (temperature 0)"
    at = run_playground(app, "Hello", max_new=2, temperature=0.7, top_k=40, seed=3)
    assert not at.exception
    labels = [e.label for e in at.expander]
    assert "Sampling: temperature 0.7, top-k 40, seed 3" in labels, labels


def test_the_untouched_default_prompt_follows_the_language(app):
    """The Chinese page kept asking in English."""
    at = app.sidebar.radio(key="lang").set_value("zh").run()
    assert at.text_area(key="pg_prompt").value == "法国的首都是哪里？"
    assert "隐藏维度" in " ".join(c.value for c in at.caption) and "hidden" not in at.caption[0].value
    at.text_area(key="pg_prompt").input("我自己的问题")
    at = at.button(key="pg_run").click().run()
    at = at.sidebar.radio(key="lang").set_value("en").run()
    assert at.text_area(key="pg_prompt").value == "我自己的问题"  # a typed prompt is the user's: kept


def test_unknown_model_is_reported(new_app, monkeypatch, tmp_path):
    monkeypatch.setenv("PDLAB_MODEL", str(tmp_path / "no-such-model"))
    at = new_app().run()
    assert not at.exception
    assert any("not found" in e for e in errors(at)), errors(at)
    (tmp_path / "pickled").mkdir()
    (tmp_path / "pickled" / "config.json").write_text("{}")
    (tmp_path / "pickled" / "pytorch_model.bin").write_bytes(b"not really")
    monkeypatch.setenv("PDLAB_MODEL", str(tmp_path / "pickled"))
    at = new_app().run()
    assert not at.exception and errors(at), "a broken model folder gets a message too"


@pytest.mark.parametrize("prompt", ["<script>alert(1)</script>", "<img src=x onerror=alert(1)>"])
def test_markup_in_prompts_stays_text(app, prompt):
    at = run_playground(app, prompt, max_new=3)
    assert not at.exception and not errors(at)
    body = html_bodies(at)
    assert "<script" not in body and "<img" not in body and "&lt;" in body
    result = at.session_state["pg_result"]
    assert "".join(p.label for p in result.prompt) == prompt


def test_replay_slider_steps_through_the_run(app):
    at = run_playground(app, "One two three", max_new=4, attention="sdpa")
    result = at.session_state["pg_result"]
    slider = at.select_slider(key="pg_replay_step")
    assert slider.value == result.steps[-1].step
    at = slider.set_value(-1).run()
    body = html_bodies(at)
    assert count_chips(body, "pd-pending", "pd-in") == result.num_prompt_tokens  # before the prefill step
    assert count_chips(body, "pd-out") == 0
    at = at.select_slider(key="pg_replay_step").set_value(0).run()
    body = html_bodies(at)
    assert count_chips(body, "pd-prefill", "pd-in") == result.num_prompt_tokens  # all at once
    assert count_chips(body, "pd-out") == 1 and count_chips(body, "pd-current") == 1
    assert any("prefill" in m.value for m in at.markdown)
    at = at.select_slider(key="pg_replay_step").set_value(2).run()
    assert count_chips(html_bodies(at), "pd-decode", "pd-out") == 2  # then one per step
    assert not at.exception


def test_interrupted_run_is_marked_stopped(app):
    at = run_playground(app, "Hello", max_new=3)
    at.session_state["pg_result"].status = RunStatus.RUNNING  # as if Stop cut the script short
    at = at.run()
    assert at.session_state["pg_result"].status == RunStatus.STOPPED
    assert any("Stopped" in w.value for w in at.warning)


def test_language_switch(app):
    app.sidebar.radio(key="lang").set_value("zh")
    at = app.run()
    assert at.title[0].value == "预填充与解码，逐个 token 看"
    at = run_playground(at, "Hello", max_new=2)
    assert not at.exception and any("完成" in s.value for s in at.success)


def test_worked_example_button(app):
    at = app.button(key="pg_example").click().run()
    assert at.session_state["pg_prompt"] == "今天天气" and at.session_state["pg_max_new"] == 3
    at = at.button(key="pg_run").click().run()
    result = at.session_state["pg_result"]
    assert result.num_prompt_tokens == 9 and not errors(at)


def test_settings_and_result_survive_a_visit_to_another_page(app):
    app.text_area(key="pg_prompt").input("Count to five")
    app.number_input(key="pg_max_new").set_value(4)
    app.radio(key="pg_attention").set_value("eager")
    app.toggle(key="pg_chat").set_value(False)
    app.toggle(key="pg_probe").set_value(False)
    app.number_input(key="pg_temperature").set_value(0.5)
    app.number_input(key="pg_seed").set_value(7)
    at = click_run(app)
    result = at.session_state["pg_result"]
    at = at.select_slider(key="pg_speed").set_value(2).run()
    at = at.selectbox(key="pg_heat_head").set_value(1).run()
    at.switch_page(page_file("memory")).run()
    at.switch_page(page_file("playground")).run()
    assert not at.exception and not errors(at)
    assert at.text_area(key="pg_prompt").value == "Count to five"
    assert at.number_input(key="pg_max_new").value == 4 and at.radio(key="pg_attention").value == "eager"
    assert at.toggle(key="pg_chat").value is False and at.toggle(key="pg_probe").value is False
    assert at.number_input(key="pg_temperature").value == 0.5 and at.number_input(key="pg_seed").value == 7
    assert at.session_state["pg_result"] is result  # the finished run, with its tabs
    assert at.select_slider(key="pg_speed").value == 2 and at.selectbox(key="pg_heat_head").value == 1
    assert "Attention probabilities, layer 1, head 1" in charts(at)


def test_a_speculative_run_colours_its_drafts_and_keeps_the_tokens(app):
    prompt = "one two three four one two three four one two three four one two"
    at = run_playground(app, prompt, max_new=16, attention="eager")
    baseline = at.session_state["pg_result"].request.output_token_ids
    at = run_playground(at, prompt, max_new=16, attention="eager", spec_k=4)
    assert not at.exception and not errors(at), errors(at)
    result = at.session_state["pg_result"]
    assert result.request.output_token_ids == baseline  # greedy: the same tokens, in fewer steps
    spec = [s.seqs[0] for s in result.steps if s.seqs[0].drafted]
    assert spec and len(result.steps) < 1 + len(baseline)
    body = html_bodies(at)
    accepted = sum(s.accepted for s in spec)
    assert count_chips(body, "pd-spec-ok") == accepted + 1  # and the legend's
    assert count_chips(body, "pd-spec-no") == sum(s.drafted - s.accepted for s in spec) + 1
    assert "drafted, rejected (not output)" in body
    table = at.dataframe[0].value
    assert "drafts accepted / verified" in table.columns
    assert f"{spec[0].accepted} / {spec[0].drafted}" in list(table["drafts accepted / verified"])
    verify = next(s for s in result.steps if s.seqs[0].drafted)
    q = verify.seqs[0]
    assert f"{q.num_tokens} tokens in (the last token and {q.drafted} drafted)" in step_caption(
        result, verify.step, "en"
    )
    last = result.steps[-1].seqs[0]
    if last.drafted:  # the replay shows the last step's caption
        assert any(f"{last.accepted} of {last.drafted} drafts accepted" in m.value for m in at.markdown)
    assert result.memory_pass == "replay" and all(s.peak_bytes is not None for s in result.steps)
    assert "Attention probabilities, layer 1, head 0" in charts(at)  # the replay captured it, step for step


def test_speculation_without_the_kv_cache_is_refused_clearly(app):
    at = run_playground(app, "Hello there", max_new=4, kv=False, spec_k=4)
    assert not at.exception and any("turn the KV cache on" in e for e in errors(at)), errors(at)
