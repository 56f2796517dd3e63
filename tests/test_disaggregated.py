"""A disaggregated pair over HTTP: `serve --role prefill`, `serve --role decode` and `router` as
separate processes on loopback. The router's greedy answers equal one colocated server's, streamed
or whole, completion or chat; a worker that is down is named in an OpenAI-shaped error."""

from __future__ import annotations

import json
import urllib.error
import urllib.request

import pytest

PROMPT = "The quick brown fox jumps over the lazy dog"


@pytest.fixture(scope="module")
def pair(servers, tiny_dirs):
    model = str(tiny_dirs["llama"])
    with servers.engine(model, "engine-serve-prefill.log", "--role", "prefill") as p:
        # a small body limit for requests: a hand-off is larger, and has the route's own (the context's KV)
        with servers.engine(model, "engine-serve-decode.log", "--role", "decode", "--max-body-bytes", "2048") as d:
            with servers.router(p, d, "engine-router.log") as r:
                yield p, d, r


def client(url: str):
    from openai import OpenAI

    return OpenAI(base_url=f"{url}/v1", api_key="unused", max_retries=0, timeout=120)


def test_the_router_answers_as_one_server_does(pair, tiny_server, tiny_dirs):
    _, _, url = pair
    model = tiny_dirs["llama"].name
    args = dict(model=model, prompt=PROMPT, max_tokens=12, temperature=0, extra_body={"ignore_eos": True})
    want = client(tiny_server[0]).completions.create(**args)
    got = client(url).completions.create(**args)
    assert got.choices[0].text == want.choices[0].text and got.usage.completion_tokens == 12
    streamed = client(url).completions.create(**args, stream=True)
    assert "".join(c.choices[0].text for c in streamed if c.choices) == want.choices[0].text
    messages = [{"role": "user", "content": "Name a colour."}]
    chat = dict(model=model, messages=messages, max_tokens=8, temperature=0)
    assert (
        client(url).chat.completions.create(**chat).choices[0].message.content
        == client(tiny_server[0]).chat.completions.create(**chat).choices[0].message.content
    )
    stopped = client(url).completions.create(**args | {"stop": [want.choices[0].text[3:6]]})
    assert stopped.choices[0].text == want.choices[0].text[:3] and stopped.choices[0].finish_reason == "stop"


def labelled(url: str, name: str, sample: str, **labels) -> float:
    from prometheus_client.parser import text_string_to_metric_families

    with urllib.request.urlopen(f"{url}/metrics") as r:
        families = {f.name: f for f in text_string_to_metric_families(r.read().decode())}
    return sum(
        s.value
        for s in families[name].samples
        if s.name == sample and all(s.labels.get(k) == v for k, v in labels.items())
    )


def test_each_request_has_its_hand_off_record_and_the_workers_count_the_bytes(pair, tiny_dirs):
    p, d, url = pair
    sent_before = labelled(p, "pdlab:kv_transfer_bytes", "pdlab:kv_transfer_bytes_total", direction="sent")
    got = client(url).completions.create(
        model=tiny_dirs["llama"].name, prompt=PROMPT, max_tokens=6, temperature=0, extra_body={"ignore_eos": True}
    )
    with urllib.request.urlopen(f"{url}/pdlab/requests", timeout=30) as r:
        record = next(x for x in json.loads(r.read())["data"] if x["id"] == got.id)
    order = ["arrived", "p_arrival", "p_start", "p_end", "first_token", "d_received", "d_admitted", "done"]
    stamps = [record[k] for k in order]
    assert stamps == sorted(stamps), dict(zip(order, stamps))  # one wall clock, in the order they happen
    assert record["output_tokens"] == 6 and record["error"] is None
    sent = labelled(p, "pdlab:kv_transfer_bytes", "pdlab:kv_transfer_bytes_total", direction="sent")
    assert sent - sent_before == record["handoff_bytes"] > 0
    received = labelled(d, "pdlab:kv_transfer_bytes", "pdlab:kv_transfer_bytes_total", direction="received")
    assert received >= record["handoff_bytes"]
    assert labelled(d, "pdlab:kv_transfer_seconds", "pdlab:kv_transfer_seconds_count") >= 1


def test_a_worker_takes_only_its_role(pair):
    p, d, _ = pair
    req = urllib.request.Request(f"{p}/pdlab/decode", data=b"x", method="POST")
    with pytest.raises(urllib.error.HTTPError) as e:
        urllib.request.urlopen(req, timeout=30)
    assert e.value.code == 400 and "role is prefill" in json.loads(e.value.read())["error"]["message"]
    body = json.dumps({"prompt": PROMPT, "max_tokens": 2}).encode()
    req = urllib.request.Request(
        f"{d}/pdlab/prefill", data=body, method="POST", headers={"content-type": "application/json"}
    )
    with pytest.raises(urllib.error.HTTPError) as e:
        urllib.request.urlopen(req, timeout=30)
    assert "role is decode" in json.loads(e.value.read())["error"]["message"]


