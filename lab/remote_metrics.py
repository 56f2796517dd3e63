"""A server's own view of a run: its Prometheus /metrics scraped before, during (every ~0.5 s) and
after a load, parsed with `prometheus_client`'s text parser.

Gauges give the batch over time (running, waiting, KV cache usage); the difference of a latency
histogram between two scrapes gives the server-side distribution over the run (its quantiles the
way Prometheus' histogram_quantile reads them). The names are vLLM's (our own server uses them too),
SGLang's, llama.cpp's and TGI's as their documentation gives them; a server without /metrics
(`transformers serve`), or with none of these names, is reported, not an error.
"""

from __future__ import annotations

import asyncio
import json
import math
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field

from prometheus_client.parser import text_string_to_metric_families

from engine.errors import LabError
from engine.observe.fields import Float, ListOf, Parsed, Text
from lab.remote_client import Endpoint

MAX_METRICS_BYTES = 8 << 20


@dataclass(frozen=True)
class MetricNames:
    running: str | None = None
    waiting: str | None = None
    kv_usage: str | None = None  # a fraction, 0..1
    ttft: str | None = None  # histograms, seconds
    itl: str | None = None
    e2e: str | None = None
    queue: str | None = None
    prefill: str | None = None
    decode: str | None = None


KINDS = {
    "vllm": MetricNames(
        "vllm:num_requests_running",
        "vllm:num_requests_waiting",
        "vllm:kv_cache_usage_perc",
        "vllm:time_to_first_token_seconds",
        "vllm:inter_token_latency_seconds",
        "vllm:e2e_request_latency_seconds",
        "vllm:request_queue_time_seconds",
        "vllm:request_prefill_time_seconds",
        "vllm:request_decode_time_seconds",
    ),
    "sglang": MetricNames(
        "sglang:num_running_reqs",
        "sglang:num_queue_reqs",
        "sglang:token_usage",
        "sglang:time_to_first_token_seconds",
        "sglang:inter_token_latency_seconds",
        "sglang:e2e_request_latency_seconds",
    ),
    # llama.cpp's C++ server (`llama-server --metrics`): gauges only, no latency histograms
    "llamacpp": MetricNames(
        "llamacpp:requests_processing",
        "llamacpp:requests_deferred",
        "llamacpp:kv_cache_usage_ratio",
    ),
    "tgi": MetricNames(
        "tgi_batch_current_size",
        "tgi_queue_size",
        None,
        None,
        "tgi_request_mean_time_per_token_duration",
        "tgi_request_duration",
        "tgi_request_queue_duration",
    ),
}


def _bucket(pair: object) -> tuple[float, float]:
    """A saved bucket, [upper bound, cumulative count]: the last bound "+Inf", as Prometheus writes it."""
    le, count = pair if isinstance(pair, list) and len(pair) == 2 else (None, None)
    le = math.inf if le == "+Inf" else le
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (le, count)):
        raise ValueError(pair)
    return float(le), float(count)


@dataclass
class Histogram:
    buckets: ListOf(Parsed(tuple[float, float], _bucket, "[upper bound, count]"), 1024)  # +inf last
    count: Float(lo=0.0)
    total: Float()

    def minus(self, earlier: Histogram | None) -> Histogram:
        if earlier is None:
            return self
        before = dict(earlier.buckets)
        return Histogram(
            [(le, c - before.get(le, 0.0)) for le, c in self.buckets],
            self.count - earlier.count,
            self.total - earlier.total,
        )

    def quantile(self, q: float) -> float | None:
        """Linear within the bucket that holds the q-th observation, as Prometheus does."""
        if self.count <= 0:
            return None
        rank, lower, below = q * self.count, 0.0, 0.0
        for le, cumulative in self.buckets:
            if cumulative >= rank:
                if math.isinf(le):
                    return lower
                inside = cumulative - below
                return lower + (le - lower) * ((rank - below) / inside if inside else 1.0)
            lower, below = le, cumulative
        return lower


