"""Issue 17's corpus of bad inputs, each through the layer where a user meets it: the engine API (a
ValueError that names the problem), the CLI (one line `error: …`, exit code 2, no traceback) and the
app (an error element with the same words, no exception element). Validation lives in the engine;
the CLI and the app only translate. Cases still to add are listed in issue 17's notes."""
from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from engine import SamplingParams, load_model

ROOT = Path(__file__).resolve().parent.parent
APP = str(ROOT / "app.py")

# (sampling settings, CLI flags, words the message must contain)
SAMPLING_CASES = [
    ({"temperature": 1e-40}, ["--temperature", "1e-40"], "too small to sample with"),
    ({"seed": 2**64, "temperature": 0.7}, ["--seed", str(2**64), "--temperature", "0.7"], "from 0 to 2**64"),
]


@pytest.mark.parametrize("settings, flags, words", SAMPLING_CASES)
def test_the_engine_names_the_problem(settings, flags, words):
    with pytest.raises(ValueError, match=re.escape(words)):
        SamplingParams(max_new_tokens=2, **settings)


@pytest.mark.parametrize("settings, flags, words", SAMPLING_CASES)
def test_the_cli_says_it_in_one_line(tiny_dirs, settings, flags, words):
    done = subprocess.run([sys.executable, "-m", "engine", "generate", "--model", str(tiny_dirs["llama"]),
                           "--prompt", "hi", "--max-new-tokens", "2", *flags],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 2, (done.returncode, done.stderr[-2000:])
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and words in lines[0], done.stderr
    assert "Traceback" not in done.stderr + done.stdout


@pytest.mark.parametrize("settings, flags, words", SAMPLING_CASES[:1])  # the seed box stops below 2**53 itself
def test_the_app_shows_the_engines_words(tiny_dirs, monkeypatch, settings, flags, words):
    monkeypatch.setenv("PDLAB_MODEL", str(tiny_dirs["llama"]))
    at = AppTest.from_file(APP, default_timeout=180).run()
    at.session_state["pg_prompt"] = "hi"
    at.session_state["pg_max_new"] = 2
    for name, value in settings.items():
        at.session_state[f"pg_{name}"] = value
    at = at.button(key="pg_run").click().run()
    assert not at.exception, [e.value for e in at.exception]
    shown = " ".join(re.sub(r"\\(.)", r"\1", e.value) for e in at.error)
    assert words in shown and "Something went wrong" not in shown, shown


def broken_copy(src: Path, dst: Path, edit) -> Path:
    """The tiny model with its config.json edited (edit(dict) -> the new JSON value)."""
    shutil.copytree(src, dst)
    config = dst / "config.json"
    config.write_text(json.dumps(edit(json.loads(config.read_text()))))
    return dst


@pytest.fixture(scope="module")
def broken_models(tiny_dirs, tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("broken")
    src = tiny_dirs["llama"]
    return {"list": broken_copy(src, root / "list", lambda c: []),
            "null": broken_copy(src, root / "null", lambda c: {**c, "num_hidden_layers": None}),
            "text": broken_copy(src, root / "text", lambda c: {**c, "hidden_size": "64"})}


# (which model spec, words the message must contain)
MODEL_CASES = [("list", "should hold a JSON object"),
               ("null", "num_hidden_layers should be a positive whole number, got null"),
               ("text", 'hidden_size should be a positive whole number, got "64"'),
               ("~nosuchuser/x", "is not a user")]


def spec_of(name: str, broken_models) -> str:
    return str(broken_models[name]) if name in broken_models else name


@pytest.mark.parametrize("name, words", MODEL_CASES)
def test_the_loader_names_the_field(broken_models, name, words):
    with pytest.raises(ValueError, match=re.escape(words)):
        load_model(spec_of(name, broken_models))


@pytest.mark.parametrize("name, words", MODEL_CASES)
def test_the_cli_names_the_field_in_one_line(broken_models, name, words):
    done = subprocess.run([sys.executable, "-m", "engine", "generate", "--model", spec_of(name, broken_models),
                           "--prompt", "hi", "--max-new-tokens", "2"], cwd=ROOT, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr[-2000:]
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and words in lines[0], done.stderr


def test_the_app_names_the_field(broken_models, monkeypatch):
    monkeypatch.setenv("PDLAB_MODEL", str(broken_models["null"]))
    at = AppTest.from_file(APP, default_timeout=180).run()
    assert not at.exception, [e.value for e in at.exception]
    shown = " ".join(re.sub(r"\\(.)", r"\1", e.value) for e in at.error)
    assert "num_hidden_layers should be a positive whole number" in shown, shown