def test_a_decode_worker_that_is_down_is_named_and_the_router_keeps_serving(servers, pair, tiny_dirs):
    from engine.entrypoints.launch import free_port

    p, _, _ = pair
    gone = f"http://127.0.0.1:{free_port()}"  # nothing listens there
    with servers.router(p, gone, "engine-router-down.log") as url:
        from openai import APIStatusError

        for _ in range(2):  # and again: the router is still there
            with pytest.raises(APIStatusError) as e:
                client(url).completions.create(model=tiny_dirs["llama"].name, prompt=PROMPT, max_tokens=4)
            assert e.value.status_code == 502 and f"decode worker at {gone} is not answering" in str(e.value)
        with pytest.raises(urllib.error.HTTPError) as e:
            urllib.request.urlopen(f"{url}/health", timeout=30)
        assert e.value.code == 503 and "decode worker" in json.loads(e.value.read())["error"]["message"]


def test_a_decode_worker_killed_mid_stream_fails_its_request_clearly(servers, tiny_dirs):
    import time

    from openai import OpenAI

    model = str(tiny_dirs["llama-4k"])  # a long context: the stream is still going when the worker dies
    with servers.engine(model, "engine-serve-prefill-4k.log", "--role", "prefill") as p:
        with servers.held_engine(model, "engine-serve-decode-killed.log", "--role", "decode") as (d, proc):
            with servers.router(p, d, "engine-router-killed.log") as url:
                c = OpenAI(base_url=f"{url}/v1", api_key="unused", max_retries=0, timeout=60)
                stream = c.completions.create(
                    model=tiny_dirs["llama-4k"].name,
                    prompt=PROMPT,
                    max_tokens=3000,
                    stream=True,
                    extra_body={"ignore_eos": True},
                )
                chunks = iter(stream)
                next(chunks)
                proc.kill()  # ours, by its handle
                killed = time.monotonic()
                with pytest.raises(Exception) as e:  # the SDK raises on the error event (APIError)
                    for _ in chunks:
                        pass
                assert time.monotonic() - killed < 10
                assert f"decode worker at {d}" in str(e.value)
                with pytest.raises(urllib.error.HTTPError) as h:
                    urllib.request.urlopen(f"{url}/health", timeout=30)
                assert h.value.code == 503 and f"decode worker at {d}" in json.loads(h.value.read())["error"]["message"]
                from tests.server_support import metric

                usage = "vllm:kv_cache_usage_perc"
                assert metric(p, usage, usage) == 0  # the survivor holds no blocks of the lost request


def test_a_prefill_worker_killed_leaves_decodes_running_and_new_requests_get_a_clear_error(servers, tiny_dirs):
    from openai import APIStatusError, OpenAI

    model = str(tiny_dirs["llama-4k"])
    with servers.held_engine(model, "engine-serve-prefill-killed.log", "--role", "prefill") as (p, proc):
        with servers.engine(model, "engine-serve-decode-4k.log", "--role", "decode") as d:
            with servers.router(p, d, "engine-router-prefill-killed.log") as url:
                c = OpenAI(base_url=f"{url}/v1", api_key="unused", max_retries=0, timeout=60)
                args = dict(model=tiny_dirs["llama-4k"].name, prompt=PROMPT, temperature=0)
                stream = c.completions.create(**args, max_tokens=400, stream=True, extra_body={"ignore_eos": True})
                chunks = iter(stream)
                next(chunks)  # its KV is on the decode worker now
                proc.kill()  # ours, by its handle
                assert sum(1 for c in chunks if c.choices and c.choices[0].text) > 0  # it decodes to its end
                for _ in range(2):  # and again: the router is still there
                    with pytest.raises(APIStatusError) as e:
                        c.completions.create(**args, max_tokens=4)
                    assert e.value.status_code == 503 and f"prefill worker at {p} is not answering" in str(e.value)
                with pytest.raises(urllib.error.HTTPError) as h:
                    urllib.request.urlopen(f"{url}/health", timeout=30)
                assert (
                    h.value.code == 503 and f"prefill worker at {p}" in json.loads(h.value.read())["error"]["message"]
                )
                from tests.server_support import metric

                usage = "vllm:kv_cache_usage_perc"
                assert metric(d, usage, usage) == 0  # the survivor holds no blocks once its decode ended