@dataclass
class Snapshot:
    time: Float()  # perf_counter when it was read
    gauges: dict[str, Float()] = field(default_factory=dict)
    histograms: dict[str, Histogram] = field(default_factory=dict)

    def kind(self) -> str | None:
        """Which server's names these are (vLLM's also for our own server)."""
        names = set(self.gauges) | set(self.histograms)
        return next((k for k, n in KINDS.items() if n.running in names), None)


def metrics_url(endpoint: Endpoint) -> str:
    return endpoint.base_url.removesuffix("/v1") + "/metrics"


def parse(text: str, when: float) -> Snapshot:
    snap = Snapshot(when)
    for family in text_string_to_metric_families(text):
        if family.type in ("gauge", "counter"):
            values = [s.value for s in family.samples if s.name in (family.name, family.name + "_total")]
            if values:
                snap.gauges[family.name] = sum(values)  # summed over label sets (e.g. several ranks)
        elif family.type == "histogram":
            buckets: dict[float, float] = {}
            count = total = 0.0
            for s in family.samples:
                if s.name.endswith("_bucket"):
                    le = float(s.labels["le"])
                    buckets[le] = buckets.get(le, 0.0) + s.value
                elif s.name.endswith("_count"):
                    count += s.value
                elif s.name.endswith("_sum"):
                    total += s.value
            snap.histograms[family.name] = Histogram(sorted(buckets.items()), count, total)
    return snap


def fetch_text(endpoint: Endpoint, url: str | None = None) -> str | None:
    """The /metrics text (or another page of the server's), or None on a 404. Other failures raise."""
    headers = {"Authorization": f"Bearer {endpoint.api_key}"} if endpoint.api_key else {}
    request = urllib.request.Request(url or metrics_url(endpoint), headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=min(endpoint.timeout_s, 10)) as r:
            return r.read(MAX_METRICS_BYTES).decode("utf-8", "replace")
    except urllib.error.HTTPError as e:
        if e.code == 404:
            return None
        raise


async def scrape(endpoint: Endpoint) -> Snapshot | None:
    """One reading, or None when the server publishes no metrics."""
    text = await asyncio.to_thread(fetch_text, endpoint)
    if text is None:
        return None
    return parse(text, time.perf_counter())


def _failed(url: str, exc: BaseException) -> str:
    return f"reading {url} failed ({type(exc).__name__}: {str(exc)[:160]})"


def _absent(url: str) -> str:
    return f"{url} answered 404: this server publishes no Prometheus metrics"


async def probe(endpoint: Endpoint) -> tuple[str | None, str]:
    """Which server's metric names /metrics publishes ("vllm", ..., or None), and a sentence saying
    what was found when none the lab knows."""
    url = metrics_url(endpoint)
    try:
        snap = await scrape(endpoint)
    except Exception as exc:  # noqa: BLE001 - metrics are extra: a server without them still serves
        return None, _failed(url, exc)
    if snap is None:
        return None, _absent(url)
    kind = snap.kind()
    if kind is not None:
        return kind, kind
    names = sorted(set(snap.gauges) | set(snap.histograms))
    if not names:
        return None, f"{url} answered, with no metrics in it"
    shown = ", ".join(names[:4]) + (", …" if len(names) > 4 else "")
    return None, f"{url} has {len(names)} metrics, none of them with names the lab knows ({shown})"


async def server_request_view(endpoint: Endpoint, response_id: str | None) -> dict | None:
    """Our own server's timing of one finished request (GET /pdlab/requests/<id>: ttft_ms, tpot_ms,
    e2e_ms, queue_ms, prefill_ms, decode_ms, output_tokens), or None from any other server."""
    if not response_id:
        return None
    url = endpoint.base_url.removesuffix("/v1") + "/pdlab/requests/" + urllib.parse.quote(response_id, safe="")
    try:
        text = await asyncio.to_thread(fetch_text, endpoint, url)
        view = json.loads(text) if text else None
    except Exception:  # noqa: BLE001 - an extra view: a server without it simply has none
        return None
    return view if isinstance(view, dict) and view.get("id") == response_id else None


