"""Shared fixtures, the test session's own state, and the tiers.

Tiers: a test is marked by the fixtures it uses (MARKS), so a new test is marked by what it touches:
`model` (the real bundled model), `app` (AppTest of the real pages), `server` (a server in a
subprocess), `browser` (Chromium), `slow` (the CLI in a fresh Python, which imports torch: seconds a
run; also set by hand on a test that takes long without any of them). `make test-fast` runs what none of these mark; `make test` runs everything.

State: the session uses its own cache folder (PDLAB_CACHE_DIR), so the kernel plan and the hardware
ceilings it measures are its own and no setting of the shell (PDLAB_*) reaches a test. Converted
weights and the bundled tokenizer are kept between sessions in .test-cache/ (they are made the same
way every time) and linked into the session's folder.

Threads: on a machine that other processes already keep busy when the session starts, every test
process (servers included) runs one OpenMP thread (see `_threads_for_the_machine`)."""

from __future__ import annotations

import contextlib
import io
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import torch

from engine.kernels import native
from engine.observe import other_work
from lab.busy import LoadMeter
from scripts.app_browser import ARTIFACTS

ROOT = Path(__file__).resolve().parent.parent
STORE = ROOT / ".test-cache"  # converted weights and the bundled tokenizer, kept between sessions
TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "chat_template.jinja")
MARKS = {"bundled_dir": "model", "new_app": "app", "servers": "server", "chromium": "browser", "cli": "slow"}


# --- the session's own state and the tiers -----------------------------------------------------------------


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--device",
        default="cpu",
        help="where the `device` fixture's tests (the reference tests) run: cpu or cuda",
    )
    parser.addoption(
        "--native-flags",
        default="",
        help="more C compiler flags for our kernels (engine/kernels/native.py), e.g. -mno-avx512f: the AVX2 build",
    )


def pytest_configure(config: pytest.Config) -> None:
    for name in [n for n in os.environ if n.startswith("PDLAB_")]:
        del os.environ[name]
    config._pdlab_native_flags = config.getoption("--native-flags")
    if config._pdlab_native_flags:
        os.environ[native.FLAGS_ENV] = config._pdlab_native_flags
    config._pdlab_cache = tempfile.mkdtemp(prefix="pdlab-test-cache-")
    os.environ["PDLAB_CACHE_DIR"] = config._pdlab_cache  # servers started by tests inherit it
    ARTIFACTS.mkdir(exist_ok=True)
    _threads_for_the_machine(config)


def _threads_for_the_machine(config: pytest.Config, probe_s: float = 1.0) -> None:
    """One OpenMP thread per test process when other processes keep the machine busy as the session
    starts. PyTorch's threads spin-wait on each other, so beside a busy process two of them are about
    twice as slow as one (bench/threads.py), and a suite that slows threefold can overrun CI's limit.
    On a quiet machine the default stays: it is what users run, and one thread is slower there. A
    thread count the shell sets is kept."""
    with LoadMeter() as meter:
        time.sleep(probe_s)
    config._pdlab_start_load = meter.load
    if meter.load.busy and "OMP_NUM_THREADS" not in os.environ:
        os.environ["OMP_NUM_THREADS"] = "1"  # the servers and CLI runs the tests start inherit it
        torch.set_num_threads(1)


def pytest_report_header(config: pytest.Config) -> str:
    load = config._pdlab_start_load
    busy = f"other processes keep {load.other_cores:.1f} of {load.cores} cores busy" if load.busy else "quiet"
    header = f"machine at the start: {busy}; torch threads: {torch.get_num_threads()}"
    flags = getattr(config, "_pdlab_native_flags", "")
    if flags:
        header += f"; our kernels built with {flags}: {native.vector_lanes()} floats per vector"
    return header


def pytest_unconfigure(config: pytest.Config) -> None:
    shutil.rmtree(getattr(config, "_pdlab_cache", ""), ignore_errors=True)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark each test by the fixtures it uses, then run the browser tests last: Playwright's sync API
    keeps an event loop running in this thread while the session's Chromium lives, and asyncio.run()
    cannot start beside it. (The sort is stable: files keep their order within a tier.)"""
    for item in items:
        used = set(getattr(item, "fixturenames", ()))
        for fixture, mark in MARKS.items():
            if fixture in used:
                item.add_marker(mark)
    items.sort(key=lambda item: item.get_closest_marker("browser") is not None)


def _in_session(target: Path) -> Path:
    """`target` (a folder of STORE) as seen from this session's cache folder, through a link."""
    link = Path(os.environ["PDLAB_CACHE_DIR"]) / target.name
    if not link.exists():
        link.symlink_to(target, target_is_directory=True)
    return link


