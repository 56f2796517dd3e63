"""The speculative decoding lab under streamlit.testing's AppTest, on a tiny random model."""

from __future__ import annotations

import pytest

from app_pages import page_file
from app_pages.speculative.compare import decode_summary
from lab.busy import MachineLoad
from tests.app_helpers import count_chips, errors, html_bodies, table_with
from tests.figure_checks import charts

PAGE = page_file("speculative")
REPEATS = "one two three four one two three four one two three four one two"


def chart(at, prefix: str) -> dict:
    return next(spec for title, spec in charts(at).items() if title.startswith(prefix))


def run_both(at, prompt: str = REPEATS, k: int = 4, max_new: int = 16):
    at.selectbox(key="sp_preset").set_value("own")
    at.text_area(key="sp_prompt").set_value(prompt)
    at.number_input(key="sp_k").set_value(k)
    at.number_input(key="sp_max_new").set_value(max_new)
    return at.button(key="sp_run").click().run()


def test_a_run_side_by_side_says_where_the_speedup_comes_from(app):
    assert any("Run both to compare them" in i.value for i in app.info)
    at = run_both(app)
    assert not at.exception and not errors(at), errors(at)
    c = at.session_state["sp_result"]
    assert c.same_tokens and c.plain.settings.speculative_k == 0 and c.spec.settings.speculative_k == 4
    s = decode_summary(c)
    assert s.drafted > 0 and s.per_step > 1  # the repeating prompt: prompt lookup drafts and some are accepted
    assert s.speedup == pytest.approx(s.per_step / s.ratio)
    shown = {m.label: m.value for m in at.metric}
    assert shown["Tokens per decode step"] == f"{s.per_step:.2f}" and shown["Drafts accepted"] == f"{s.acceptance:.0%}"
    if not c.load.busy:
        assert shown["Decode speed-up"] == f"{s.speedup:.2f}×"
        where = next(m.value for m in at.markdown if "Speed-up = tokens per step ÷ step cost" in m.value)
        assert f"{s.per_step:.2f} ÷ {s.ratio:.2f} = **{s.speedup:.2f}×**" in where
    body = html_bodies(at)
    assert count_chips(body, "pd-spec-ok") == s.accepted + 1  # the chips, and the legend's
    steps = charts(at)["Tokens of each speculative decode step"]
    accepted = next(d for d in steps["data"] if d["name"] == "drafted, accepted (output)")
    assert sum(accepted["y"]) == s.accepted
    kv = charts(at)["KV cache per step: written, then kept"]
    kept = next(d for d in kv["data"] if d["name"] == "speculative: kept after rollback")
    mid = [s for s in c.spec.steps[:-1] if s.phase == "decode"]  # before the last: the pool still holds them
    assert kept["y"][1 : len(mid) + 1] == [s.kv_tokens for s in mid]
    c.plain.load = MachineLoad(2.0, 2, 1.0)  # as if the machine had been busy: no speed-up is given
    at = at.run()
    assert {m.label: m.value for m in at.metric}["Decode speed-up"] == "⚠ unreliable"
    assert any("The speed-up is not given" in w.value for w in at.warning)


def test_the_verify_cost_curve_and_its_claim(app):
    at = app
    at.text_input(key="sp_contexts").set_value("8, 32")
    at.multiselect(key="sp_ks").set_value([1, 4])
    at = at.button(key="sp_cost_run").click().run()
    assert not at.exception and not errors(at), errors(at)
    r = at.session_state["sp_cost_result"]
    assert [(c.context, c.k) for c in r.costs] == [(8, 1), (8, 4), (32, 1), (32, 4)]
    table = table_with(at, "step (ms)")
    assert list(table["k"]) == [1, 4, 1, 4]
    fig = chart(at, "Verify step ÷ plain decode step, by draft length")  # "(⚠ unreliable…)" follows when busy
    line = next(d for d in fig["data"] if d["name"] == "context 8")
    assert line["x"] == [1, 4] and line["y"] == pytest.approx([c.ratio for c in r.costs[:2]])
    assert chart(at, "Acceptance rate needed to break even")
    r.load = MachineLoad(2.0, 2, 1.0)  # as if the machine had been busy: every ratio says so
    busy = at.run()
    assert "Verify step ÷ plain decode step, by draft length (⚠ unreliable: busy machine)" in charts(busy)
    assert any(m.value.startswith("**⚠ unreliable") for m in busy.markdown)
    card = [m.value for m in at.markdown if "verifying k drafted tokens costs about one decode step" in m.value]
    assert card and any(
        m.value.startswith("**✓") or "**≈" in m.value or "**✗" in m.value or "**⚠" in m.value for m in at.markdown
    )


@pytest.mark.parametrize(
    "contexts, ks, expected", [("abc", [1], "Contexts must be whole numbers"), ("8", [], "at least one")]
)
def test_bad_cost_settings_get_a_message(app, contexts, ks, expected):
    app.text_input(key="sp_contexts").set_value(contexts)
    app.multiselect(key="sp_ks").set_value(ks)
    at = app.button(key="sp_cost_run").click().run()
    assert not at.exception and any(expected in e for e in errors(at)), errors(at)


def test_an_empty_prompt_is_refused_and_the_page_keeps_working(app):
    at = run_both(app, prompt="   ")
    assert not at.exception and any("The prompt is empty" in e for e in errors(at)), errors(at)
    at = run_both(at, max_new=4)
    assert not at.exception and not errors(at) and at.session_state["sp_result"].same_tokens


def test_chinese(app):
    app.sidebar.radio(key="lang").set_value("zh")
    at = app.run()
    assert at.title[0].value.startswith("推测解码") and [t.label for t in at.tabs] == [
        "同一提示，开与不开",
        "验证步的代价",
    ]


def test_a_run_with_the_int8_draft_model(app):
    at = app
    at.radio(key="sp_drafter").set_value("int8")
    at = run_both(at, prompt="The quick brown fox jumps over the lazy dog", k=3, max_new=12)
    assert not at.exception and not errors(at), errors(at)
    c = at.session_state["sp_result"]
    assert c.same_tokens and c.drafter == "int8"
    s = decode_summary(c)
    assert s.drafted > 0 and s.drafting_steps >= s.steps - 1  # every step but a last one with no room left
    assert any("Speculative (int8 draft model, k = 3)" in m.value for m in at.markdown)


def test_an_adaptive_run_says_so_and_varies_k(app):
    at = app
    at.toggle(key="sp_adaptive").set_value(True)
    at = run_both(at, k=2, max_new=24)
    assert not at.exception and not errors(at), errors(at)
    c = at.session_state["sp_result"]
    assert c.same_tokens and c.adaptive
    assert any("k = 2, adaptive" in m.value for m in at.markdown)
    ks = {s.seqs[0].drafted for s in c.spec.steps if s.seqs[0].drafted}
    assert len(ks) > 1, ks  # k moved with the acceptance
