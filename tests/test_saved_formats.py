"""Every saved file the lab reads, in each shape its writers have produced: small files in tests/data.

All three of the lab's formats are still version 1; fields were added to them since, each optional on
the way in, so a file written before a field existed opens with the field's default:

    pdlab-playground-trace  v1 first: no memory_pass, load, rejected drafts, settings.speculative_k
                            or per-sequence drafted/accepted/draft; today's: all of them
    pdlab-engine-trace      v1 first: no drafted/accepted/draft per sequence; today's: with them
    pdlab-remote-trace      v1 first: no server_metrics.pools, no prompt_tokens/tokenizer per
                            request; today's: with them

Today's files were written by the writers as they stood before the records were declared once (a
tiny random Llama's runs; a remote run built by hand), the "first" ones from runs of the same kind
with the later fields taken out. Writing stays byte for byte: a file read and written again is the
same text. (GuideLLM's and vLLM's reports: tests/test_report_import.py.)
"""

from __future__ import annotations

import dataclasses
import json
from datetime import datetime
from pathlib import Path

from app_pages.playground.trace_file import load_run, run_to_dict
from lab.remote_client import RemoteResult
from lab.remote_trace import ResultFile, load_saved, saved_to_dict
from lab.trace_io import dump_trace, load_trace

DATA = Path(__file__).parent / "data"


def _text(name: str) -> str:
    return (DATA / name).read_text(encoding="utf-8")


def _compact(doc: dict) -> str:
    return json.dumps(doc, ensure_ascii=False, separators=(",", ":"))


def _created(text: str) -> datetime:
    return datetime.fromisoformat(json.loads(text)["created"])


def test_a_playground_trace_reads_and_writes_back_the_same_text():
    text = _text("playground-trace-v1.json")
    run = load_run(text)
    assert run.memory_pass == "replay" and run.load is not None and run.settings.speculative_k == 2
    assert run.rejected and any(s.drafted for step in run.steps for s in step.seqs)
    assert run.has_attention and len(run.attention) == len(run.steps)
    assert _compact(run_to_dict(run, _created(text))) == text


def test_the_first_playground_traces_open_with_todays_defaults():
    text = _text("playground-trace-v1-first.json")
    run = load_run(text)
    assert run.memory_pass is None and run.load is None and run.rejected == {} and run.settings.speculative_k == 0
    assert all((s.drafted, s.accepted, s.draft) == (0, 0, []) for step in run.steps for s in step.seqs)
    expected = json.loads(text) | {"rejected": [], "memory_pass": None, "load": None}
    expected["settings"]["speculative_k"] = 0
    for step in expected["steps"]:
        for seq in step["seqs"]:
            seq.update(drafted=0, accepted=0, draft=[])
    assert json.loads(_compact(run_to_dict(run, _created(text)))) == expected


def test_an_engine_trace_reads_and_writes_back_the_same_text():
    text = _text("engine-trace-v1.json")
    trace = load_trace(text)
    assert trace.model == "tiny-llama" and trace.requests and trace.steps and trace.tokens
    assert trace.steps[0].block_tables and all(isinstance(k, int) for k in trace.steps[0].block_tables)
    assert dump_trace(trace) == text


def test_the_first_engine_traces_open_with_todays_defaults():
    # the same run as today's file, written before speculative decoding: it reads as the same records
    assert dump_trace(load_trace(_text("engine-trace-v1-first.json"))) == _text("engine-trace-v1.json")


def test_a_remote_trace_reads_and_writes_back_the_same_text():
    text = _text("remote-trace-v1.json")
    saved = load_saved(text)
    ((run, seen),) = saved.runs
    assert saved.kind == "vllm" and len(run.results) == 3 and run.results[2].error == "Connection reset"
    assert list(seen.pools) == ["decode"] and run.plan.requests[1].prompt_tokens == 16
    assert seen.snapshots[-1].histograms["vllm:time_to_first_token_seconds"].buckets[-1] == (float("inf"), 2.0)
    assert _compact(saved_to_dict(saved, _created(text))) == text


def test_the_first_remote_traces_open_with_todays_defaults():
    text = _text("remote-trace-v1-first.json")
    ((run, seen),) = load_saved(text).runs
    assert seen.pools == {} and all(r.prompt_tokens is None and r.tokenizer is None for r in run.plan.requests)
    assert len(run.results) == 3 and run.summary()["finished"] == 2


def test_the_file_model_that_stands_for_a_record_names_its_fields():
    """A remote result (its request an index in the file) is read through a model of the file's own;
    it keeps the record's fields, in order. (The run's model and settings are read by their own
    declarations, ui/run_state.py.)"""
    assert list(ResultFile.model_fields) == [f.name for f in dataclasses.fields(RemoteResult)]