# --- models ----------------------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def bundled_dir() -> Path:
    """The bundled model, converted to safetensors (the session's cache folder links the stored copy)."""
    from engine.loader.model_loader import convert_bundled

    _in_session(convert_bundled(cache=STORE))  # converted once, atomically, then found there
    return convert_bundled()


@pytest.fixture(scope="session")
def device(request) -> str:
    """The device of `--device` (cpu unless asked): the reference tests run there, as does `bundled`."""
    from engine.loader.model_loader import resolve_device

    return str(resolve_device(request.config.getoption("--device")))


@pytest.fixture(scope="session")
def bundled(bundled_dir, device):
    from engine.loader.model_loader import load_model

    return load_model(str(bundled_dir), dtype="float32", device=device)


@pytest.fixture(scope="session")
def tokenizer_dir() -> Path:
    """The bundled model's tokenizer alone, read from its GGUF file (no weights: a second)."""

    from engine.loader.gguf_file import read_tokenizer
    from engine.loader.model_loader import bundled_gguf_path

    target = STORE / "bundled-tokenizer"
    if not (target / "tokenizer.json").is_file():
        STORE.mkdir(exist_ok=True)
        tmp = Path(tempfile.mkdtemp(dir=STORE, prefix=".tokenizer-"))
        try:
            gguf = bundled_gguf_path()
            read_tokenizer(gguf).save_pretrained(tmp)
            shutil.rmtree(target, ignore_errors=True)
            os.replace(tmp, target)  # never half-written
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    return target


@pytest.fixture(scope="session")
def tokenizer(tokenizer_dir):
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(tokenizer_dir)


def save_tiny_model(folder: Path, model_type: str, tokenizer_dir: Path, seed: int = 0, **overrides) -> Path:
    """A 2-layer random model of the given family, saved by transformers itself (safetensors)."""
    from transformers import AutoConfig, AutoModelForCausalLM

    torch.manual_seed(seed)
    kwargs = dict(
        vocab_size=49152,
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=512,
        rms_norm_eps=1e-5,
        tie_word_embeddings=False,
        initializer_range=0.1,
        bos_token_id=1,
        eos_token_id=2,
        pad_token_id=2,
    )
    if model_type == "qwen3":
        kwargs["head_dim"] = 16
    kwargs.update(overrides)
    config = AutoConfig.for_model(model_type, **kwargs)
    model = AutoModelForCausalLM.from_config(config, dtype=torch.float32)
    if model_type == "qwen2":  # HF initialises biases to zero; make them matter
        with torch.no_grad():
            for layer in model.model.layers:
                for proj in (layer.self_attn.q_proj, layer.self_attn.k_proj, layer.self_attn.v_proj):
                    proj.bias.normal_(0, 0.5)
    model.save_pretrained(folder)
    for name in TOKENIZER_FILES:
        if (tokenizer_dir / name).exists():
            shutil.copy(tokenizer_dir / name, folder / name)
    return folder


@pytest.fixture(scope="session")
def tiny_dirs(tmp_path_factory, tokenizer_dir) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("tiny")
    llama3_rope = {
        "rope_type": "llama3",
        "rope_theta": 500000.0,
        "factor": 8.0,
        "low_freq_factor": 1.0,
        "high_freq_factor": 4.0,
        "original_max_position_embeddings": 64,
    }
    return {
        "llama": save_tiny_model(root / "llama", "llama", tokenizer_dir),
        "qwen2": save_tiny_model(root / "qwen2", "qwen2", tokenizer_dir, seed=1),
        "qwen3": save_tiny_model(root / "qwen3", "qwen3", tokenizer_dir, seed=2),
        "llama-4k": save_tiny_model(root / "llama4k", "llama", tokenizer_dir, seed=4, max_position_embeddings=4096),
        "llama3-rope": save_tiny_model(
            root / "llama3rope", "llama", tokenizer_dir, seed=3, rope_parameters=llama3_rope
        ),
    }


@pytest.fixture(scope="session")
def tiny(tiny_dirs):
    from engine.loader.model_loader import load_model

    return load_model(str(tiny_dirs["llama"]))


# --- the command line in a subprocess -----------------------------------------------------------------------


# Restores SIGINT's default, then execs the same Python with the rest of the arguments (same PID).
SIGINT_RESTORED = (
    "import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); "
    "os.execv(sys.executable, [sys.executable, *sys.argv[1:]])"
)