@pytest.mark.parametrize(
    "argv, message",
    [
        (["serve", "--port", "1", "--cpus", "9999"], "--cpus 9999: this process may run on CPUs"),
        (["serve", "--port", "1", "--cpus", "a,b"], "--cpus takes CPU numbers"),
        (["serve", "--port", "1", "--disaggregate", "--role", "decode"], "--disaggregate starts its own workers"),
        (["serve", "--port", "1", "--disaggregate", "--cpus", "0"], "it takes no --cpus"),
        (["serve", "--port", "1", "--role", "decode"], "--role decode takes hand-offs only from its router"),
        (["router", "--prefill-url", "http://x", "--decode-url", "http://y"], "give it --handoff-token"),
        (["router", "--prefill-url", "http://x", "--decode-url", "http://y", "--max-body-bytes", "9"], "at least 1024"),
        (
            ["router", "--prefill-url", "localhost:1", "--decode-url", "http://x"],
            "--prefill-url must be an http(s) URL",
        ),
    ],
)
def test_bad_worker_and_router_options_are_one_line(cli, argv, message):
    out = cli(*argv)
    assert out.returncode == 2 and out.stderr.count("\n") == 1 and message in out.stderr, out.stderr


def test_the_remote_lab_reads_both_workers_pools_beside_a_load_through_the_router(pair, tiny_dirs):
    import asyncio
    import time

    from lab.remote_client import Endpoint, RemoteRequest
    from lab.remote_load import LoadPlan, LoadRun, watched_load
    from lab.remote_metrics import TRANSFER, MetricsWatch, parse_pools

    p, d, url = pair
    plan = LoadPlan(
        "concurrent", [RemoteRequest(PROMPT, 6, chat=False, ignore_eos=True)], max_requests=4, concurrency=2
    )
    run, seen = LoadRun(plan, start=time.perf_counter()), MetricsWatch()
    pools = parse_pools(f"prefill = {p}\ndecode = {d}")
    asyncio.run(watched_load(Endpoint(url), tiny_dirs["llama"].name, run, seen, read_metrics=False, pools=pools))
    assert [r.error for r in run.results] == [None] * 4
    assert seen.snapshots == [] and set(seen.pools) == {"prefill", "decode"}  # the router has no /metrics of its own
    for pool in seen.pools.values():
        assert pool.kind == "vllm" and len(pool.snapshots) >= 2
        moved = [s.gauges[TRANSFER] for s in pool.snapshots]
        assert moved[-1] > moved[0]  # each side counted the four hand-offs' bytes


def assert_gone(workers, what: str, within_s: float = 30.0) -> None:
    """Every worker stops answering /health within `within_s` (it died with `what`)."""
    import time

    deadline = time.monotonic() + within_s
    for worker in workers:
        while time.monotonic() < deadline:
            try:
                urllib.request.urlopen(f"{worker}/health", timeout=2)
            except OSError:
                break  # gone
            time.sleep(0.5)
        else:
            raise AssertionError(f"the worker at {worker} outlived {what}")


def test_serve_disaggregate_starts_the_pair_behind_its_router_and_stops_it(servers, tiny_server, tiny_dirs):
    import re

    from tests.conftest import ARTIFACTS

    model = tiny_dirs["llama"]
    log = ARTIFACTS / "engine-serve-disaggregate.log"
    args = dict(model=model.name, prompt=PROMPT, max_tokens=8, temperature=0, extra_body={"ignore_eos": True})
    with servers.held_engine(str(model), log.name, "--disaggregate") as (url, proc):
        assert client(url).completions.create(**args).choices[0].text == (
            client(tiny_server[0]).completions.create(**args).choices[0].text
        )
        workers = re.search(r"prefill (http://\S+), decode (http://\S+)", log.read_text()).groups()
        for worker in workers:
            with urllib.request.urlopen(f"{worker}/health", timeout=10) as r:
                assert r.status == 200
        proc.terminate()  # ours, by its handle: the router stops its workers by theirs
        proc.wait(timeout=60)
    assert_gone(workers, "its router")


def test_serve_disaggregate_keys_every_part_and_its_workers_die_with_it(servers, tiny_dirs):
    """--api-key guards the router and both workers (they get it, and the pair's hand-off token, by
    environment); SIGKILL of the parent leaves no worker listening (PR_SET_PDEATHSIG)."""
    import re
    import signal

    from openai import AuthenticationError, OpenAI

    from tests.conftest import ARTIFACTS

    model = tiny_dirs["llama"]
    log = ARTIFACTS / "engine-serve-disaggregate-keyed.log"
    with servers.held_engine(str(model), log.name, "--disaggregate", "--api-key", "s3cret") as (url, proc):
        workers = re.search(r"prefill (http://\S+), decode (http://\S+)", log.read_text()).groups()
        for base in (url, *workers):
            with pytest.raises(AuthenticationError):
                OpenAI(base_url=f"{base}/v1", api_key="wrong", max_retries=0).models.list()
        keyed = OpenAI(base_url=f"{url}/v1", api_key="s3cret", max_retries=0, timeout=120)
        assert keyed.completions.create(model=model.name, prompt=PROMPT, max_tokens=4).usage.completion_tokens == 4
        proc.send_signal(signal.SIGKILL)  # ours, by its handle: nothing of it runs on the way out
        proc.wait(timeout=10)
    assert_gone(workers, "its parent's SIGKILL")
