"""The serving lab's building blocks on real runs of a tiny model: workloads and their checks,
engine settings per policy, the timeline segments, the block pool grid, waste, metrics, and the
figures built from them (their JSON)."""

from __future__ import annotations

import math
import statistics
from dataclasses import replace

import pytest

from app_pages.serving.blocks import owner_grid, pool_figure, sampled_steps, waste_series, waste_share
from app_pages.serving.figures import composition_figure, gantt_figure, mark_step
from app_pages.serving.notes import here_sentence
from app_pages.serving.run import ServingSettings, race_policies, run_policy
from app_pages.serving.run_latencies import (
    groups,
    ids_in,
    label_group,
    metrics_table,
    paired_ratio,
    request_table,
    same_outputs,
)
from app_pages.serving.timeline import batch_rows, request_segments, step_totals
from app_pages.serving.workload import (
    CUSTOM_ROWS,
    PARAMS,
    build_custom,
    build_preset,
    check_workload,
    param_values,
    pool_needs,
)
from engine import Engine
from lab.busy import MachineLoad
from lab.pairing import ratio_interval
from lab.workload import summarize

HOL = dict(num_streams=3, long_prompt=160, stream_output=10, long_arrival_s=0.0)
XSS = "<img src=x onerror=alert(1)>"


def hol_specs(tokenizer):
    return build_preset("head-of-line", tokenizer, HOL)


@pytest.fixture(scope="module")
def hol_rounds(tiny):
    """Continuous against chunked, raced five rounds (a step each in turn)."""
    specs = hol_specs(tiny.tokenizer)
    settings = ServingSettings("continuous", "chunked", chunk_budget=32)
    kept, _ = race_policies(tiny, specs, settings, settings.policies, 5)
    return kept


@pytest.fixture(scope="module")
def hol_runs(hol_rounds):
    return [hol_rounds[0]["a"], hol_rounds[0]["b"]]


# --- workloads ---------------------------------------------------------------------------------
def test_presets_build_real_text_requests(tiny):
    for name in PARAMS:
        values = {k.removeprefix(f"sv_{name}_"): v for k, v in param_values(name).items()}
        if name == "head-of-line":
            values["long_prompt"] = 200  # the tiny model's context is 512
        specs = build_preset(name, tiny.tokenizer, values)
        check_workload(specs, 512)
        assert specs and all(s.prompt_ids and s.max_new_tokens >= 1 for s in specs)
    hol = hol_specs(tiny.tokenizer)
    assert [s.label for s in hol] == ["chat 1", "chat 2", "chat 3", "long prompt"]
    assert len(hol[-1].prompt_ids) == 160 and "river" in tiny.tokenizer.decode(hol[-1].prompt_ids)


def test_full_sizes_are_the_benchmarks():
    full = param_values("head-of-line", "full")
    assert full["sv_head-of-line_num_streams"] == 8 and full["sv_head-of-line_long_prompt"] == 2048
    assert param_values("random-mix", "full")["sv_random-mix_num_requests"] == 32
    assert isinstance(full["sv_head-of-line_num_streams"], int) and isinstance(
        full["sv_head-of-line_long_arrival_s"], float
    )


def test_custom_rows_become_requests(tiny):
    specs = build_custom(
        CUSTOM_ROWS + [{"label": None, "arrival_s": None, "prompt_tokens": None, "output_tokens": None}], tiny.tokenizer
    )  # a blank row is skipped
    assert [len(s.prompt_ids) for s in specs] == [r["prompt_tokens"] for r in CUSTOM_ROWS]
    assert specs[0].prompt_ids != specs[1].prompt_ids[:48]  # each starts further into the text
    assert pool_needs(specs, 16) == (25, 5 + 6 + 25 + 4)  # ceil((prompt + output) / 16) each


