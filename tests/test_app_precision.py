"""The precision lab under AppTest on a tiny model: it opens with the capacity arithmetic and nothing
measured; a measurement of four configurations fills the speed table (the work counted, each time a
ratio to float32 with its interval and n), both charts, the note beside a bfloat16 row, the quality
table and the generations; the charts follow the context and batch without measuring again; a busy
machine stands beside the ratios instead of blanking them; a different GPU or model changes the
capacity table."""

from __future__ import annotations

import re
from dataclasses import replace

from app_pages import page_file
from engine.config import PRESETS
from lab.busy import MachineLoad
from tests.app_helpers import table_problems, table_with
from tests.figure_checks import charts

PAGE = page_file("precision")
RATIO = re.compile(r"^\d[\d.,]*× \[[\d.,]+–[\d.,]+\], n = \d+")  # ui/paired.ratio_text


def test_opens_with_capacity_and_nothing_measured(app):
    assert any("press Measure" in i.value for i in app.info)
    cap = table_with(app, "KV tokens that fit", partial=True)
    assert "same size, MHA (no GQA)" in set(cap["model"])
    app.selectbox(key="pr_cap_model").set_value("Llama-3-8B")
    app.selectbox(key="pr_gpu").set_value("H200 SXM")
    at = app.run()
    cap = table_with(at, "KV tokens that fit", partial=True)
    row = cap[
        (cap["model"] == "Llama-3-8B")
        & (cap["weights"] == "float16 / bfloat16")
        & (cap["KV cache"] == "float16 / bfloat16")
    ]
    assert int(row["KV bytes/token"].iloc[0]) == 131072  # 2 x 32 layers x 8 KV heads x 128 x 2 bytes
    weights = PRESETS["Llama-3-8B"].num_params * 2
    assert int(row["KV tokens that fit"].iloc[0]) == int((141e9 * 0.9 - weights) // 131072)
    assert any("4× smaller" in c.value for c in at.caption)


def test_measure_three_configurations(app):
    app.multiselect(key="pr_weights").set_value(["float32", "int8 + float32", "bfloat16"])
    app.multiselect(key="pr_kv").set_value(["int8"])
    app.number_input(key="pr_quality_tokens").set_value(128)
    app.number_input(key="pr_repeats").set_value(1)
    at = next(b for b in app.button if b.label == "Measure").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert any("Measured 4 configurations" in s.value for s in at.success)
    speed = table_with(at, "TPOT (ms)", partial=True)  # the time, beside float32
    work = table_with(at, "read/step", partial=True)  # the work, counted
    assert not table_problems(at)  # every header short, "read/step at L=…, B=… (MB)" whole in its help
    assert list(speed["configuration"]) == ["float32", "int8 + float32", "bfloat16", "float32, KV int8"]
    assert list(work["configuration"]) == list(speed["configuration"])
    run = at.session_state["pr_result"]
    ratios = list(speed["TPOT ÷ float32"])
    assert ratios[0] == "1× (the base)" and all(RATIO.match(x) for x in ratios[1:]), ratios
    assert all(RATIO.match(x) for x in list(speed["prefill ÷ float32"])[1:])
    assert set(speed["decode against float32"][1:]) <= {"faster", "slower", "not separable here"}
    assert not speed.isna().any().any() and "None" not in speed.to_string()  # no cell is ever empty
    assert (speed["TPOT (ms)"] > 0).all()
    read = next(c for c in work.columns if c.startswith("read/step"))
    assert work[read].iloc[1] < work[read].iloc[0]  # int8 weights: fewer bytes per step
    assert list(work["bytes ÷ float32"])[0] == "1.00×" and float(work["bytes ÷ float32"][1][:-1]) < 0.5
    assert not work.isna().any().any()
    quality = table_with(at, "perplexity", partial=True)
    assert list(quality["KL (nats)"])[0] == 0.0 and "greedy top-1" in quality.columns
    titles = list(charts(at))
    fig = next(v for k, v in charts(at).items() if k.startswith("Each configuration ÷ float32"))
    bytes_bars, decode_bars = fig["data"][0], fig["data"][1]  # horizontal: a configuration per row
    assert bytes_bars["name"] == "bytes read per decode step (counted)" and bytes_bars["x"][0] == 1.0
    assert decode_bars["x"][1] == run.results[1].decode_ratio.median  # the whiskers are its interval
    assert decode_bars["error_x"]["array"][1] == run.results[1].decode_ratio.high - run.results[1].decode_ratio.median
    assert any(x.startswith("Bytes a decode step reads at batch 1") for x in titles)
    note = [i.value for i in at.info if "On a GPU" in i.value]  # beside the bars: why bfloat16 is as it is here
    assert note and "bfloat16" in note[0] and "H100 SXM" in note[0] and "This" in note[0]
    assert "matrix products ran on" in note[0] and run.results[2].decode_kernels  # which kernels each ran
    assert len(at.table) == 1 and len(at.table[0].value) == 4  # the reference and three generations

    at.number_input(key="pr_batch").set_value(64)
    at.number_input(key="pr_context").set_value(100)
    at = at.run()
    speed2 = table_with(at, "TPOT (ms)", partial=True)
    assert list(speed2["TPOT (ms)"]) == list(speed["TPOT (ms)"])  # the same measurement, new arithmetic
    assert any(re.search(r"read/step at L=100, B=64", c) for c in table_with(at, "read/step", partial=True).columns)
    assert any(x.startswith("Bytes a decode step reads at batch 64") for x in charts(at))
    fig = next(v for k, v in charts(at).items() if k.startswith("Bytes a decode step"))
    y = fig["layout"]["yaxis"]
    assert len(y["tickvals"]) >= 3 and y["ticktext"] == [f"{v:g}" for v in y["tickvals"]]  # labels in a decade
    assert [a["text"] for a in fig["layout"]["annotations"]] == ["context 100: the tables' row"]  # the dashed line


def test_a_busy_machine_stands_beside_the_ratios_and_blanks_none(app):
    """Timed while other work took the machine: every ratio is still given, with its interval and n,
    and the load beside it; no cell reads None and no header says "unreliable"."""
    app.multiselect(key="pr_weights").set_value(["float32", "int8 + float32"])
    app.multiselect(key="pr_kv").set_value([])
    app.number_input(key="pr_quality_tokens").set_value(0)
    at = next(b for b in app.button if b.label == "Measure").click().run()
    run = at.session_state["pr_result"]
    busy = MachineLoad(1.2, 2, 1.0)
    timing = run.results[1].timing
    timing.decode, timing.prefill = (replace(r, load=busy) for r in (timing.decode, timing.prefill))
    at = at.run()
    speed = table_with(at, "TPOT (ms)", partial=True)
    assert "TPOT ÷ float32" in speed.columns and not any("unreliable" in c for c in speed.columns)
    cell = speed["TPOT ÷ float32"][1]
    assert RATIO.match(cell) and cell.endswith("· ⚠ 1.2/2 cores busy with other work"), cell
    assert not speed.isna().any().any() and "None" not in speed.to_string()
    assert not any("⚠" in w.value or "Unreliable" in w.value for w in at.warning)