class Cli:
    """`python -m engine ...` in a fresh Python, from the repository root; or, where only the message
    is tested, its main() in this process (a fresh Python costs two seconds of torch import)."""

    def __call__(self, *args: str, **kw) -> subprocess.CompletedProcess:
        """Run to the end; output captured as text unless text=False."""
        kw = {"capture_output": True, "text": True, "timeout": 300, **kw}
        return subprocess.run([sys.executable, "-m", "engine", *args], cwd=ROOT, **kw)

    def inline(self, *args: str) -> subprocess.CompletedProcess:
        """The same command line through engine.__main__.main in this process, its output captured."""
        from engine.entrypoints.cli import main

        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(list(args))
        return subprocess.CompletedProcess(["engine", *args], code, out.getvalue(), err.getvalue())

    def popen(self, *args: str, as_in_a_terminal: bool = False, **kw) -> subprocess.Popen:
        """Start it; stdout and stderr are pipes, as text. as_in_a_terminal: Ctrl-C (SIGINT) reaches it
        as a terminal delivers it, even when the tests run as a background job (`make test &`, nohup,
        some CI runners): those inherit SIGINT ignored, and an ignored signal stays ignored across exec."""
        kw = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE, "text": True, **kw}
        python = [sys.executable, "-c", SIGINT_RESTORED] if as_in_a_terminal else [sys.executable]
        return subprocess.Popen([*python, "-m", "engine", *args], cwd=ROOT, **kw)


@pytest.fixture(scope="session")
def cli() -> Cli:
    return Cli()


# --- the app under AppTest --------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def new_app() -> Callable[..., object]:
    """new_app(timeout_s) -> an AppTest of the real app, not yet run (the model: PDLAB_MODEL)."""
    from streamlit.testing.v1 import AppTest

    def make(timeout_s: float = 300) -> AppTest:
        return AppTest.from_file(str(ROOT / "app.py"), default_timeout=timeout_s)

    return make


@pytest.fixture
def app_env() -> None:
    """Settings a test module needs before its app starts: a module overrides this fixture."""


@pytest.fixture
def app(new_app, tiny_dirs, monkeypatch, request, app_env):
    """The app on a tiny model, drawn without an exception, on the module's page. A test module names
    them in MODEL (a key of tiny_dirs; default the tiny Llama) and PAGE (a page file; default the
    playground)."""
    monkeypatch.setenv("PDLAB_MODEL", str(tiny_dirs[getattr(request.module, "MODEL", "llama")]))
    at = new_app().run()
    page = getattr(request.module, "PAGE", None)
    if page:
        at.switch_page(page).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


@pytest.fixture(scope="session")
def saved_run(new_app, tiny_dirs):
    """A finished eager playground run on the tiny Llama: (its AppTest, its result, its trace file as
    the download button writes it)."""
    from app_pages.playground.trace_file import dump_run
    from tests.app_helpers import run_playground

    mp = pytest.MonkeyPatch()
    mp.setenv("PDLAB_MODEL", str(tiny_dirs["llama"]))
    at = run_playground(new_app().run(), "The quick brown fox", max_new=5, attention="eager")
    mp.undo()
    result = at.session_state["pg_result"]
    return at, result, dump_run(result)


# --- servers in subprocesses, and the browser ----------------------------------------------------------------


class Servers:
    """Starts servers in subprocesses on free loopback ports; each stops by its own handle."""

    @contextmanager
    def engine(self, model: str, log_name: str, *extra: str) -> Iterator[str]:
        """`python -m engine serve` on `model`: yields its base URL."""
        from engine.entrypoints.launch import engine_server

        with engine_server(model, ARTIFACTS / log_name, *extra) as url:
            yield url

    @contextmanager
    def held_engine(self, model: str, log_name: str, *extra: str) -> Iterator[tuple[str, subprocess.Popen]]:
        """`python -m engine serve` whose process the test holds: (base URL, process); a test may kill
        it by that handle, and it is stopped by it in any case."""
        from engine.entrypoints.launch import engine_process

        with engine_process(model, ARTIFACTS / log_name, *extra) as (url, proc):
            yield url, proc

    @contextmanager
    def router(self, prefill_url: str, decode_url: str, log_name: str, *extra: str) -> Iterator[str]:
        """`python -m engine router` over a prefill and a decode worker (`extra`: more of its options):
        yields its base URL."""
        from engine.entrypoints.launch import router_server

        with router_server(prefill_url, decode_url, ARTIFACTS / log_name, *extra) as url:
            yield url

    @contextmanager
    def app(self, env: dict[str, str], log_name: str) -> Iterator[int]:
        """`streamlit run app.py` with `env` added: yields its port once it is healthy."""
        from engine.entrypoints.launch import free_port
        from scripts.app_browser import start_app, stop_app, wait_healthy

        port = free_port()
        proc = start_app(port, env=env, log_path=ARTIFACTS / log_name)
        try:
            wait_healthy(port, proc)
            yield port
        finally:
            stop_app(proc)

    @contextmanager
    def command(self, argv: list[str], health_path: str, log_name: str, timeout_s: float = 240) -> Iterator[int]:
        """Any server: `argv` with {port} filled in; yields the port once GET health_path answers 200."""
        with self.held_command(argv, health_path, log_name, timeout_s) as (port, _):
            yield port

    @contextmanager
    def held_command(
        self, argv: list[str], health_path: str, log_name: str, timeout_s: float = 240
    ) -> Iterator[tuple[int, subprocess.Popen]]:
        """As command, yielding (port, process): a test may read its exit code, or signal it by its handle."""
        from engine.entrypoints.launch import child_env, free_port, stop, wait_for

        port, log_path = free_port(), ARTIFACTS / log_name
        with open(log_path, "w") as log:
            argv = [a.format(port=port) for a in argv]
            proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, env=child_env())
        try:
            wait_for(f"http://127.0.0.1:{port}{health_path}", proc, timeout_s, log_path)
            yield port, proc
        finally:
            stop(proc)