@pytest.mark.parametrize(
    "build, expected",
    [
        (
            lambda tok: build_preset("shared-prefix", tok, dict(num_requests=0, system_tokens=8, output=2, gap_s=0)),
            "The workload has no requests",
        ),
        (
            lambda tok: build_preset(
                "random-mix",
                tok,
                dict(num_requests=2, prompt_min=50, prompt_max=10, output_min=1, output_max=2, rate_per_s=0, seed=0),
            ),
            "shortest prompt (50 tokens) is longer than the longest (10)",
        ),
        (
            lambda tok: build_custom(
                [{"label": "x", "arrival_s": 0.0, "prompt_tokens": float("nan"), "output_tokens": 3}], tok
            ),
            "Request 'x': the prompt length",
        ),
        (
            lambda tok: build_custom([{"label": "y", "arrival_s": -1.0, "prompt_tokens": 3, "output_tokens": 3}], tok),
            "arrival time must be zero or more",
        ),
        (lambda tok: check_workload(build_custom([], tok), 512), "The workload has no requests"),
        (
            lambda tok: check_workload(
                build_custom([{"label": "big", "arrival_s": 0, "prompt_tokens": 500, "output_tokens": 20}], tok), 512
            ),
            "exceed this model's context",
        ),
    ],
)
def test_bad_workloads_raise_readable_errors(tiny, build, expected):
    with pytest.raises(ValueError, match=None) as err:
        build(tiny.tokenizer)
    assert expected in str(err.value)


# --- settings ----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "kwargs, expected",
    [
        (dict(chunk_budget=0), "token budget must be at least 1"),
        (dict(max_num_seqs=0), "batch limit must be at least 1"),
        (dict(policy_a="fifo"), "Unknown policy 'fifo'"),
        (dict(pool_blocks=0), "at least 1 block"),
    ],
)
def test_bad_settings_raise_readable_errors(kwargs, expected):
    with pytest.raises(ValueError) as err:
        ServingSettings(**kwargs)
    assert expected in str(err.value)


def test_engine_config_per_policy(tiny):
    specs = hol_specs(tiny.tokenizer)
    settings = ServingSettings("continuous", "chunked", chunk_budget=32, block_size=8)
    per_token = tiny.model.config.kv_bytes_per_token(4)
    whole, chunked = (settings.engine_config(p, specs, per_token) for p in ("continuous", "chunked"))
    assert chunked.chunked_prefill and chunked.max_num_batched_tokens == 32
    assert not whole.chunked_prefill and whole.max_num_batched_tokens >= 176  # a whole prompt fits one step
    blocks, max_len = settings.pool(specs)
    assert max_len == 160 + 16 and blocks == pool_needs(specs, 8)[1]
    assert Engine(tiny.model, tiny.tokenizer, whole).kv.pool.num_blocks == blocks  # exactly the pool we chart
    with pytest.raises(ValueError, match="cannot hold the longest request"):
        ServingSettings(pool_blocks=3, block_size=8).pool(specs)


# --- timeline ----------------------------------------------------------------------------------
def test_segments_cover_every_step_of_every_request(hol_runs):
    for run in hol_runs:
        segs = request_segments(run.trace, run.labels)
        stepped = [s for s in segs if s.kind != "waiting"]
        assert len(stepped) == sum(len(s.seqs) for s in run.trace.steps)
        for r in run.trace.requests:
            mine = [s for s in segs if s.seq_id == r.seq_id]
            decodes = [s for s in mine if s.kind == "decode"]
            assert len(decodes) == len(r.output_token_ids) - 1  # the first token comes from the prefill
            assert mine[0].start_s >= -1e-9 and all(a.end_s <= b.start_s + 1e-9 for a, b in zip(mine, mine[1:]))
    whole, chunked = hol_runs
    long_id = {label: sid for sid, label in chunked.labels.items()}["long prompt"]
    chunks = [s for s in request_segments(chunked.trace, chunked.labels) if s.seq_id == long_id and s.kind == "prefill"]
    assert len(chunks) >= 160 // 32 and sum(c.num_tokens for c in chunks) == 160
    assert max(s.num_tokens for s in chunked.trace.steps) <= 32
    assert max(s.num_tokens for s in whole.trace.steps) >= 160


def test_batch_rows_and_totals_are_the_step_records(hol_runs):
    run = hol_runs[1]
    for i, step in enumerate(run.trace.steps):
        rows = batch_rows(run.trace, run.labels, i)
        assert [(r.seq_id, r.phase, r.num_tokens) for r in rows] == [
            (q.seq_id, q.phase, q.num_tokens) for q in step.seqs
        ]
        assert all(r.context_len - r.first_pos == r.num_tokens for r in rows)
    for totals, step in zip(step_totals(run.trace), run.trace.steps):
        assert totals.prefill_tokens + totals.decode_tokens == step.num_tokens and totals.num_seqs == len(step.seqs)


