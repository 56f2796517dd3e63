"""The capacity search (lab/load_capacity.py): its bracketing on a synthetic server whose limit is known,
its stops (budget, cancel, maximum, a failure at 1), its sentence, and a real search on
`python -m engine serve` whose answer holds when measured again."""

from __future__ import annotations

import math

import pytest

from engine.errors import LabError
from engine.observe.request_metrics import RequestMetrics
from lab.busy import MachineLoad
from lab.capacity_cli import point_line
from lab.catalogues import word
from lab.load_capacity import Capacity, Point, Scale, search, server_measure
from lab.remote_client import Endpoint, RemoteRequest
from lab.remote_metrics import Histogram, MetricsWatch, Snapshot
from lab.slo import SLO, judge
from lab.slo_cause import explain

SLO_TTFT = SLO(ttft_ms=100, target=0.9)
BUSY, QUIET = MachineLoad(1.2, 2, 2.0), MachineLoad(0.1, 2, 2.0)


def synthetic(limit: int, seen: list[int], busy_at: int | None = None):
    """A server that keeps TTFT under 100 ms up to `limit` requests in flight, and misses above."""

    def measure(load: int) -> Point:
        seen.append(load)
        ttft = 50.0 if load <= limit else 400.0
        verdict = judge(SLO_TTFT, [RequestMetrics(ttft, 20.0, [20.0] * 3, ttft + 60, 4)] * 10, 2.0)
        return Point(load, verdict, 2.0, machine=BUSY if load == busy_at else QUIET)

    return measure


def test_doubling_then_bisection_brackets_the_limit():
    seen: list[int] = []
    result = search(synthetic(5, seen), SLO_TTFT)
    assert seen == [1, 2, 4, 8, 6, 5]
    assert (result.good, result.bad, result.bracketed, result.limiting) == (5, 6, True, "ttft")
    assert word(result.message()) == (
        "Holds a concurrency of 5 with TTFT ≤ 100 ms for 90 % of requests; at 6, TTFT breaks first."
    )
    assert (
        word(result.message(), "zh")
        == "可承载 5 个并发请求，且 90 % 的请求满足 TTFT ≤ 100 ms；到 6 个时，TTFT 最先失守。"
    )


def test_a_rate_search_brackets_requests_per_second():
    """Level n of a rate scale is n × step requests per second: the same search, said in its unit."""
    seen: list[int] = []
    half = Scale("rate", 0.5)
    result = search(synthetic(5, seen), SLO_TTFT, scale=half)
    assert seen == [1, 2, 4, 8, 6, 5] and [half.value(n) for n in sorted(result.points)] == [0.5, 1, 2, 2.5, 3, 4]
    assert word(result.message()) == (
        "Holds a rate of 2.5 requests/s with TTFT ≤ 100 ms for 90 % of requests; at 3 requests/s, TTFT breaks first."
    )
    assert (
        word(result.message(), "zh")
        == "可承载每秒 2.5 个请求，且 90 % 的请求满足 TTFT ≤ 100 ms；到每秒 3 个时，TTFT 最先失守。"
    )
    assert word(search(synthetic(0, []), SLO_TTFT, scale=half).message()).startswith("Not even 0.5 requests/s meets")
    assert (half.levels(8), Scale("rate", 0.3).levels(0.9), Scale().levels(4)) == (16, 3, 4)
    for bad in (dict(by="tokens"), dict(by="rate", step=0)):
        with pytest.raises(LabError):
            Scale(**bad)


def test_every_stop_keeps_what_was_measured():
    seen: list[int] = []
    fails_at_once = search(synthetic(0, seen), SLO_TTFT)
    assert seen == [1] and fails_at_once.good is None and fails_at_once.bad == 1
    assert word(fails_at_once.message()).startswith("Not even one request at a time meets TTFT ≤ 100 ms")

    capped = search(synthetic(100, []), SLO_TTFT, max_load=6)
    assert list(capped.points) == [1, 2, 4, 6] and capped.stopped == "max load" and capped.bad is None
    assert "Holds a concurrency of 6" in word(capped.message()) and "(the maximum load was reached)" in word(
        capped.message()
    )

    ticks = iter(range(0, 1000, 10))  # each load takes 10 s of this clock
    short = search(synthetic(5, []), SLO_TTFT, budget_s=45, clock=lambda: next(ticks))
    assert short.stopped == "budget" and len(short.points) < 6
    assert word(short.message()).startswith("Holds") and "(the time budget ran out)" in word(short.message())

    calls = iter([False, False, True])
    cancelled = search(synthetic(5, []), SLO_TTFT, stop=lambda: next(calls))
    assert list(cancelled.points) == [1, 2] and cancelled.stopped == "cancelled"
    assert word(Capacity(SLO_TTFT).message()).startswith("Nothing was measured")


