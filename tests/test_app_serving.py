"""The serving lab page under streamlit.testing's AppTest, on a tiny random model: a small preset
run under two policies, the figures' JSON, the step inspector, and bad input."""

from __future__ import annotations

import math
import statistics

import pytest
from streamlit.testing.v1 import AppTest

from app_pages import page_file
from app_pages.serving.notes import here_sentence
from app_pages.serving.run import ServingStatus
from app_pages.serving.run_latencies import ids_in, ratio_column
from lab.busy import MachineLoad
from lab.workload import summarize
from tests.app_helpers import errors, table_with
from tests.figure_checks import charts
from ui.percentile_labels import shown_stats, stat_label
from ui.slo_box import verdict_word

PAGE = page_file("serving")
HOL = {"num_streams": 3, "long_prompt": 160, "stream_output": 10, "long_arrival_s": 0.0}


def set_params(at: AppTest, preset: str, **values) -> AppTest:
    for name, value in values.items():
        at.number_input(key=f"sv_{preset}_{name}").set_value(value)
    return at.run()


def run_hol(at: AppTest, budget: int = 32) -> AppTest:
    at = set_params(at, "head-of-line", **HOL)
    at.number_input(key="sv_budget").set_value(budget)
    at = at.button(key="sv_run").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert not errors(at), errors(at)
    return at


def test_defaults_compare_continuous_with_chunked_on_head_of_line(app):
    assert app.radio(key="sv_preset").value == "head-of-line"
    assert app.selectbox(key="sv_policy_a").value == "continuous"
    assert app.selectbox(key="sv_policy_b").value == "chunked"
    assert app.number_input(key="sv_head-of-line_long_prompt").value <= 256  # clamped to the tiny context (512)
    assert not errors(app) and not app.button(key="sv_run").disabled


def test_run_two_policies_and_read_every_chart(app):
    at = run_hol(app)
    result = at.session_state["sv_result"]
    assert result.status == ServingStatus.DONE and set(result.runs) == {"a", "b"}
    a, b = result.runs["a"], result.runs["b"]
    assert (a.policy, b.policy) == ("continuous", "chunked") and b.chunked and b.step_budget == 32
    specs = charts(at)
    # Gantt: one row per request, a bar per step each request took part in
    gantt = specs["Requests over time, A: continuous batching"]
    rows = {y for d in gantt["data"] for y in d["y"]}
    assert rows == {"chat 1", "chat 2", "chat 3", "long prompt"}
    bars = {d["name"]: d for d in gantt["data"]}
    decode = bars["decode (1 token)"]
    assert len(decode["y"]) == sum(q.phase == "decode" for s in a.trace.steps for q in s.seqs)
    long_prefill = [i for i, y in enumerate(bars["prefill (whole or chunk)"]["y"]) if y == "long prompt"]
    assert len(long_prefill) == 1  # whole: one step
    assert "Requests over time, B: continuous + chunked prefill" in specs
    # Batch composition of the inspected run (A): prefill + decode tokens per step
    comp = specs["Batch composition per step"]
    prefill = next(d for d in comp["data"] if d["name"] == "prefill tokens")["y"]
    decode_tokens = next(d for d in comp["data"] if d["name"] == "decode tokens")["y"]
    assert [p + d for p, d in zip(prefill, decode_tokens)] == [s.num_tokens for s in a.trace.steps]
    assert not any(d["name"].startswith("token budget") for d in comp["data"])  # A does not chunk
    # Block pool of A: cells in use after each step equal the blocks the engine reported
    pool = specs["KV block pool over time, A: continuous batching"]
    z = pool["data"][0]["z"]
    for col, step in enumerate(a.trace.steps):
        assert sum(row[col] != 0 for row in z) == step.kv_blocks
    legend = {d["name"] for d in pool["data"][1:]}
    assert {"free", "chat 1", "long prompt"} <= legend
    assert "KV slots: stored tokens against what each allocator reserves" in specs
    assert "Latency percentiles, A against B" in specs


