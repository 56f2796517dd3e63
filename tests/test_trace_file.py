"""Trace files: a run -> JSON -> load gives the same records and the same figures; anything that
is not a valid trace is refused with a ValueError that says why; the attention kept in a file is
capped. Real runs of a tiny model (eager, so attention is captured)."""

from __future__ import annotations

import copy
import dataclasses
import json

import numpy as np
import pytest

from app_pages.playground.report_figures import heatmap_figure, run_figures
from app_pages.playground.step_table import step_table, worked_example_md
from app_pages.playground.trace_attention import ATTENTION_MAX_BYTES, encode_attention, kept_layers
from app_pages.playground.trace_file import dump_run, load_run
from engine import Engine, EngineConfig, SamplingParams
from lab.busy import MachineLoad
from lab.trace_io import dump_trace, load_trace
from tests.ui_support import run_to_end
from ui.chips import chips_html


@pytest.fixture(scope="module")
def eager_run(tiny):
    return run_to_end(tiny, prompt="The quick brown fox <b>jumps</b>", max_new_tokens=6, attention="eager")


@pytest.fixture(scope="module")
def doc(eager_run) -> dict:
    return json.loads(dump_run(eager_run))


def test_file_names_its_format_and_holds_the_run(doc, eager_run):
    assert doc["format"] == "pdlab-playground-trace" and doc["version"] == 1
    assert doc["model"]["num_layers"] == eager_run.model.num_layers and doc["settings"]["attention"] == "eager"
    assert [t["piece"]["label"] for t in doc["tokens"]] == [p.label for p in eager_run.pieces]
    assert doc["steps"][0]["seqs"][0]["shapes"]["scores"] == eager_run.steps[0].seqs[0].shapes.scores
    assert doc["summary"]["ttft_ms"] == pytest.approx(eager_run.metrics.ttft_ms)
    assert len(doc["attention"]["steps"]) == len(eager_run.steps)


def test_the_machines_load_travels_with_the_run(doc, eager_run):
    """A run timed on a busy machine still says so when its file is loaded; an older file without the
    field loads with no load (the page then says it was not recorded)."""
    assert doc["load"] == eager_run.load.to_dict() | {"busy": eager_run.load.busy}
    busy = copy.copy(eager_run)
    busy.load = MachineLoad(1.5, 2, 3.0)
    back = load_run(dump_run(busy))
    assert back.load == MachineLoad(1.5, 2, 3.0) and back.load.busy
    older = {k: v for k, v in doc.items() if k != "load"}
    assert load_run(json.dumps(older)).load is None


def test_round_trip_gives_the_same_records_and_figures(eager_run):
    loaded = load_run(dump_run(eager_run))
    assert loaded.steps == eager_run.steps and loaded.tokens == eager_run.tokens
    assert loaded.pieces == eager_run.pieces and loaded.prompt == eager_run.prompt
    assert loaded.request == eager_run.request and loaded.settings == eager_run.settings
    assert loaded.model == eager_run.model and loaded.status == eager_run.status
    assert loaded.memory_pass == eager_run.memory_pass == "replay"  # where the peaks came from
    assert len(loaded.attention) == len(eager_run.attention)
    for a, b in zip(loaded.attention, eager_run.attention):
        assert a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a)
    for lang in ("en", "zh"):
        before, after = run_figures(eager_run, lang), run_figures(loaded, lang)
        assert list(before) == list(after) and "attention" in before
        for name in before:
            assert after[name].to_json() == before[name].to_json(), name
    assert chips_html(loaded, 1) == chips_html(eager_run, 1)
    assert step_table(loaded.steps, {}).equals(step_table(eager_run.steps, {}))
    assert worked_example_md(loaded) == worked_example_md(eager_run)


def test_sdpa_run_round_trips_without_attention(tiny):
    run = run_to_end(tiny, prompt="Hello", max_new_tokens=3, attention="sdpa", kv_cache=False)
    loaded = load_run(dump_run(run).encode("utf-8"))  # bytes, as the uploader hands them over
    assert loaded.attention == [] and not loaded.has_attention and heatmap_figure(loaded, "en") is None
    assert {k: f.to_json() for k, f in run_figures(loaded).items()} == {
        k: f.to_json() for k, f in run_figures(run).items()
    }


def test_engine_trace_round_trip(tiny):
    engine = Engine(tiny.model, tiny.tokenizer, EngineConfig(kv_cache_bytes=0), name="tiny")
    trace = engine.generate("One two three", SamplingParams(max_new_tokens=4))
    loaded = load_trace(dump_trace(trace))
    assert loaded.to_dict() == trace.to_dict()
    assert loaded.steps == trace.steps and loaded.requests == trace.requests


