"""The speculative decoding lab under streamlit.testing's AppTest, on a tiny random model."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest

from app_pages import page_file
from app_pages.speculative.compare import decode_summary
from lab.busy import MachineLoad
from tests.app_helpers import count_chips, errors, html_bodies, table_with
from tests.figure_checks import charts

PAGE = page_file("speculative")
REPEATS = "one two three four one two three four one two three four one two"
RATIO = re.compile(r"\d[\d.,]*× \[[\d.,]+–[\d.,]+\], n = \d+")  # ui/paired.ratio_text


def chart(at, prefix: str) -> dict:
    return next(spec for title, spec in charts(at).items() if title.startswith(prefix))


def run_both(at, prompt: str = REPEATS, k: int = 4, max_new: int = 16, rounds: int = 5):
    at.selectbox(key="sp_preset").set_value("own")
    at.text_area(key="sp_prompt").set_value(prompt)
    at.number_input(key="sp_k").set_value(k)
    at.number_input(key="sp_max_new").set_value(max_new)
    at.number_input(key="sp_rounds").set_value(rounds)
    return at.button(key="sp_run").click().run()


def test_a_run_side_by_side_says_where_the_speedup_comes_from(app):
    assert any("Run both to compare them" in i.value for i in app.info)
    at = run_both(app)
    assert not at.exception and not errors(at), errors(at)
    c = at.session_state["sp_result"]
    assert c.same_tokens and c.plain.settings.speculative_k == 0 and c.spec.settings.speculative_k == 4
    s = decode_summary(c)
    assert s.drafted > 0 and s.per_step > 1  # the repeating prompt: prompt lookup drafts and some are accepted
    assert c.speedup.n == 5 and len(c.tpot_ms["plain"]) == 5  # five rounds, each run once in each
    shown = {m.label: m.value for m in at.metric}
    assert shown["Tokens per decode step"] == f"{s.per_step:.2f}" and shown["Drafts accepted"] == f"{s.acceptance:.0%}"
    assert shown["TPOT, plain (median)"] == f"{c.median_tpot('plain'):.1f} ms"
    line = next(m.value for m in at.markdown if m.value.startswith("**Decode speed-up**"))
    assert RATIO.search(line) and any(w in line for w in ("faster here", "slower here", "not separable here"))
    cost = s.step_cost(c.speedup)
    where = next(m.value for m in at.markdown if "Speed-up = tokens per step ÷ step cost" in m.value)
    assert f"{s.per_step:.2f} ÷ {cost.median:.2f} = **{c.speedup.median:.2f}×**" in where
    assert cost.low <= cost.median <= cost.high
    body = html_bodies(at)
    assert count_chips(body, "pd-spec-ok") == s.accepted + 1  # the chips, and the legend's
    steps = charts(at)["Tokens of each speculative decode step"]
    accepted = next(d for d in steps["data"] if d["name"] == "drafted, accepted (output)")
    assert sum(accepted["y"]) == s.accepted
    kv = charts(at)["KV cache per step: written, then kept"]
    kept = next(d for d in kv["data"] if d["name"] == "speculative: kept after rollback")
    mid = [s for s in c.spec.steps[:-1] if s.phase == "decode"]  # before the last: the pool still holds them
    assert kept["y"][1 : len(mid) + 1] == [s.kv_tokens for s in mid]
    for fig, last in ((steps, len(accepted["x"])), (kv, max(x for d in kv["data"] for x in d["x"]))):
        axis = fig["layout"]["xaxis"]  # whole steps, a round step between ticks, never crowded
        assert axis["tickformat"] == "d" and axis["dtick"] in (1, 2, 5, 10, 20, 50) and last / axis["dtick"] <= 8
        title = fig["layout"]["title"]  # hung from the top: a wrapped title's lines stay above the plot
        assert (title["yref"], title["y"], title["yanchor"]) == ("container", 1, "top")
    c.speedup = replace(c.speedup, load=MachineLoad(2.0, 2, 1.0))  # as if the machine had been busy
    at = at.run()
    line = next(m.value for m in at.markdown if m.value.startswith("**Decode speed-up**"))
    assert RATIO.search(line) and "⚠ 2.0/2 cores busy with other work" in line  # beside the number, never instead of it
    assert not any("unreliable" in m.value.lower() for m in [*at.markdown, *at.warning])  # beside, not a verdict


def test_the_verify_cost_curve_and_its_claim(app):
    at = app
    at.text_input(key="sp_contexts").set_value("8, 32")
    at.multiselect(key="sp_ks").set_value([1, 4])
    at = at.button(key="sp_cost_run").click().run()
    assert not at.exception and not errors(at), errors(at)
    r = at.session_state["sp_cost_result"]
    assert [(c.context, c.k) for c in r.costs] == [(8, 0), (8, 1), (8, 4), (32, 0), (32, 1), (32, 4)]
    table = table_with(at, "step (ms)")
    assert list(table["k"]) == [0, 1, 4, 0, 1, 4]
    cells = list(table["÷ plain decode step (95 % interval, n)"])
    assert cells[0] == "1× (the base)" and all(RATIO.match(x) for x in cells[1:3] + cells[4:]), cells
    assert not table.isna().any().any() and "None" not in table.to_string()
    fig = chart(at, "Verify step ÷ plain decode step, by draft length")
    line = next(d for d in fig["data"] if d["name"] == "context 8")
    assert line["x"] == [1, 4] and line["y"] == pytest.approx([c.ratio for c in r.costs[1:3]])
    assert line["error_y"]["array"] == pytest.approx([c.interval.high - c.ratio for c in r.costs[1:3]])
    assert fig["layout"]["xaxis"]["tickvals"] == [1, 4]  # the measured k only
    assert chart(at, "Acceptance rate needed to break even")
    card = [m.value for m in at.markdown if "verifying k drafted tokens costs about one decode step" in m.value]
    assert card and any(m.value.startswith(("**✓", "**≈", "**✗", "**≟")) for m in at.markdown)
    for c in (c for c in r.costs if c.k):  # as if the machine had been busy: the load stands beside each ratio
        object.__setattr__(c, "interval", replace(c.interval, load=MachineLoad(2.0, 2, 1.0)))
    busy = at.run()
    assert not any("⚠" in title for title in charts(busy)) and not any("**⚠" in m.value for m in busy.markdown)
    cells = list(table_with(busy, "step (ms)")["÷ plain decode step (95 % interval, n)"])
    assert all(x.endswith("⚠ 2.0/2 cores busy with other work") for x in cells[1:3]), cells


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


def test_each_round_lands_with_its_counted_work_before_the_speedup(tiny):
    from app_pages.speculative.compare import run_both as compare_both

    landed = []
    got = compare_both(
        tiny, REPEATS, 4, 12, None, lambda *_: None, rounds=5, on_round=lambda c, r: landed.append((c, r))
    )
    assert [r for _, r in landed] == list(range(1, 6))
    for c, r in landed:  # counted work and TPOTs so far; the speed-up is judged once, over every round
        assert c.speedup is None and decode_summary(c) is not None and len(c.tpot_ms["spec"]) == r
    assert got.speedup is not None and got.speedup.n == 5