def test_metrics_table_matches_summarize(app):
    """Each policy's column is the median of its rounds' summaries; B ÷ A the rounds' paired ratios with
    their interval and n (never blanked, never "None"), the verdict beside, the load said beside them."""
    at = run_hol(app)
    result = at.session_state["sv_result"]
    assert len(result.rounds) == 5 and result.runs == result.rounds[0]  # the default: five rounds raced
    table = table_with(at, "percentile")
    names = ["A: continuous batching", "B: continuous + chunked prefill"]
    ratios = ratio_column("en", result.load)  # the load, when busy, stands in the column's name
    assert list(table.columns) == ["metric", "percentile", *names, ratios, "B against A"]
    assert "None" not in table.to_string() and all(table[ratios].str.contains(r"\], n = 5"))
    captions = " ".join(c.value for c in at.caption)  # what to expect, then what this run showed
    here = here_sentence("head-of-line", result.rounds, "en", result.retaken, result.load)
    assert "Expected: chunked prefill trades" in captions and here in captions and "n = 5" in here
    for slot, name in zip("ab", names):
        summaries = [r[slot].summary() for r in result.rounds]
        shown = {(m, p): v for m, p, v in zip(table["metric"], table["percentile"], table[name])}
        for metric, label in (
            ("ttft_ms", "TTFT (ms)"),
            ("tpot_ms", "TPOT (ms)"),
            ("itl_ms", "ITL (ms)"),
            ("e2e_ms", "E2E (ms)"),
        ):
            n = summaries[0][metric]["n"]
            for p in shown_stats(("p50", "p90", "p99"), n):  # each with its n; "max of n" once
                assert shown[(label, stat_label(p, n, "en"))] == pytest.approx(
                    statistics.median(s[metric][p] for s in summaries)
                )
        tput = statistics.median(s["throughput_tok_s"] for s in summaries)
        assert shown[("throughput (tok/s)", "—")] == pytest.approx(tput)
    # only the short chats: the summary of just those requests
    at = at.selectbox(key="sv_mx_group").set_value("chat").run()
    table = table_with(at, "percentile")
    chats = [summarize(r["a"].trace, ids_in(r["a"], "chat"))["itl_ms"] for r in result.rounds]
    label = stat_label("p99", chats[0]["n"], "en")
    itl_p99 = table[(table["metric"] == "ITL (ms)") & (table["percentile"] == label)][names[0]].item()
    assert itl_p99 == pytest.approx(statistics.median(c["p99"] for c in chats))
    same = {m.label: m.value for m in at.metric}["identical outputs A = B"]
    assert same == "4 / 4"


def test_the_page_says_how_busy_the_machine_was_beside_the_ratios(app):
    """A result whose rounds ran beside other work keeps every ratio, with that work said beside it."""
    at = run_hol(app)
    result = at.session_state["sv_result"]
    result.load = MachineLoad(1.3, 2, 4.0)
    at = at.run()
    table = table_with(at, "percentile")
    ratios = table["B ÷ A [95 %], n · ⚠ 1.3/2 cores busy with other work"]
    assert ratios.str.contains(r"\], n = 5").all()  # every ratio kept, with its interval and n
    assert not any("unreliable" in c.value.lower() for c in at.caption)
    assert any("other processes kept up to 1.3 of this machine's 2 cores busy" in c.value for c in at.caption)


def test_step_inspector_advances_one_iteration(app):
    at = run_hol(app)
    run = at.session_state["sv_result"].runs["b"]
    at = at.radio(key="sv_tl_run").set_value("b").run()
    assert at.session_state["sv_tl_step"] == 0
    first = table_with(at, "phase")
    assert list(first["request"]) == [run.labels[q.seq_id] for q in run.trace.steps[0].seqs]
    at = at.button(key="sv_next").click().run()
    assert at.session_state["sv_tl_step"] == 1
    second = table_with(at, "phase")
    step = run.trace.steps[1]
    assert list(second["tokens"]) == [q.num_tokens for q in step.seqs]
    assert any(m.value.startswith("**Step 1**") for m in at.markdown)
    gantt = charts(at)["Requests over time, B: continuous + chunked prefill"]
    marks = [s for s in gantt["layout"]["shapes"]]
    assert len(marks) == 2 and marks[0]["x0"] == pytest.approx(step.start - min(r.arrival for r in run.trace.requests))
    at = at.button(key="sv_prev").click().run()
    assert at.session_state["sv_tl_step"] == 0 and at.button(key="sv_prev").disabled
    comp = charts(at)["Batch composition per step"]
    assert any(d["name"] == "token budget (32)" for d in comp["data"])
    assert max(s.num_tokens for s in run.trace.steps) <= 32