def test_a_load_that_held_beside_other_work_held():
    """Other work only slows a server down: a load that met the target while it ran stands."""
    result = search(synthetic(5, [], busy_at=4), SLO_TTFT)
    assert result.busy and result.separable
    assert word(result.message()) == (
        "Holds a concurrency of 5 with TTFT ≤ 100 ms for 90 % of requests; at 6, TTFT breaks first."
    )


def test_where_it_breaks_beside_other_work_is_not_separable():
    """The first load that missed ran beside other work: what held is said, where it breaks is not
    separable here, with that work beside it (never "holds (busy machine)")."""
    result = search(synthetic(5, [], busy_at=6), SLO_TTFT)
    assert not result.separable and (result.good, result.bad) == (5, 6)
    said = word(result.message())
    assert said.startswith("Holds a concurrency of 5 with TTFT ≤ 100 ms for 90 % of requests; at 6 it missed")
    assert "other work took 1.2 of 2 cores" in said and "not separable here" in said and "busy machine" not in said
    assert "无法区分" in word(result.message(), "zh")
    at_6, at_8, at_1 = (point_line(result.points[n]) for n in (6, 8, 1))  # the CLI's line per load
    assert at_6.endswith("not separable here · ⚠ 1.2/2 cores busy with other work") and "busy machine" not in at_6
    assert at_8.endswith("does not hold") and at_1.endswith("goodput 5.00 req/s, holds")
    none = search(synthetic(0, [], busy_at=1), SLO_TTFT)
    assert word(none.message()).startswith("Not separable here: even one request at a time missed")


def test_a_search_on_our_server_brackets_a_limit_that_holds_when_measured_again(servers, tiny_dirs):
    """A server that decodes 2 requests at once: a third waits for a whole reply (192 tokens: 0.25 s
    and more on the tiny model, where 64 took under the SLO's 100 ms on a quiet Zen 4), so TTFT jumps
    from milliseconds to the length of a reply. The search finds 2 / 3, and measuring both loads again
    agrees."""
    with servers.engine(str(tiny_dirs["llama"]), "engine-serve-capacity.log", "--max-num-seqs", "2") as url:
        endpoint = Endpoint(url)
        requests = [RemoteRequest("Count: one two three", 192, chat=False, ignore_eos=True)]
        measure = server_measure(endpoint, tiny_dirs["llama"].name, requests, SLO_TTFT)
        result = search(measure, SLO_TTFT, budget_s=120, max_load=8)
        if not result.separable:
            assert "not separable here" in word(result.message())
            pytest.skip("the first load that missed ran beside other work: where it breaks is not separable here")
        assert (result.good, result.bad, result.limiting) == (2, 3, "ttft"), word(result.message())
        # the third request waited for a free slot: the server's own histograms say queue, not prefill
        cause = result.cause
        assert cause is not None and cause.key == "queue" and cause.queue_ms > cause.prefill_ms, cause
        # the waiting gauge is read every 0.5 s and a wait here is ~150 ms: its peak may miss it
        assert cause.running == 2 and cause.waiting is not None and "0 waiting" not in word(result.message()), cause
        assert "TTFT breaks first: requests waited in the server's queue" in word(result.message())
        assert measure(2).verdict.holds and not measure(3).verdict.holds


