"""Public mode: the switch that makes the server safe to share with strangers.

On with `PDLAB_PUBLIC=1`, or `enabled = true` under [public] in the settings file (`lab.toml` in the
repository root, or the file `PDLAB_SETTINGS` names), read once when the server starts. Then:

    models        a visitor picks from the owner's list only (default: the bundled model); no typed
                  path or hub id, none through a share link; local folders are shown by name, never path
    remote_urls   the remote-server page reaches only these base URLs; none listed: the page is off
    caps          prompt characters (checked before tokenising) and max_new_tokens per run; max_context,
                  the tokens any run may hold, lowers each loaded model's context, so every page's
                  lengths (sweeps, memory, roofline, complexity, serving) stop there; counts (repeats,
                  requests, batch sizes, compare columns, sweep points); claims: quick only
    work per step max_step_tokens bounds one step's token rows (a prompt; without the KV cache, the
                  whole context); max_uncached_work bounds a run without the cache (n·P + n(n−1)/2
                  rows): no one run holds the engine long. Prompts over the cap are refused, not
                  chunked, so the playground's prefill stays the one L×L pass it teaches.
    turns         runs take turns (max_active_runs at once, the rest queue in order and see their
                  place); runs_per_minute per client, whatever its tabs and sessions: the address of
                  its connection, or, on a connection from one of trusted_proxies, the address that
                  proxy names in client_header (ui/public_client.py, ui/queue_wait.py, ui/run_queue.py)
    remote page   its one prompt, load and capacity search take a turn, count against the limit and
                  keep to the caps (prompt characters, new tokens, requests, load, a 2-minute budget)

See lab.example.toml. Off, the app behaves as before.
"""

from __future__ import annotations

import functools
import os
import tomllib
from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

from engine.errors import LabError
from lab.schema import Bool, Checked, Int, Want, validate
from ui.run_queue import ClientLimits

PUBLIC_ENV = "PDLAB_PUBLIC"
SETTINGS_ENV = "PDLAB_SETTINGS"
DEFAULT_FILE = Path(__file__).resolve().parent.parent / "lab.toml"
TRUE = ("1", "true", "yes", "on")


def _not_blank(text: str) -> str:
    if not text.strip():
        raise ValueError(text)
    return text.strip()


Name = Checked(str, _not_blank, "a text that is not blank")
Names = Annotated[tuple[Name, ...], Field(strict=False), Want("a list of texts")]  # TOML's lists, kept as tuples


def Count(default: int, hi: int) -> Any:  # noqa: N802 - a field type with its default
    return Annotated[Int(lo=1, hi=hi), Field(default=default)]


class PublicSettings(BaseModel):
    """The [public] table of the settings file; every field has a safe default."""

    model_config = ConfigDict(strict=True, frozen=True, extra="forbid")

    enabled: Bool = False
    models: Names = ("bundled",)
    remote_urls: Names = ()
    max_prompt_chars: Count(4000, 1 << 20)
    max_new_tokens: Count(256, 1 << 16)
    max_context: Count(2048, 1 << 20)  # tokens any run may hold (prompt + output): every page's lengths stop here
    max_repeats: Count(3, 100)  # timing repeats (sweeps, calibration, precision, compare)
    max_requests: Count(16, 10_000)  # requests in one workload (serving lab, memory leak, remote load)
    max_batch: Count(8, 1024)  # sequences stepped together (roofline, serving, precision)
    max_columns: Count(2, 4)  # compare columns
    max_sweep_points: Count(12, 1000)  # lengths one sweep measures (prompt and output lists together)
    max_step_tokens: Count(1024, 1 << 20)  # the most token rows one step may compute (a prompt, or a no-cache context)
    max_uncached_work: Count(16384, 1 << 30)  # token rows a run without the KV cache may compute, all steps together
    max_active_runs: Count(1, 64)  # runs on the engine at once; the rest wait their turn in order
    runs_per_minute: Count(6, 10_000)  # per client (its address), however many tabs it opens
    # proxies in front of this server (their addresses): on a connection from one, the visitor is the
    # address it names in client_header (the rightmost one not itself a trusted proxy)
    trusted_proxies: Names = ()
    client_header: Name = "X-Forwarded-For"

    def allows_model(self, spec: object) -> bool:
        """May a visitor load `spec`? Anything on a private server; on a public one exactly a string
        on the owner's list: no path, hub id, label or respelling of one (case, spaces, "./")."""
        return not self.enabled or (isinstance(spec, str) and spec in self.models)


