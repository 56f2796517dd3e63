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
