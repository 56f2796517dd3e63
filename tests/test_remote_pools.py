"""Several servers' /metrics beside one load (lab/remote_metrics.parse_pools, watch_all): the form's
`name = base URL` lines, and the pools' readings kept in a saved trace."""

from __future__ import annotations

import pytest

from engine.errors import LabError
from lab.remote_load import LoadPlan, LoadRun
from lab.remote_metrics import TRANSFER, MetricsWatch, Snapshot, parse_pools
from lab.remote_trace import Saved, dump_saved, load_saved


def test_pool_lines_become_endpoints_and_bad_ones_are_named():
    pools = parse_pools("# pools\nprefill = http://10.0.0.2:8000\n\ndecode=http://10.0.0.3:8000/v1 # comment", "k")
    assert {n: e.base_url for n, e in pools.items()} == {
        "prefill": "http://10.0.0.2:8000/v1",
        "decode": "http://10.0.0.3:8000/v1",
    }
    assert pools["decode"].api_key == "k" and parse_pools("  \n") == {}
    for text, message in [
        ("prefill http://x", "line 1: write `name = base URL`"),
        ("a = http://x\na = http://y", "line 2: the name 'a' is used twice"),
        ("a = ftp://x", "line 1: The base URL must start with http"),
        ("\n".join(f"p{i} = http://x" for i in range(9)), "at most 8"),
    ]:
        with pytest.raises(LabError, match=message):
            parse_pools(text)


def test_a_saved_trace_keeps_each_pools_readings():
    from lab.remote_client import RemoteRequest

    plan = LoadPlan("synchronous", [RemoteRequest("hi", 2)], max_requests=1)
    run = LoadRun(plan, start=100.0, end=101.0)
    gauge = {"vllm:num_requests_running": 1.0, "pdlab:kv_transfer_bytes": 2048.0}
    pool = MetricsWatch([Snapshot(100.2, gauge), Snapshot(100.8, gauge | {"pdlab:kv_transfer_bytes": 4096.0})])
    seen = MetricsWatch(note="not read", pools={"decode": pool})
    back = load_saved(dump_saved(Saved("http://x/v1", "m", None, [(run, seen)])))
    ((_, got),) = back.runs
    assert list(got.pools) == ["decode"] and len(got.pools["decode"].snapshots) == 2
    assert got.pools["decode"].series("running") == [(pytest.approx(0.2), 1.0), (pytest.approx(0.8), 1.0)]
    assert [s.gauges[TRANSFER] for s in got.pools["decode"].snapshots] == [2048.0, 4096.0]


def test_each_pool_gets_a_row_with_kv_use_on_its_own_percent_axis():
    from app_pages.remote.figures import gauges_figure

    def pool(kv: float | None) -> MetricsWatch:
        gauges = {"vllm:num_requests_running": 2.0, "vllm:num_requests_waiting": 1.0}
        gauges |= {"vllm:kv_cache_usage_perc": kv} if kv is not None else {}
        return MetricsWatch([Snapshot(100.2, gauges), Snapshot(100.8, gauges)])

    pools = {"prefill": pool(None), "decode": pool(0.25)}  # the first row has no KV gauge
    fig = gauges_figure(pools, 100.0, "Each pool's gauges over the load", "en")
    assert [a.text for a in fig.layout.annotations] == ["prefill", "decode"]
    kv = [d for d in fig.data if d.legendgroup == "kv"]
    assert len(kv) == 1 and kv[0].y == (25.0, 25.0) and kv[0].showlegend  # named once, by the row that has it
    right = fig.layout[kv[0].yaxis.replace("y", "yaxis")]
    assert right.side == "right" and tuple(right.range) == (0, 100) and right.title.text == "KV cache in use (%)"
    assert [d.name for d in fig.data if d.showlegend] == ["running", "waiting", "KV cache in use (%)"]
    left = [fig.layout[f"yaxis{n}"] for n in (1, 3)]  # each row's own: requests, from zero
    assert all(a.title.text == "requests" and a.rangemode == "tozero" for a in left)
    titled = [name for name in fig.layout if name.startswith("xaxis") and fig.layout[name].title.text]
    assert titled == ["xaxis2"]  # one time axis, under the last row