def parse_settings(doc: dict, env_public: str | None = None) -> PublicSettings:
    """The [public] table of a settings file (and the env switch); LabError naming a bad field."""
    table = doc.get("public", {})
    if not isinstance(table, dict):
        raise LabError("[public] in the settings file should be a table.")
    unknown = set(table) - set(PublicSettings.model_fields)
    if unknown:
        raise LabError(f"Unknown setting(s) under [public]: {', '.join(sorted(unknown))}.")
    settings = validate(PublicSettings, table, prefix="public.")
    if not settings.models:
        raise LabError("public.models lists no model: a public server needs at least one.")
    if env_public is not None and env_public.strip():
        settings = settings.model_copy(update={"enabled": env_public.strip().lower() in TRUE})
    return settings


def read_settings(path: Path | None = None, env: dict | None = None) -> PublicSettings:
    env = os.environ if env is None else env
    path = Path(env.get(SETTINGS_ENV) or path or DEFAULT_FILE)
    doc = {}
    if path.is_file():
        try:
            doc = tomllib.loads(path.read_text(encoding="utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
            raise LabError(f"The settings file {path.name} is not valid TOML: {e}") from None
    elif env.get(SETTINGS_ENV):
        raise LabError(f"{SETTINGS_ENV} names {path.name}, which is not a file.")  # a name: no server path shown
    return parse_settings(doc, env.get(PUBLIC_ENV))


@functools.lru_cache(maxsize=8)
def _loaded(public_env: str | None, settings_env: str | None) -> tuple[PublicSettings, str | None, ClientLimits]:
    """The settings, what is wrong with the file, and the clients' run starts, which live as long as
    the settings they count against."""
    env = {k: v for k, v in ((PUBLIC_ENV, public_env), (SETTINGS_ENV, settings_env)) if v is not None}
    try:
        settings, problem = read_settings(env=env), None
    except ValueError as e:
        settings, problem = PublicSettings(enabled=True), str(e)
    return settings, problem, ClientLimits(settings.runs_per_minute)


def public_settings() -> PublicSettings:
    """This server's settings, read once (per value of the two environment variables, which tests
    change). A broken settings file gives a public server with the safe defaults, never an open one
    (settings_problem() says why)."""
    return _loaded(os.environ.get(PUBLIC_ENV), os.environ.get(SETTINGS_ENV))[0]


def may_load(spec: object) -> bool:
    """The one answer to "may this visitor load this model?", for every page, the share link and the
    model registry."""
    return public_settings().allows_model(spec)


def settings_problem() -> str | None:
    return _loaded(os.environ.get(PUBLIC_ENV), os.environ.get(SETTINGS_ENV))[1]


def client_limits() -> ClientLimits:
    """Every client's run starts in the last minute, shared by all sessions of this server."""
    return _loaded(os.environ.get(PUBLIC_ENV), os.environ.get(SETTINGS_ENV))[2]


def shown_path(path: Path) -> str:
    """A server file as a page may show it: in full to the owner, by its name only to the public."""
    return path.name if public_settings().enabled else str(path)


def model_label(spec: str) -> str:
    """What a visitor sees for an allowed model: a local folder by its name only."""
    path = Path(spec)
    return path.name if spec != "bundled" and (path.is_absolute() or spec.startswith(".")) else spec


class CappedError(LabError):
    """A run over a public server's cap: `key` names the UI text that says which cap and why."""

    def __init__(self, key: str, **values):
        super().__init__(f"{key}: {values}")
        self.key, self.values = key, values


def uncached_work(prompt_tokens: int, new_tokens: int) -> int:
    """Token rows a run without the KV cache computes: the prefill's P, then each decode step recomputes
    the whole context (P+1, …, P+n−1): n·P + n(n−1)/2 in all."""
    return new_tokens * prompt_tokens + new_tokens * (new_tokens - 1) // 2


def check_run_work(prompt_tokens: int, new_tokens: int, kv_cache: bool, public: PublicSettings | None = None) -> None:
    """On a public server, refuse a run whose one step or whole no-cache pass would hold the engine long
    (CappedError with the arithmetic). Off: nothing."""
    public = public or public_settings()
    if not public.enabled:
        return
    step = prompt_tokens if kv_cache else prompt_tokens + new_tokens - 1  # the largest step's token rows
    if step > public.max_step_tokens:
        raise CappedError("public_step_capped", n=step, cap=public.max_step_tokens, P=prompt_tokens, N=new_tokens)
    work = uncached_work(prompt_tokens, new_tokens)
    if not kv_cache and work > public.max_uncached_work:
        raise CappedError(
            "public_work_capped", n=work, cap=public.max_uncached_work, P=prompt_tokens, N=new_tokens, N1=new_tokens - 1
        )
