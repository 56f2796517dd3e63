"""Long runs drawn at a bounded cost: a loaded trace of thousands of steps draws each
chart from at most MAX_POINTS points and says so, pages its step table, shows the newest chips with
a count of the earlier ones; the reader refuses more steps than it can draw."""

from __future__ import annotations

import json

import plotly.graph_objects as go
import pytest

from app_pages.playground.thinned_charts import MAX_POINTS, TABLE_ROWS, thin_figure, thin_indices
from app_pages.playground.trace_file import MAX_STEPS, load_run
from tests.app_helpers import count_chips, errors, html_bodies, upload_trace
from tests.ui_support import long_trace
from ui.chips import MAX_OUTPUT_CHIPS, chips_html


def test_thinning_keeps_the_ends_and_at_most_the_limit():
    assert thin_indices(10, 20) == list(range(10))
    kept = thin_indices(35_000, 2_000)
    assert kept[0] == 0 and kept[-1] == 34_999 and len(kept) == 2_000 == len(set(kept))
    gaps = {b - a for a, b in zip(kept, kept[1:])}
    assert max(gaps) - min(gaps) <= 1  # evenly spaced


def test_a_long_figure_is_thinned_and_a_short_one_left_alone():
    fig = go.Figure([go.Bar(x=list(range(5_000)), y=[float(i) for i in range(5_000)]), go.Bar(x=[0], y=[9.0])])
    assert thin_figure(fig) == 5_000
    assert len(fig.data[0].x) == len(fig.data[0].y) == MAX_POINTS and fig.data[0].x[-1] == 4_999
    assert list(fig.data[0].x) == list(fig.data[0].y)  # x and y thinned alike
    assert list(fig.data[1].x) == [0]
    short = go.Figure([go.Scatter(x=[1, 2, 3], y=[1, 2, 3])])
    assert thin_figure(short) == 0 and list(short.data[0].x) == [1, 2, 3]


@pytest.fixture(scope="module")
def long_doc(saved_run):
    return long_trace(json.loads(saved_run[2]), 3_000)


def test_chips_show_the_newest_and_count_the_rest(long_doc):
    result = load_run(json.dumps(long_doc))
    body = chips_html(result)
    hidden = len(result.tokens) - MAX_OUTPUT_CHIPS
    assert count_chips(body, "pd-out") == MAX_OUTPUT_CHIPS
    assert f"… {hidden:,} earlier tokens" in body
    assert count_chips(chips_html(result, result.steps[10].step), "pd-out") <= 11  # an early frame: no note
    assert "earlier tokens" not in chips_html(result, result.steps[10].step)


def test_a_long_trace_loads_with_thinned_charts_and_a_paged_table(new_app, tiny_dirs, long_doc, monkeypatch):
    monkeypatch.setenv("PDLAB_MODEL", str(tiny_dirs["llama"]))
    at = new_app().run()
    at = upload_trace(at, json.dumps(long_doc), "long.json")
    assert not at.exception and not errors(at), errors(at)
    specs = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    longest = max(len(trace.get("x", [])) for spec in specs for trace in spec["data"])
    assert longest == MAX_POINTS
    captions = " ".join(c.value for c in at.caption)
    assert f"draws {MAX_POINTS:,} of them" in captions and "3,000 steps: the table shows 1,000 at a time" in captions
    table = at.dataframe[-1].value
    assert len(table) == TABLE_ROWS
    at = at.selectbox(key="pg_step_page").set_value(2 * TABLE_ROWS).run()
    table = at.dataframe[-1].value
    assert len(table) == 3_000 - 2 * TABLE_ROWS and table.iloc[-1, 0] == long_doc["steps"][-1]["step"]
    assert count_chips(html_bodies(at), "pd-out") == MAX_OUTPUT_CHIPS


def test_the_reader_names_its_step_limit(long_doc):
    doc = long_trace(long_doc, MAX_STEPS + 1)
    with pytest.raises(ValueError, match=f"holds {MAX_STEPS + 1:,} steps; the lab reads runs of at most"):
        load_run(json.dumps(doc))
