"""`python -m engine generate` in a real subprocess."""

from __future__ import annotations

import json
import os


def test_generate_json(cli, tiny_dirs):
    out = cli(
        "generate", "--model", str(tiny_dirs["llama"]), "--prompt", "Hello world", "--max-new-tokens", "4", "--json"
    )
    assert out.returncode == 0, out.stderr
    d = json.loads(out.stdout)
    assert set(d) == {"model", "dtype", "weights", "prompt_tokens", "output_tokens", "text", "metrics", "steps"}
    assert len(d["output_tokens"]) == len(d["steps"]) <= 4
    assert d["steps"][0]["phase"] == "prefill" and d["steps"][0]["num_tokens"] == len(d["prompt_tokens"])
    L = len(d["prompt_tokens"])
    assert d["steps"][0]["score_shape"] == [1, 4, L, L]
    assert set(d["metrics"]) == {"ttft_ms", "tpot_ms", "itl_ms", "e2e_ms"}
    assert len(d["metrics"]["itl_ms"]) == len(d["output_tokens"]) - 1


def test_generate_streams_phases(cli, tiny_dirs):
    out = cli(
        "generate",
        "--model",
        str(tiny_dirs["llama"]),
        "--prompt",
        "Hello",
        "--max-new-tokens",
        "3",
        "--no-kv-cache",
        "--attention",
        "eager",
    )
    assert out.returncode == 0, out.stderr
    assert "[prefill step 0]" in out.stdout and "[decode step 1]" in out.stdout and "TTFT" in out.stdout


def test_bad_input_is_a_message_not_a_traceback(cli, tiny_dirs):
    out = cli("generate", "--model", str(tiny_dirs["llama"]), "--prompt", "", "--max-new-tokens", "3")
    assert out.returncode == 2 and "error: The prompt is empty" in out.stderr and "Traceback" not in out.stderr


def test_memory_is_probed_only_when_asked_and_on_a_second_pass(cli, tiny_dirs):
    base = (
        "generate",
        "--model",
        str(tiny_dirs["llama"]),
        "--prompt",
        "Hello world",
        "--max-new-tokens",
        "3",
        "--json",
    )
    plain, probed = json.loads(cli(*base).stdout), json.loads(cli(*base, "--probe-memory").stdout)
    assert all(s["peak_bytes"] is None for s in plain["steps"])
    assert all(s["peak_bytes"] > 0 for s in probed["steps"])
    assert probed["output_tokens"] == plain["output_tokens"]


def test_a_closed_pipe_ends_quietly(cli, tiny_dirs):
    """`… | head -1`: the reader goes away; no BrokenPipeError traceback, exit 0."""
    proc = cli.popen("generate", "--model", str(tiny_dirs["llama"]), "--prompt", "Hello", "--max-new-tokens", "40")
    proc.stdout.close()  # before the engine has written anything (loading takes a moment)
    err = proc.stderr.read()
    assert proc.wait(timeout=300) == 0 and "Traceback" not in err and "BrokenPipe" not in err


def test_an_unexpected_error_is_one_line_unless_debug(monkeypatch, capsys):
    import engine.entrypoints.cli as cli_main

    def boom(args):
        raise RuntimeError("something inside broke")

    monkeypatch.setattr(cli_main, "generate", boom)
    assert cli_main.main(["generate", "--prompt", "x"]) == 1
    err = capsys.readouterr().err
    assert err.strip() == "error: RuntimeError: something inside broke (run with --debug for the traceback)"
    try:
        cli_main.main(["generate", "--prompt", "x", "--debug"])
    except RuntimeError as e:
        assert "inside broke" in str(e)
    else:
        raise AssertionError("--debug should let the traceback through")


def test_ctrl_c_exits_130_without_a_traceback(monkeypatch, capsys):
    import engine.entrypoints.cli as cli_main

    def interrupted(args):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli_main, "generate", interrupted)
    assert cli_main.main(["generate", "--prompt", "x"]) == 130
    assert "Traceback" not in capsys.readouterr().err