def test_shared_prefix_shows_shared_blocks(app):
    at = app.radio(key="sv_preset").set_value("shared-prefix").run()
    assert at.selectbox(key="sv_policy_b").value == "prefix"  # the preset's own comparison
    at = set_params(at, "shared-prefix", num_requests=3, system_tokens=64, output=40, gap_s=0.01)
    at = at.button(key="sv_run").click().run()
    assert not at.exception and not errors(at)
    at = at.radio(key="sv_bk_run").set_value("b").run()
    run = at.session_state["sv_result"].runs["b"]
    assert run.trace.steps[-1].prefix_hit_tokens > 0
    pool = charts(at)["KV block pool over time, B: continuous + prefix caching"]
    assert "shared (prefix cache)" in {d["name"] for d in pool["data"][1:]}
    hits = next(m for m in at.metric if m.label == "prefix-cache hits")
    prompt = sum(len(r.prompt_token_ids) for r in run.trace.requests)
    assert hits.value == f"{run.trace.steps[-1].prefix_hit_tokens / prompt:.0%}"
    assert f"{run.trace.steps[-1].prefix_hit_tokens} of {prompt} prompt tokens" in hits.proto.help
    captions = " ".join(c.value for c in at.caption)  # the metrics caption follows the preset
    assert "shared system prompt's KV blocks are computed once" in captions
    assert "long prompt" not in captions and "chunked prefill trades" not in captions
    assert "Here, B ÷ A: TTFT (P50 of" in captions or "Here: not judged" in captions


@pytest.mark.parametrize(
    "action, expected",
    [
        (lambda at: at.number_input(key="sv_head-of-line_long_arrival_s").set_value(-1.0), None),  # widget clamps
        (lambda at: at.number_input(key="sv_budget").set_value(0), "token budget must be at least 1"),
        (lambda at: at.number_input(key="sv_batch").set_value(0), "batch limit must be at least 1"),
        (lambda at: at.number_input(key="sv_pool").set_value(2), "cannot hold the longest request"),
        (lambda at: at.number_input(key="sv_head-of-line_long_prompt").set_value(600), "exceed this model's context"),
    ],
)
def test_bad_settings_give_a_message_and_disable_run(app, action, expected):
    at = action(app).run()
    assert not at.exception
    if expected is None:
        return
    assert any(expected in e for e in errors(at)), errors(at)
    assert at.button(key="sv_run").disabled


def test_zero_requests_is_a_message(app):
    at = app.radio(key="sv_preset").set_value("random-mix").run()
    at = set_params(at, "random-mix", num_requests=0)
    assert not at.exception
    assert any("The workload has no requests" in e for e in errors(at)), errors(at)
    assert at.button(key="sv_run").disabled
    at = set_params(at, "random-mix", num_requests=3, prompt_min=40, prompt_max=20)
    assert any("shortest prompt (40 tokens) is longer than the longest (20)" in e for e in errors(at)), errors(at)


def test_full_size_button_loads_the_benchmark_numbers(app):
    at = app.button(key="sv_full").click().run()
    assert at.number_input(key="sv_head-of-line_num_streams").value == 8
    assert at.number_input(key="sv_head-of-line_long_prompt").value == 2048
    assert at.number_input(key="sv_budget").value == 128
    assert any("exceed this model's context" in e for e in errors(at))  # the tiny model holds 512 tokens
    at = at.button(key="sv_small").click().run()
    assert (
        at.number_input(key="sv_head-of-line_long_prompt").value == 512 and at.number_input(key="sv_budget").value == 64
    )


def test_stopped_comparison_keeps_finished_runs(app):
    at = run_hol(app)
    result = at.session_state["sv_result"]
    del result.runs["b"]
    result.status = ServingStatus.RUNNING  # as if Stop cut the script short during B
    at = at.run()
    assert result.status == ServingStatus.STOPPED
    assert any("Kept: A: continuous batching" in w.value for w in at.warning)
    assert "Requests over time, A: continuous batching" in charts(at) and not at.exception
    table = table_with(at, "percentile")
    assert "B / A" not in table.columns and not any(math.isnan(v) for v in table["A: continuous batching"])


def test_chinese(app):
    app.sidebar.radio(key="lang").set_value("zh")
    at = app.run()
    assert at.title[0].value == "服务实验室：多个请求，一个引擎"
    assert at.radio(key="sv_preset").value == "head-of-line"  # the choice survives the new labels
    assert at.radio(key="sv_preset").options[0] == "聊天中的长提示词"
    at = run_hol(at)
    assert "各请求随时间的进度，A：连续批处理" in charts(at)
    assert any(m.value.startswith("**第 0 步**") for m in at.markdown)


def test_custom_table_runs(app):
    at = app.radio(key="sv_preset").set_value("custom").run()
    assert not errors(at) and at.selectbox(key="sv_policy_b").value == "chunked"
    at = at.button(key="sv_run").click().run()
    assert not at.exception and not errors(at)
    gantt = charts(at)["Requests over time, A: continuous batching"]
    assert list(gantt["layout"]["yaxis"]["categoryarray"]) == ["chat A", "chat B", "long", "chat C"]