@dataclass
class MetricsWatch:
    """Readings of one run: before, every `interval_s` during, after; `note` says why there are none.
    `pools`: the same of other servers read beside it, by name (a router's prefill and decode workers,
    as a disaggregated vLLM, SGLang or Dynamo deployment exposes them)."""

    snapshots: ListOf(Snapshot, 100_000) = field(default_factory=list)
    note: Text(4096) | None = None
    pools: dict[str, MetricsWatch] = field(default_factory=dict)  # saved runs from before pools have none

    @property
    def kind(self) -> str | None:
        return self.snapshots[0].kind() if self.snapshots else None

    def series(self, which: str) -> list[tuple[float, float]]:
        """(time, value) of one gauge ("running", "waiting" or "kv_usage") over the run."""
        name = getattr(KINDS.get(self.kind or "", MetricNames()), which)
        return [(s.time, s.gauges[name]) for s in self.snapshots if name in s.gauges]

    def over_run(self, which: str) -> Histogram | None:
        """One latency histogram ("ttft", "itl", ...) over the run: the last reading minus the first."""
        name = getattr(KINDS.get(self.kind or "", MetricNames()), which)
        if name is None or len(self.snapshots) < 2 or name not in self.snapshots[-1].histograms:
            return None
        return self.snapshots[-1].histograms[name].minus(self.snapshots[0].histograms.get(name))


MAX_POOLS = 8
TRANSFER = "pdlab:kv_transfer_bytes"  # this lab's disaggregated workers: KV hand-off bytes (a counter)


def parse_pools(text: str, api_key: str | None = None) -> dict[str, Endpoint]:
    """`name = base URL` per line (blank lines and # comments skipped) -> {name: endpoint}; LabError
    naming the line for anything else."""
    pools: dict[str, Endpoint] = {}
    for i, line in enumerate(text.splitlines(), start=1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        name, sep, url = (part.strip() for part in line.partition("="))
        if not sep or not name or not url:
            raise LabError(f"Pools, line {i}: write `name = base URL`, e.g. `prefill = http://10.0.0.2:8000`.")
        if name in pools:
            raise LabError(f"Pools, line {i}: the name {name!r} is used twice.")
        try:
            pools[name] = Endpoint(url, api_key)
        except LabError as e:
            raise LabError(f"Pools, line {i}: {e}") from None
    if len(pools) > MAX_POOLS:
        raise LabError(f"Pools: at most {MAX_POOLS} servers are read beside a run, got {len(pools)}.")
    return pools


async def watch_all(
    endpoint: Endpoint, done: asyncio.Event, pools: dict[str, Endpoint] | None = None, interval_s: float = 0.5
) -> MetricsWatch:
    """The server's readings, and each pool's beside them, until `done` is set."""
    names = list(pools or {})
    got = await asyncio.gather(watch(endpoint, done, interval_s), *(watch(pools[n], done, interval_s) for n in names))
    got[0].pools = dict(zip(names, got[1:]))
    return got[0]


async def watch(endpoint: Endpoint, done: asyncio.Event, interval_s: float = 0.5) -> MetricsWatch:
    """Read /metrics until `done` is set, then once more."""
    result = MetricsWatch()
    while True:
        try:
            snap = await scrape(endpoint)
        except Exception as exc:  # noqa: BLE001 - the server's metrics are extra: say why, keep the run
            result.note = _failed(metrics_url(endpoint), exc)
            return result
        if snap is None:
            result.note = _absent(metrics_url(endpoint))
            return result
        result.snapshots.append(snap)
        if done.is_set():
            return result
        try:
            await asyncio.wait_for(done.wait(), interval_s)
        except TimeoutError:
            pass