@pytest.fixture(scope="session")
def servers() -> Servers:
    return Servers()


@pytest.fixture(scope="session")
def bundled_server(servers, bundled_dir) -> Iterator[str]:
    """`python -m engine serve` on the bundled model, shared by the tests that can share it."""
    with servers.engine("bundled", "engine-serve-bundled.log") as url:
        yield url


@pytest.fixture(scope="session")
def tiny_server(servers, tiny_dirs) -> Iterator[tuple[str, str]]:
    """`python -m engine serve` on the tiny Llama: (base URL, served model name)."""
    with servers.engine(str(tiny_dirs["llama"]), "engine-serve-tiny.log") as url:
        yield url, tiny_dirs["llama"].name


@pytest.fixture(scope="session")
def app_server(servers, bundled_dir) -> Iterator[int]:
    """The app on the bundled model, as `make run` serves it: shared by every browser test that needs
    no other setting."""
    with servers.app({"PDLAB_MODEL": "bundled"}, "app-server.log") as port:
        yield port


@pytest.fixture(scope="session")
def tiny_app_server(servers, tiny_dirs) -> Iterator[int]:
    """The app on the tiny Llama: the pages whose work would take minutes on the bundled model."""
    with servers.app({"PDLAB_MODEL": str(tiny_dirs["llama"])}, "app-server-tiny.log") as port:
        yield port


@pytest.fixture(scope="session")
def chromium():
    """One headless Chromium for the session (Debian's; in CI a missing one fails the run)."""
    from scripts.app_browser import CHROMIUM, launch_chromium

    if not Path(CHROMIUM).exists():
        if os.environ.get("CI") == "true":
            pytest.fail(f"{CHROMIUM} is missing; CI must install Debian's chromium", pytrace=False)
        pytest.skip(f"{CHROMIUM} not installed (the browser tests run in CI)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = launch_chromium(p)
        yield browser
        browser.close()


@pytest.fixture
def page(chromium, app_server, request):
    """A fresh browser session on the shared app; JavaScript dialogs are recorded (and dismissed), and a
    screenshot of the end state lands in test-artifacts/."""
    import re

    from scripts.app_browser import open_app

    context = chromium.new_context(viewport={"width": 1400, "height": 1100})
    pg = context.new_page()
    pg.dialogs = []
    pg.on("dialog", lambda d: (pg.dialogs.append(d.message), d.dismiss()))
    open_app(pg, app_server, timeout_ms=180_000)
    yield pg
    name = re.sub(r"[^\w.-]+", "_", request.node.name)  # parametrised names hold "<", "/", ...
    pg.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)
    context.close()


@pytest.fixture
def busy_core():
    """One other process spinning on one core for as long as the test runs: the machine a user's laptop
    with a browser open is (the timed pages must give the quiet verdict or "not separable" beside it)."""
    spinner = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    time.sleep(0.3)
    try:
        yield spinner
    finally:
        spinner.kill()
        spinner.wait(timeout=10)


@pytest.fixture(autouse=True)
def plans_kept_whatever_the_suite_runs_beside(monkeypatch):
    """A kernel plan timed beside other work is not kept (engine/observe/other_work.py); the suite's own
    servers and browsers must not decide that, so tests see the quiet machine's behaviour (the machine
    says nothing) unless one plants a reading (tests/test_step_plan.py)."""
    monkeypatch.setattr(other_work, "machine_busy_s", lambda: None)
