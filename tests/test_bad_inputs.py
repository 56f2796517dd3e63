"""A corpus of bad inputs, each through the layer where a user meets it: the engine API (a
LabError that names the problem), the CLI (one line `error: …`, exit code 2, no traceback) and the
app (an error element with the same words, no exception element). Validation lives in the engine;
the CLI and the app only translate."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import time
from pathlib import Path

import pytest

from engine import SamplingParams, load_model

ROOT = Path(__file__).resolve().parent.parent

# (sampling settings, CLI flags, words the message must contain)
SAMPLING_CASES = [
    ({"temperature": 1e-40}, ["--temperature", "1e-40"], "too small to sample with"),
    ({"seed": 2**64, "temperature": 0.7}, ["--seed", str(2**64), "--temperature", "0.7"], "from 0 to 2**64"),
    ({"top_p": 1e-300, "temperature": 1.0}, ["--top-p", "1e-300", "--temperature", "1"], "is 0 in float32"),
]


@pytest.mark.parametrize("settings, flags, words", SAMPLING_CASES)
def test_the_engine_names_the_problem(settings, flags, words):
    with pytest.raises(ValueError, match=re.escape(words)):
        SamplingParams(max_new_tokens=2, **settings)


@pytest.mark.parametrize("settings, flags, words", SAMPLING_CASES)
def test_the_cli_says_it_in_one_line(cli, tiny_dirs, settings, flags, words):
    # a fresh Python for the first case (nothing else reaches the terminal), main() for the rest
    run = cli if settings is SAMPLING_CASES[0][0] else cli.inline
    done = run("generate", "--model", str(tiny_dirs["llama"]), "--prompt", "hi", "--max-new-tokens", "2", *flags)
    assert done.returncode == 2, (done.returncode, done.stderr[-2000:])
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and words in lines[0], done.stderr
    assert "Traceback" not in done.stderr + done.stdout


@pytest.mark.parametrize("settings, flags, words", SAMPLING_CASES[:1])  # the seed box stops below 2**53 itself
def test_the_app_shows_the_engines_words(new_app, tiny_dirs, monkeypatch, settings, flags, words):
    monkeypatch.setenv("PDLAB_MODEL", str(tiny_dirs["llama"]))
    at = new_app(180).run()
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


def rope(factor) -> dict:
    return {"rope_parameters": {"rope_type": "linear", "rope_theta": 10000.0, "factor": factor}}


def with_long_number(src: Path, dst: Path) -> Path:
    """config.json with a 5,000-digit number in it: valid JSON, past what Python reads as an int."""
    broken_copy(src, dst, lambda c: {**c, "vocab_size": "DIGITS"})
    config = dst / "config.json"
    config.write_text(config.read_text().replace('"DIGITS"', "4" * 5000))
    return dst


@pytest.fixture(scope="module")
def broken_models(tiny_dirs, tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("broken")
    src = tiny_dirs["llama"]
    return {
        "list": broken_copy(src, root / "list", lambda c: []),
        "null": broken_copy(src, root / "null", lambda c: {**c, "num_hidden_layers": None}),
        "text": broken_copy(src, root / "text", lambda c: {**c, "hidden_size": "64"}),
        "huge": broken_copy(src, root / "huge", lambda c: {**c, "max_position_embeddings": 10**9}),
        "eos": broken_copy(src, root / "eos", lambda c: {**c, "eos_token_id": 2.5}),
        "rope": broken_copy(src, root / "rope", lambda c: {**c, "rope_parameters": "yes"}),
        "theta": broken_copy(src, root / "theta", lambda c: {**c, "rope_theta": "abc"}),
        "eps": broken_copy(src, root / "eps", lambda c: {**c, "rms_norm_eps": -1}),
        "factor": broken_copy(src, root / "factor", lambda c: {**c, **rope("x")}),
        "factor0": broken_copy(src, root / "factor0", lambda c: {**c, **rope(0)}),
        "digits": with_long_number(src, root / "digits"),
    }


# (which model spec, words the message must contain)
MODEL_CASES = [
    ("list", "should hold a JSON object"),
    ("null", "num_hidden_layers should be a positive whole number, got null"),
    ("text", 'hidden_size should be a positive whole number, got "64"'),
    ("~nosuchuser/x", "is not a user"),
    ("eos", "config.json of 'eos': eos_token_id should be a token id or a list of token ids, got 2.5"),
    ("rope", "config.json of 'rope': rope_parameters should be an object {...}, got \"yes\""),
    ("theta", "config.json of 'theta': rope_theta should be a positive number, got \"abc\""),
    ("eps", "config.json of 'eps': rms_norm_eps should be a positive number, got -1"),
    ("factor", "RoPE scaling 'linear' needs rope_parameters.factor to be a positive number, got \"x\""),
    ("factor0", "RoPE scaling 'linear' needs rope_parameters.factor to be a positive number, got 0"),
    ("digits", "config.json: it holds a number too long to read"),
]


def spec_of(name: str, broken_models) -> str:
    return str(broken_models[name]) if name in broken_models else name


@pytest.mark.parametrize("name, words", MODEL_CASES)
def test_the_loader_names_the_field(broken_models, name, words):
    with pytest.raises(ValueError, match=re.escape(words)):
        load_model(spec_of(name, broken_models))


@pytest.mark.parametrize("name, words", MODEL_CASES)
def test_the_cli_names_the_field_in_one_line(cli, broken_models, name, words):
    # a fresh Python for the first case (nothing else reaches the terminal), main() for the rest
    run = cli if name == MODEL_CASES[0][0] else cli.inline
    done = run("generate", "--model", spec_of(name, broken_models), "--prompt", "hi", "--max-new-tokens", "2")
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr[-2000:]
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and words in lines[0], done.stderr


def test_a_chat_template_that_raises_is_named_in_one_line(cli, tiny_dirs, tmp_path):
    model = shutil.copytree(tiny_dirs["llama"], tmp_path / "refusing")
    (model / "chat_template.jinja").write_text("{{ raise_exception('this model takes no chats') }}")
    done = cli.inline("generate", "--model", str(model), "--prompt", "hi", "--chat", "--json")
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and len(lines) == 1, done.stderr[-2000:]
    assert lines[0] == (
        "error: The model's chat template failed on this prompt (TemplateError: this model takes no chats)."
    )


def test_a_huge_context_is_refused_with_the_arithmetic(cli, broken_models):
    """The config loads (nothing is allocated for the context up front); the engine refuses to size
    a KV cache it cannot hold, naming the field and the most it could be."""
    done = cli("generate", "--model", str(broken_models["huge"]), "--prompt", "hi", "--max-new-tokens", "2", text=True)
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr[-2000:]
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("error: A context of 1,000,000,000 tokens needs") and "Lower max_position_embeddings" in last


@pytest.mark.parametrize(
    "name, words",
    [
        ("null", "num_hidden_layers should be a positive whole number"),
        ("huge", "Lower max_position_embeddings in the model's config.json"),
    ],
)
def test_the_app_names_the_field(new_app, broken_models, monkeypatch, name, words):
    monkeypatch.setenv("PDLAB_MODEL", str(broken_models[name]))
    at = new_app(180).run()
    assert not at.exception, [e.value for e in at.exception]
    shown = " ".join(re.sub(r"\\(.)", r"\1", e.value) for e in at.error)
    assert words in shown, shown


def test_a_local_model_is_named_by_its_folder_not_its_path(new_app, tiny_dirs, monkeypatch):
    folder = tiny_dirs["llama"]
    assert load_model(str(folder)).name == folder.name
    monkeypatch.setenv("PDLAB_MODEL", str(folder))
    at = new_app(180).run()
    assert not at.exception, [e.value for e in at.exception]
    shown = [e.value for kind in ("markdown", "caption", "info", "success") for e in at.get(kind)]
    assert any(f"**{folder.name}**" in text for text in shown), shown  # the playground's model line
    assert not [text for text in shown if str(folder) in text]


def test_a_prompt_that_is_not_utf8_is_named(cli, tiny_dirs):
    prompt = b"hi \xff there".decode("utf-8", "surrogateescape")  # argv passes the byte through as it is
    done = cli("generate", "--model", str(tiny_dirs["llama"]), "--prompt", prompt, "--max-new-tokens", "2", text=True)
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr[-2000:]
    assert done.stderr.strip().splitlines()[-1] == (
        "error: The prompt is not valid UTF-8 text: character 3 is the byte 0xff, which is not part of any "
        "character; check the terminal's or the file's encoding."
    )


def test_prepare_names_a_cache_folder_it_cannot_write(cli, tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")  # under a file nothing can be created, even by root (CI runs as root)
    done = cli("prepare", env={**os.environ, "PDLAB_CACHE_DIR": str(blocker / "cache")}, text=True)
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr[-2000:]
    assert done.stderr.strip().splitlines() == [
        f"error: Cannot write the converted model under {blocker / 'cache'}: "
        "Not a directory. Set PDLAB_CACHE_DIR to a folder you can write to."
    ]


@pytest.mark.parametrize("flags", [[], ["--json"]], ids=["plain", "json"])
def test_a_closed_stdout_ends_quietly(cli, tiny_dirs, flags):
    """`pdlab generate … | head -1`: the reader left; the CLI stops without a word, exit 0."""
    proc = cli.popen("generate", "--model", str(tiny_dirs["llama"]), "--prompt", "hi", "--max-new-tokens", "4", *flags)
    proc.stdout.close()  # before the first token is written
    err = proc.stderr.read()
    assert proc.wait(timeout=300) == 0, err
    assert "Traceback" not in err and "error" not in err.lower() and "Exception ignored" not in err, err


def _interrupted(cli, args: list[str], ready) -> None:
    """Start the CLI, send Ctrl-C once ready(proc) returns, and check it ends with 130 and no traceback."""
    proc = cli.popen(*args, as_in_a_terminal=True)
    try:
        ready(proc)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130 and "Traceback" not in err and "KeyboardInterrupt" not in err, err[-2000:]


def _running(proc) -> None:
    assert proc.stdout.readline().startswith("[prefill step 0]")  # mid-run: the model is loaded and running


def test_ctrl_c_ends_with_130_and_no_traceback(cli, bundled_dir):
    _interrupted(cli, ["generate", "--prompt", "Tell me a long story", "--max-new-tokens", "2000"], _running)


def _loading_torch(proc) -> None:
    """Wait until torch's library is mapped into the process: it is mid-import (or has already ended)."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if "libtorch" in Path(f"/proc/{proc.pid}/maps").read_text():
                return
        except OSError:  # it has already ended
            return
        time.sleep(0.005)