def test_gantt_and_composition_figures(hol_runs):
    whole, chunked = hol_runs
    fig = gantt_figure(chunked.trace, chunked.labels, "t", highlight=2).to_plotly_json()
    assert fig["layout"]["barmode"] == "overlay" and fig["layout"]["xaxis"]["title"]["text"]
    assert list(fig["layout"]["yaxis"]["categoryarray"]) == ["chat 1", "chat 2", "chat 3", "long prompt"]
    assert len(fig["layout"]["shapes"]) == 2  # the band behind, the outline in front
    base = gantt_figure(chunked.trace, chunked.labels, "t")
    marked = mark_step(base, chunked.trace, 3)
    assert not base.layout.shapes and len(marked.layout.shapes) == 2  # the cached chart stays unmarked
    first_arrival = min(r.arrival for r in chunked.trace.requests)
    assert marked.layout.shapes[0].x0 == pytest.approx(chunked.trace.steps[3].start - first_arrival)
    comp = composition_figure(chunked.trace, 32, highlight=0).to_plotly_json()
    names = [d["name"] for d in comp["data"]]
    assert names == ["decode tokens", "prefill tokens", "token budget (32)", "sequences in the batch (right axis)"]
    assert comp["layout"]["yaxis"]["title"]["text"] and comp["layout"]["yaxis2"]["title"]["text"]


def test_the_step_mark_spans_its_step_and_tints_no_bar(hol_runs):
    """Step 0 is all prefill: its mark must not lay its colour over the prefill bars. Whatever is drawn
    in front of the traces is unfilled, the tinted band lies behind them, and both span the marked
    step only (the Gantt's step window; the composition's one bar)."""
    chunked = hol_runs[1]
    first_arrival = min(r.arrival for r in chunked.trace.requests)
    step = chunked.trace.steps[0]
    window = (step.start - first_arrival, step.start + step.ms / 1e3 - first_arrival)
    gantt = gantt_figure(chunked.trace, chunked.labels, "t", highlight=0).to_plotly_json()
    comp = composition_figure(chunked.trace, 32, highlight=0).to_plotly_json()
    for fig, span in ((gantt, window), (comp, (step.step - 0.5, step.step + 0.5))):
        shapes = fig["layout"]["shapes"]
        assert {s["layer"] for s in shapes} == {"below", "above"}
        assert all(s["fillcolor"] == "rgba(0,0,0,0)" for s in shapes if s["layer"] == "above")
        assert all((s["x0"], s["x1"]) == pytest.approx(span) for s in shapes)


def test_the_timeline_keeps_its_rows_tall_on_a_phone(hol_runs):
    """At 390 px the legend wraps into three rows; the height keeps room for them under a plot of at
    least MIN_PLOT_PX, so the rows never shrink to a few pixels."""
    from app_pages.serving.figures import MIN_PLOT_PX

    chunked = hol_runs[1]
    layout = gantt_figure(chunked.trace, chunked.labels, "t").to_plotly_json()["layout"]
    legend_room = 70 + 40 + 30 * 2  # three rows of legend under the plot
    assert layout["margin"]["b"] >= legend_room
    assert layout["height"] - layout["margin"]["t"] - layout["margin"]["b"] >= MIN_PLOT_PX


def test_labels_are_escaped_for_plotly(tiny):
    specs = build_custom(
        [
            {"label": XSS, "arrival_s": 0.0, "prompt_tokens": 8, "output_tokens": 3},
            {"label": XSS, "arrival_s": 0.0, "prompt_tokens": 9, "output_tokens": 3},
        ],
        tiny.tokenizer,
    )
    run = run_policy(tiny, specs, ServingSettings(), "a")
    fig = gantt_figure(run.trace, run.labels, "t").to_plotly_json()
    rows = list(fig["layout"]["yaxis"]["categoryarray"])
    assert len(set(rows)) == 2 and all("<img" not in r and "&lt;img" in r for r in rows)  # distinct, escaped
    legend = [d["name"] for d in pool_figure(run, "p").to_plotly_json()["data"][1:]]
    assert not any("<img" in n for n in legend)