def test_attention_is_capped_to_evenly_spaced_layers():
    attention = [{layer: np.full((4, 8, 8), 0.125, np.float16) for layer in range(10)}]  # 512 B per layer
    assert kept_layers(attention, budget=10 * 512) == list(range(10))
    assert kept_layers(attention, budget=4 * 512) == [0, 3, 6, 9]
    assert kept_layers(attention, budget=700) == [9]  # one fits: the last (the heatmap's default)
    assert kept_layers(attention, budget=100) == []
    encoded = encode_attention(attention, 10, budget=4 * 512)
    assert sorted(encoded["steps"][0]) == ["0", "3", "6", "9"] and encoded["captured_layers"] == list(range(10))


def test_a_big_capture_stays_a_few_mb(eager_run):
    big = copy.copy(eager_run)
    big.model = dataclasses.replace(eager_run.model, num_layers=200)
    rng = np.random.default_rng(0)  # random values do not compress: the cap alone keeps it small
    big.attention = [
        {layer: rng.random((4, 64, 64)).astype(np.float16) for layer in range(200)} for _ in eager_run.steps
    ]
    kept = kept_layers(big.attention)
    assert 0 < len(kept) < 200 and kept[-1] == 199
    text = dump_run(big)
    assert len(text) < 1.5 * ATTENTION_MAX_BYTES + 200_000
    assert sorted(load_run(text).attention[0]) == kept


def _broken(doc: dict, path: list, value) -> str:
    d = copy.deepcopy(doc)
    target = d
    for key in path[:-1]:
        target = target[key]
    if value is KeyError:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return json.dumps(d)


INVALID = [
    ("not json", lambda d: "this is { not JSON", "not JSON"),
    ("binary", lambda d: b"\x89PNG\r\n\x1a\n\xff\xfe", "not UTF-8"),
    ("a list", lambda d: "[1, 2, 3]", "should be an object"),
    ("another format", lambda d: json.dumps({"format": "something-else", "version": 1}), "format"),
    ("newer version", lambda d: _broken(d, ["version"], 99), "Unsupported trace version 99"),
    ("missing steps", lambda d: _broken(d, ["steps"], KeyError), "steps is missing"),
    ("text for a number", lambda d: _broken(d, ["steps", 0, "ms"], "fast"), "steps[0].ms should be a finite number"),
    ("unknown phase", lambda d: _broken(d, ["tokens", 1, "phase"], "warp"), "tokens[1].phase should be one of"),
    ("NaN", lambda d: json.dumps(d).replace('"arrival": ' + json.dumps(d["arrival"]), '"arrival": NaN'), "NaN"),
    ("negative count", lambda d: _broken(d, ["model", "num_heads"], -3), "model.num_heads should be a whole number"),
    ("token in no step", lambda d: _broken(d, ["tokens", 0, "step"], 999), "names step 999"),
    ("labels missing", lambda d: _broken(d, ["tokens", 0, "piece"], KeyError), "tokens[0].piece is missing"),
    ("absurd shape", lambda d: _broken(d, ["attention", "steps", 0, "0", "shape"], [4, 100000, 100000]), "larger than"),
    ("wrong heads", lambda d: _broken(d, ["attention", "steps", 0, "0", "shape"], [3, 2, 2]), "heads="),
    ("corrupt attention", lambda d: _broken(d, ["attention", "steps", 0, "0", "data"], "@@@"), "base64"),
    ("too many steps", lambda d: _broken(d, ["steps"], [0] * 300_000), "at most 200000 items"),
    (
        "a long run",
        lambda d: _broken(d, ["steps"], d["steps"][:1] * 16_385),
        "holds 16,385 steps; the lab reads runs of at most 16,384 steps",
    ),
    ("a flag for a version", lambda d: _broken(d, ["version"], True), "Unsupported trace version True"),
    ("huge file", lambda d: " " * (33 << 20), "at most 32 MiB"),
]


@pytest.mark.parametrize("name, make, expected", INVALID, ids=[i[0] for i in INVALID])
def test_invalid_files_are_refused_with_the_reason(doc, name, make, expected):
    with pytest.raises(ValueError) as info:
        load_run(make(doc))
    message = str(info.value)
    assert expected in message, message
    assert message.startswith(("Not a valid trace", "Unsupported trace version")), message