def test_settings_and_result_survive_a_visit_to_another_page(app):
    at = app.radio(key="sv_preset").set_value("shared-prefix").run()
    at = set_params(at, "shared-prefix", num_requests=3)
    at = at.radio(key="sv_preset").set_value("head-of-line").run()
    at = run_hol(at)
    at.switch_page(page_file("playground")).run()
    at.switch_page(PAGE).run()
    assert not at.exception
    assert at.radio(key="sv_preset").value == "head-of-line"
    assert at.number_input(key="sv_head-of-line_long_prompt").value == HOL["long_prompt"]
    assert at.number_input(key="sv_budget").value == 32
    assert "Requests over time, A: continuous batching" in charts(at)  # the finished comparison is still there
    at = at.radio(key="sv_preset").set_value("shared-prefix").run()
    assert at.number_input(key="sv_shared-prefix_num_requests").value == 3  # a hidden preset keeps its numbers


def test_each_run_is_judged_by_goodput_at_one_slo(app):
    """The metrics tab's verdict: per run, the requests that met every objective, attainment,
    goodput and the objective that broke first, as lab.slo.judge computes them; a tighter SLO
    changes the verdict; an SLO with no objective is refused by name."""
    from lab.slo import SLO, judge

    at = run_hol(app)
    result = at.session_state["sv_result"]
    runs = (result.runs["a"], result.runs["b"])

    def judged(ttft_ms: int):
        slo = SLO(ttft_ms=ttft_ms, tpot_ms=200, itl_ms=500)
        return [judge(slo, [r.metrics for r in run.trace.requests], run.seconds) for run in runs]

    table, loose = table_with(at, "goodput (req/s)"), judged(2000)
    assert list(table["run"]) == ["A: continuous batching", "B: continuous + chunked prefill"]
    for g, (_, row) in zip(loose, table.iterrows()):
        assert row["met the SLO"] == f"{g.met} / 4" and row["goodput (req/s)"] == pytest.approx(g.goodput)
        assert row["verdict"] == verdict_word(g, "en", result.loads[0])  # a miss beside other work: not separable
    assert any(
        "At **TTFT ≤ 2000 ms and TPOT ≤ 200 ms and ITL ≤ 500 ms** for 90 % of requests" in m.value for m in at.markdown
    )
    assert "Each request's TTFT against its TPOT, with the SLO" in " ".join(charts(at))

    at.number_input(key="sv_slo_ttft").set_value(1)  # 1 ms: few first tokens come that fast (a tiny model's may)
    at = at.run()
    table, tight = table_with(at, "goodput (req/s)"), judged(1)
    assert list(table["met the SLO"]) == [f"{g.met} / 4" for g in tight]
    assert list(table["verdict"]) == [verdict_word(g, "en", result.loads[0]) for g in tight]
    assert not any(g.holds for g in tight) and not any("holds" in v for v in table["verdict"])
    assert sum(g.met for g in tight) < sum(g.met for g in loose)  # the tighter SLO changed the verdict
    assert list(table["broke first"]) == [f"TTFT ({g.missed['ttft']} missed)" for g in tight]
    for key in ("sv_slo_ttft", "sv_slo_tpot", "sv_slo_itl"):
        at.number_input(key=key).set_value(0)
    at = at.run()
    assert any("at least one threshold" in e for e in errors(at)), errors(at)


def test_the_four_policies_are_judged_at_one_slo(app):
    from lab.slo import SLO, judge

    at = run_hol(app)
    at = at.button(key="sv_all_policies_run").click().run()
    assert not at.exception, [e.value for e in at.exception]
    table = table_with(at, "policy")
    assert list(table["policy"]) == [
        "sequential",
        "static batching",
        "continuous batching",
        "continuous + chunked prefill",
    ]
    kept = at.session_state["sv_policy_runs"]["runs"]
    slo = SLO(ttft_ms=2000, tpot_ms=200, itl_ms=500)
    for (_, row), run in zip(table.iterrows(), kept.values()):
        assert len(run.trace.requests) == 4  # the same workload each time
        g = judge(slo, [r.metrics for r in run.trace.requests], run.seconds)
        assert row["met the SLO"] == f"{g.met} / 4" and row["goodput (req/s)"] == pytest.approx(g.goodput)
    at.number_input(key="sv_slo_ttft").set_value(1)  # a new SLO re-judges the kept runs, without running them again
    at = at.run()
    load = at.session_state["sv_policy_runs"]["load"]
    missed = "not separable here · ⚠" if load.busy else "does not hold"  # other work can only slow it
    assert all(v.startswith(missed) for v in table_with(at, "policy")["verdict"])