def test_the_command_line_answers_in_one_sentence_and_saves_the_loads(tiny_server, tmp_path):
    import subprocess
    import sys

    from lab.remote_trace import load_saved

    url, model = tiny_server
    out = tmp_path / "capacity.json"
    cli = [sys.executable, "-m", "lab.capacity_cli", "--url", url, "--max-tokens", "4"]
    done = subprocess.run(
        [*cli, "--slo", "e2e=600000", "--max-load", "2", "--out", str(out)], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    assert "load   1: 10/10 met the SLO (100 %)" in done.stdout and "load   2: 10/10 met" in done.stdout
    assert "Holds a concurrency of 2 with E2E ≤ 600000 ms for 90 % of requests" in done.stdout
    saved = load_saved(out.read_bytes())
    assert saved.model == model and [run.plan.concurrency for run, _ in saved.runs] == [1, 2]
    assert saved.kind == "vllm" and all(seen.over_run("ttft").count == 10 for _, seen in saved.runs)
    by_rate = [*cli, "--slo", "e2e=600000", "--by", "rate", "--rate-step", "2", "--max-rate", "4", "--out", str(out)]
    done = subprocess.run(by_rate, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "rate 2 req/s: 12/12 met the SLO" in done.stdout and "rate 4 req/s: 24/24 met" in done.stdout
    assert "Holds a rate of 4 requests/s with E2E ≤ 600000 ms" in done.stdout
    assert [(run.plan.mode, run.plan.rate) for run, _ in load_saved(out.read_bytes()).runs] == [
        ("constant", 2),
        ("constant", 4),
    ]
    bad = subprocess.run([*cli, "--slo", "latency=5"], capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "name among ttft, tpot, itl, e2e" in bad.stderr


def watched(
    queue_s: float, prefill_s: float, decode_s: float, kv: float = 0.3, running: int = 2, waiting: int = 3
) -> MetricsWatch:
    """A server's readings over a load of 10 requests with these mean phase times."""

    def snap(t: float, n: int) -> Snapshot:
        hist = {
            f"vllm:request_{name}_time_seconds": Histogram([(math.inf, n)], n, n * mean)
            for name, mean in (("queue", queue_s), ("prefill", prefill_s), ("decode", decode_s))
        }
        gauges = {
            "vllm:num_requests_running": float(running),
            "vllm:num_requests_waiting": float(waiting),
            "vllm:kv_cache_usage_perc": kv,
        }
        return Snapshot(t, gauges, hist)

    return MetricsWatch([snap(0.0, 0), snap(1.0, 10)])


def test_the_cause_names_the_phase_that_took_the_time():
    queued = explain(watched(0.8, 0.05, 1.0), "ttft")
    assert queued.key == "queue" and queued.queue_ms == pytest.approx(800) and queued.prefill_ms == pytest.approx(50)
    assert word(queued.message()) == (
        "requests waited in the server's queue (mean 800 ms) longer than their prefill took (50 ms): they queue "
        "behind other requests; up to 2 running and 3 waiting at once"
    )
    # waits shorter than the gauge's reads: the histograms saw the queue, the sentence claims no "0 waiting"
    missed = explain(watched(0.8, 0.05, 1.0, waiting=0), "ttft")
    assert missed.key == "queue" and word(missed.message()).endswith("behind other requests; up to 2 running at once")
    assert explain(watched(0.01, 0.4, 1.0), "ttft").key == "prefill"
    alone = explain(watched(0.01, 0.04, 2.0, running=1), "tpot")  # one request at a time: nothing shared a step
    assert alone.key == "decode_alone" and word(alone.message()).startswith("decoding alone was slower than the SLO")
    assert explain(watched(0.01, 0.4, 1.0, running=1), "ttft").key == "prefill_alone"
    # a short load slips between the gauge's reads: the fixed number in flight decides, and no peak is claimed
    unseen = explain(watched(0.01, 0.4, 1.0, running=0), "ttft", in_flight=3)
    assert unseen.key == "prefill" and "running" not in word(unseen.message())
    assert explain(watched(0.01, 0.4, 1.0, running=0), "ttft", in_flight=1).key == "prefill_alone"
    assert explain(watched(0.01, 0.04, 2.0), "tpot").key == "decode"
    assert explain(watched(0.01, 0.04, 2.0, kv=1.0), "itl").key == "kv_full"
    assert explain(watched(0.9, 0.1, 0.5), "e2e").key == "queue"  # the wait for the first token dominates
    assert explain(MetricsWatch(note="404"), "ttft") is None and explain(watched(1, 1, 1), None) is None


def test_the_answer_carries_the_cause_or_says_there_is_none():
    def point(load: int, holds: bool, seen: MetricsWatch | None) -> Point:
        ttft = 50.0 if holds else 500.0
        return Point(load, judge(SLO_TTFT, [RequestMetrics(ttft, None, [], ttft, 1)], 1.0), 1.0, seen=seen)

    answer = Capacity(SLO_TTFT, {2: point(2, True, None), 3: point(3, False, watched(0.8, 0.05, 1.0))}, good=2, bad=3)
    assert word(answer.message()).endswith(
        "at 3, TTFT breaks first: requests waited in the server's queue (mean 800 ms) "
        "longer than their prefill took (50 ms): they queue behind other requests; up "
        "to 2 running and 3 waiting at once."
    )
    assert "TTFT 最先失守：请求在服务器队列里等待" in word(answer.message(), "zh")
    silent = Capacity(SLO_TTFT, {2: point(2, True, None), 3: point(3, False, MetricsWatch(note="404"))}, good=2, bad=3)
    assert word(silent.message()).endswith("TTFT breaks first (the server published no metrics that say why).")