# --- blocks ------------------------------------------------------------------------------------
def test_owner_grid_matches_block_tables(hol_runs):
    for run in hol_runs:
        grid = owner_grid(run.trace)
        index = {sid: k + 1 for k, sid in enumerate(grid.owners)}
        for col, step in enumerate(run.trace.steps):
            assert sum(row[col] != 0 for row in grid.z) == step.kv_blocks
            for sid, table in step.block_tables.items():
                assert all(grid.z[b][col] == index[sid] for b in table)  # no sharing without prefix caching


def test_sampled_steps_keep_both_ends():
    assert sampled_steps(5, 10) == [0, 1, 2, 3, 4]
    cols = sampled_steps(1000, 300)
    assert cols[0] == 0 and cols[-1] == 999 and len(cols) <= 300 and cols == sorted(set(cols))


def test_waste_of_paged_blocks_against_contiguous(hol_runs):
    run = hol_runs[0]
    points = waste_series(run)
    for p, step in zip(points, run.trace.steps):
        holders = len(step.block_tables)
        assert p.stored <= p.paged < p.stored + run.block_size * max(holders, 1)  # at most one partial block each
        assert p.stored <= p.contiguous <= p.contiguous_max
        assert p.contiguous_max == holders * run.context_len
    # paging wastes at most a partial block per request; reserving max_model_len wastes most of the pool
    # (against an exact prompt + max_new_tokens reservation, short outputs can make paging the worse one)
    shares = {k: waste_share(points, k) for k in ("paged", "contiguous", "contiguous_max")}
    assert 0 <= shares["paged"] < shares["contiguous_max"] and shares["contiguous"] < shares["contiguous_max"]
    assert shares["contiguous_max"] > 0.5


def test_shared_prefix_blocks_are_shared(tiny):
    specs = build_preset("shared-prefix", tiny.tokenizer, dict(num_requests=3, system_tokens=64, output=40, gap_s=0.01))
    run = run_policy(tiny, specs, ServingSettings("prefix", "prefix"), "a")
    grid = owner_grid(run.trace)
    assert any(v == len(grid.owners) + 1 for row in grid.z for v in row)
    assert run.trace.steps[-1].prefix_hit_tokens >= 64


def test_a_small_pool_preempts_and_the_timeline_shows_the_wait(tiny):
    specs = build_custom(
        [{"label": f"r{i}", "arrival_s": 0.0, "prompt_tokens": 40, "output_tokens": 30} for i in range(4)],
        tiny.tokenizer,
    )
    run = run_policy(tiny, specs, ServingSettings(pool_blocks=6, block_size=16), "a")
    assert run.num_preemptions > 0 and run.num_blocks == 6
    segs = request_segments(run.trace, run.labels)
    preempted = [r.seq_id for r in run.trace.requests if r.num_preemptions]
    for sid in preempted:
        kinds = [s.kind for s in segs if s.seq_id == sid]
        assert "waiting" in kinds[kinds.index("decode") :]  # back in the queue after it had started decoding
    assert max(s.kv_blocks for s in run.trace.steps) <= 6


# --- metrics -----------------------------------------------------------------------------------
def test_metrics_table_is_summarize(hol_rounds):
    """Each policy's number is the median of its rounds' summaries; B ÷ A the rounds' paired ratios,
    median [interval], n, as ui/paired words them, with a verdict only where the interval allows."""
    table = metrics_table(hol_rounds, "chat")
    per_round = {
        slot: [summarize(r[slot].trace, ids_in(r[slot], "chat"))["itl_ms"] for r in hol_rounds] for slot in ("a", "b")
    }
    n = per_round["a"][0]["n"]
    assert n == per_round["b"][0]["n"] and n > 10
    p99 = "P99 of" if n >= 100 else "max of"
    row = table[(table["metric"] == "ITL (ms)") & (table["percentile"] == f"{p99} {n}")]
    a, b = ([s["p99"] for s in per_round[slot]] for slot in ("a", "b"))
    assert row["A: continuous batching"].item() == pytest.approx(statistics.median(a))
    assert row["B: continuous + chunked prefill"].item() == pytest.approx(statistics.median(b))
    r = ratio_interval(b, a)
    assert r.n == 5 and row["B ÷ A [95 %], n"].item().startswith(f"{r.median:.3g}× [{r.low:.3g}–")
    assert row["B against A"].item() in ("B higher", "B lower", "not separable here")
    # three chats: a P50 of 3, then their maximum once (a P90 or P99 of 3 claims a tail never seen)
    ttft = table[table["metric"] == "TTFT (ms)"]
    assert list(ttft["percentile"]) == ["P50 of 3", "max of 3"]
    assert not math.isnan(table.iloc[-1]["A: continuous batching"])
    assert "None" not in table.to_string()