def test_ctrl_c_while_torch_loads_ends_with_130_and_no_traceback(cli):
    """The first second or more of the CLI loads torch, before main() could catch anything (it printed
    Python's traceback): the signal goes in once torch's library is mapped, mid-import."""
    _interrupted(cli, ["generate", "--prompt", "hi"], _loading_torch)


def test_an_unexpected_error_is_one_line_unless_debug(monkeypatch, capsys):
    from engine.entrypoints import cli as cli_main

    def broken(args):
        raise RuntimeError("the disk caught fire")

    monkeypatch.setattr(cli_main, "run", broken)
    assert cli_main.main(["generate", "--prompt", "hi"]) == 1
    assert capsys.readouterr().err.splitlines() == [
        "error: RuntimeError: the disk caught fire (run with --debug for the traceback)"
    ]
    with pytest.raises(RuntimeError, match="caught fire"):
        cli_main.main(["generate", "--prompt", "hi", "--debug"])


def test_a_closed_stdout_from_the_start_ends_quietly(cli, tiny_dirs):
    """`pdlab generate … >&-`: Python starts with no sys.stdout; the run ends with 0, saying nothing."""
    import subprocess

    done = cli(
        "generate",
        "--model",
        str(tiny_dirs["llama"]),
        "--prompt",
        "hi",
        "--max-new-tokens",
        "2",
        stdout=None,
        capture_output=False,
        stderr=subprocess.PIPE,
        pass_fds=(),
        preexec_fn=lambda: os.close(1),
    )
    assert done.returncode == 0 and "Traceback" not in done.stderr and "error" not in done.stderr.lower(), done.stderr


def test_serve_on_a_taken_port_says_so_before_loading_anything(cli, tiny_dirs):
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        done = cli("serve", "--model", str(tiny_dirs["llama"]), "--port", str(port), timeout=60)
    assert done.returncode == 2 and "serving" not in done.stderr, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: Cannot listen on 127.0.0.1:{port}: "), done.stderr