def test_quantised_weights_and_kv_cache_from_the_command_line(cli, tiny_dirs):
    base = (
        "generate",
        "--model",
        str(tiny_dirs["llama"]),
        "--prompt",
        "Hello world",
        "--max-new-tokens",
        "4",
        "--json",
    )
    plain = json.loads(cli(*base).stdout)
    out = cli(*base, "--weights", "int8", "--kv-dtype", "int8")
    assert out.returncode == 0, out.stderr
    quant = json.loads(out.stdout)
    assert len(quant["output_tokens"]) == 4
    assert plain["dtype"] == "float32" and quant["dtype"] in ("bfloat16", "float32")  # int8: measured fastest
    said = cli(*base[:-1], "--weights", "int8")
    assert f"int8 weights with {quant['dtype']} activations, measured fastest here" in said.stderr, said.stderr
    assert quant["steps"][0]["kv_bytes"] < plain["steps"][0]["kv_bytes"] / 3  # int8 K and V plus their scales
    bad = cli(*base, "--weights", "w8a8", "--dtype", "bf16")
    assert bad.returncode == 2 and "float32 only" in bad.stderr and "Traceback" not in bad.stderr
    bad = cli(*base, "--weights", "gguf")  # a safetensors model has no GGUF blocks to keep
    assert bad.returncode == 2 and "bundled GGUF" in bad.stderr and "Traceback" not in bad.stderr


def test_the_gguf_blocks_from_the_command_line(cli, bundled_dir):
    base = ("generate", "--model", str(bundled_dir), "--prompt", "The capital of France is", "--json")
    gemv = {**os.environ, "PDLAB_KERNELS": "gemv"}  # float32 on the C kernels: the numbers gguf's equal
    plain, gguf = (json.loads(cli(*base, "--weights", w, env=gemv).stdout) for w in ("native", "gguf"))
    assert gguf["output_tokens"] == plain["output_tokens"] and len(gguf["output_tokens"]) > 8
    assert (plain["weights"], gguf["weights"]) == ("native", "gguf")


def test_serve_chunks_long_prompts_by_default():
    """vLLM's rule: one long prompt must not stall every stream for its whole prefill."""
    from engine.entrypoints.cli import SERVE_STEP_TOKENS, _parser

    args = _parser().parse_args(["serve"])
    assert args.chunked_prefill and args.max_num_batched_tokens == SERVE_STEP_TOKENS == 256
    assert not _parser().parse_args(["serve", "--no-chunked-prefill"]).chunked_prefill
    assert args.max_body_bytes == 4 << 20 and args.api_key is None


# Each command's options, as its --help lists them.
OPTIONS = {
    "prepare": "--debug",
    "generate": "--prompt --model --max-new-tokens --no-kv-cache --attention --dtype --device --weights --kv-dtype "
    "--seed --temperature --top-k --top-p --chat --json --probe-memory --debug",
    "serve": "--model --host --port --dtype --device --weights --kv-dtype --max-num-seqs --max-num-batched-tokens "
    "--chunked-prefill --no-chunked-prefill --max-body-bytes --api-key --prefix-caching --cpus --role "
    "--disaggregate --speculative-config --served-model-name --debug",
    "router": "--prefill-url --decode-url --host --port --debug",
}


def test_each_commands_help_lists_its_options(capsys):
    import pytest

    from engine.entrypoints.cli import main

    with pytest.raises(SystemExit):
        main(["--help"])
    assert "{prepare,generate,serve,router}" in capsys.readouterr().out
    for command, options in OPTIONS.items():
        with pytest.raises(SystemExit) as done:
            main([command, "--help"])
        listed = {word.strip("[],") for word in capsys.readouterr().out.split() if word.startswith(("--", "[--"))}
        assert done.value.code == 0 and set(options.split()) <= listed, (command, set(options.split()) - listed)


def test_generate_and_serve_share_the_models_options_declared_once():
    from engine.entrypoints.cli import _parser

    commands = next(a for a in _parser()._actions if a.dest == "command").choices
    generate, serve = ({a.option_strings[0]: a for a in commands[c]._actions} for c in ("generate", "serve"))
    for option in ("--model", "--dtype", "--device", "--weights", "--kv-dtype"):
        assert generate[option] is serve[option], option  # one argparse action, from the parent parser