def test_one_round_is_too_few_pairs_to_judge(hol_rounds):
    table = metrics_table(hol_rounds[:1], "chat")
    assert all(x.endswith("too few pairs to judge (5 needed)") for x in table["B ÷ A [95 %], n"])
    assert set(table["B against A"]) == {"not separable here"}


def test_other_work_stands_beside_each_ratio_never_instead_of_it(hol_rounds):
    """The old rule blanked B / A on a busy machine; now the ratio stays, its interval and n with it,
    and the load other work put on the machine is said beside it."""
    busy = MachineLoad(1.2, 2, 5.0)
    table = metrics_table(hol_rounds, "chat", load=busy)
    quiet = metrics_table(hol_rounds, "chat")
    column = "B ÷ A [95 %], n"
    assert list(table[column + " · ⚠ 1.2/2 cores busy with other work"]) == list(quiet[column])  # said beside, once
    assert (
        "None" not in table.to_string()
        and table[column + " · ⚠ 1.2/2 cores busy with other work"].str.contains("n = 5").all()
    )
    assert list(table["B against A"]) == list(quiet["B against A"])  # the verdict follows the interval alone


def test_the_same_run_against_itself_is_not_separable(hol_rounds):
    """B = A in every round: each ratio is 1 [1–1], n = 5, and no verdict either way."""
    same = [{"a": r["a"], "b": replace(r["a"], slot="b")} for r in hol_rounds]
    r = paired_ratio(same, "chat", "itl_ms", "p50")
    assert (r.median, r.low, r.high, r.n) == (1.0, 1.0, 1.0, 5)
    table = metrics_table(same, "chat")
    assert set(table["B against A"]) == {"not separable here"}
    assert paired_ratio(hol_rounds[:0], "chat", "itl_ms", "p50") is None


def test_the_caption_gives_what_this_run_showed(hol_rounds):
    """The preset's note says what to expect; the sentence after it is computed from the rounds: B ÷ A
    of the long prompt's TTFT and of the chats' ITL, paired round by round, whichever way they went."""
    here = here_sentence("head-of-line", hol_rounds, "en")
    long_ttft = paired_ratio(hol_rounds, "long prompt", "ttft_ms", "p50")
    chats_itl = paired_ratio(hol_rounds, "chat", "itl_ms", "p90")
    n = hol_rounds[0]["a"].summary(ids_in(hol_rounds[0]["a"], "chat"))["itl_ms"]["n"]
    itl_p90 = "P90 of" if n >= 10 else "max of"
    assert here.startswith(
        f"Here, B ÷ A: the long prompt's TTFT (max of 1) {long_ttft.median:.3g}× [{long_ttft.low:.3g}–"
    )
    assert f"the chats' ITL ({itl_p90} {n}) {chats_itl.median:.3g}× [" in here and ", n = 5: " in here
    assert here_sentence("custom", hol_rounds, "en") == ""
    assert here_sentence("head-of-line", [{"a": hol_rounds[0]["a"]}], "en") == ""


def test_groups_outputs_and_request_table(hol_runs):
    assert label_group("chat 12") == "chat" and label_group("long prompt") == "long prompt"
    assert groups(hol_runs[0].labels) == ["*", "chat", "long prompt"]
    assert same_outputs(hol_runs) == (4, 4)  # greedy: the policy never changes a request's tokens
    table = request_table(hol_runs)
    assert list(table["request"]) == ["chat 1", "chat 2", "chat 3", "long prompt"]
    assert {"TTFT A (ms)", "TTFT B (ms)", "preempted B", "output text"} <= set(table.columns)
