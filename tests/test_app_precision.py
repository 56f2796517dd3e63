"""The precision lab under AppTest on a tiny model: it opens with the capacity arithmetic and nothing
measured; a measurement of three configurations fills the speed table, both charts, the quality
table and the generations; the charts follow the context and batch without measuring again; a
different GPU or model changes the capacity table."""

from __future__ import annotations

import re

from app_pages import page_file
from engine.config import PRESETS
from lab.busy import MachineLoad
from tests.app_helpers import table_with
from tests.figure_checks import charts

PAGE = page_file("precision")


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
    app.multiselect(key="pr_weights").set_value(["float32", "int8 + float32"])
    app.multiselect(key="pr_kv").set_value(["int8"])
    app.number_input(key="pr_quality_tokens").set_value(128)
    app.number_input(key="pr_repeats").set_value(1)
    at = next(b for b in app.button if b.label == "Measure").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert any("Measured 3 configurations" in s.value for s in at.success)
    speed = table_with(at, "TPOT (ms)", partial=True)
    assert list(speed["configuration"]) == ["float32", "int8 + float32", "float32, KV int8"]
    run = at.session_state["pr_result"]
    assert all(r.load is not None for r in run.results)  # each configuration's timing records the load
    if run.busiest.busy:  # timed while other processes took the cores: the ratio is not given
        assert speed["× float32 ⚠ unreliable: busy machine"].isna().all()
    else:
        assert list(speed["× float32"])[0] == 1.0
    assert (speed["TPOT (ms)"] > 0).all()
    read = next(c for c in speed.columns if c.startswith("read/step"))
    assert speed[read].iloc[1] < speed[read].iloc[0]  # int8 weights: fewer bytes per step
    quality = table_with(at, "perplexity", partial=True)
    assert list(quality["KL (nats)"])[0] == 0.0 and "greedy top-1" in quality.columns
    titles = list(charts(at))
    assert any(x.startswith("TPOT against the bytes") for x in titles)
    assert any(x.startswith("Bytes a decode step reads at batch 1") for x in titles)
    assert len(at.table) == 1 and len(at.table[0].value) == 3  # the reference and two generations

    at.number_input(key="pr_batch").set_value(64)
    at.number_input(key="pr_context").set_value(100)
    at = at.run()
    speed2 = table_with(at, "TPOT (ms)", partial=True)
    assert list(speed2["TPOT (ms)"]) == list(speed["TPOT (ms)"])  # the same measurement, new arithmetic
    assert any(re.search(r"read/step at L=100, B=64", c) for c in speed2.columns)
    assert any(x.startswith("Bytes a decode step reads at batch 64") for x in charts(at))
    fig = next(v for k, v in charts(at).items() if k.startswith("Bytes a decode step"))
    y = fig["layout"]["yaxis"]
    assert len(y["tickvals"]) >= 3 and y["ticktext"] == [f"{v:g}" for v in y["tickvals"]]  # labels in a decade
    assert [a["text"] for a in fig["layout"]["annotations"]] == ["context 100: the tables' row"]  # the dashed line

    for r in run.results:  # as if another process had kept both cores busy while each was timed
        r.load = MachineLoad(2.0, 2, 1.0)
    at = at.run()
    assert any("Unreliable timings: the machine was busy" in w.value for w in at.warning)
    speed3 = table_with(at, "TPOT (ms)", partial=True)
    assert "× float32" not in speed3.columns and speed3["× float32 ⚠ unreliable: busy machine"].isna().all()
