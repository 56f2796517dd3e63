"""Public mode: the switch that makes the server safe to share with strangers.

On with `PDLAB_PUBLIC=1`, or `enabled = true` under [public] in the settings file (`lab.toml` in the
repository root, or the file `PDLAB_SETTINGS` names), read once when the server starts. Then:

    models        a visitor picks from the owner's list only (default: the bundled model); no typed
                  path or hub id, none through a share link; local folders are shown by name, never path
    remote_urls   the remote-server page reaches only these base URLs; none listed: the page is off
    caps          prompt characters (checked before tokenising) and max_new_tokens per run; max_context,
                  the tokens any run may hold, lowers each loaded model's context, so every page's
                  lengths (sweeps, memory, roofline, complexity, serving) stop there; claims: quick only

See lab.example.toml. Off, the app behaves as before.
"""
from __future__ import annotations

import functools
import os
import tomllib
from dataclasses import dataclass
from pathlib import Path

PUBLIC_ENV = "PDLAB_PUBLIC"
SETTINGS_ENV = "PDLAB_SETTINGS"
DEFAULT_FILE = Path(__file__).resolve().parent.parent / "lab.toml"
TRUE = ("1", "true", "yes", "on")


@dataclass(frozen=True)
class PublicSettings:
    enabled: bool = False
    models: tuple[str, ...] = ("bundled",)
    remote_urls: tuple[str, ...] = ()
    max_prompt_chars: int = 4000
    max_new_tokens: int = 256
    max_context: int = 2048  # tokens any run may hold (prompt + output): every page's lengths stop here

    def allows_model(self, spec: str) -> bool:
        return not self.enabled or spec in self.models


def parse_settings(doc: dict, env_public: str | None = None) -> PublicSettings:
    """The [public] table of a settings file (and the env switch); ValueError naming a bad field."""
    table = doc.get("public", {})
    if not isinstance(table, dict):
        raise ValueError("[public] in the settings file should be a table.")
    unknown = set(table) - {"enabled", "models", "remote_urls", "max_prompt_chars", "max_new_tokens", "max_context"}
    if unknown:
        raise ValueError(f"Unknown setting(s) under [public]: {', '.join(sorted(unknown))}.")

    def texts(name: str, default: tuple[str, ...]) -> tuple[str, ...]:
        value = table.get(name, list(default))
        if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
            raise ValueError(f"public.{name} should be a list of texts.")
        return tuple(v.strip() for v in value)

    def count(name: str, default: int, hi: int) -> int:
        value = table.get(name, default)
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= hi:
            raise ValueError(f"public.{name} should be a whole number from 1 to {hi:,}, got {value!r}.")
        return value

    enabled = table.get("enabled", False)
    if not isinstance(enabled, bool):
        raise ValueError(f"public.enabled should be true or false, got {enabled!r}.")
    if env_public is not None and env_public.strip():
        enabled = env_public.strip().lower() in TRUE
    models = texts("models", ("bundled",))
    if not models:
        raise ValueError("public.models lists no model: a public server needs at least one.")
    return PublicSettings(enabled, models, texts("remote_urls", ()), count("max_prompt_chars", 4000, 1 << 20),
                          count("max_new_tokens", 256, 1 << 16), count("max_context", 2048, 1 << 20))


def read_settings(path: Path | None = None, env: dict | None = None) -> PublicSettings:
    env = os.environ if env is None else env
    path = Path(env.get(SETTINGS_ENV) or path or DEFAULT_FILE)
    doc = {}
    if path.is_file():
        try:
            doc = tomllib.loads(path.read_text(encoding="utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
            raise ValueError(f"The settings file {path.name} is not valid TOML: {e}") from None
    elif env.get(SETTINGS_ENV):
        raise ValueError(f"{SETTINGS_ENV} names {path.name}, which is not a file.")  # a name: no server path shown
    return parse_settings(doc, env.get(PUBLIC_ENV))


@functools.lru_cache(maxsize=8)
def _loaded(public_env: str | None, settings_env: str | None) -> tuple[PublicSettings, str | None]:
    env = {k: v for k, v in ((PUBLIC_ENV, public_env), (SETTINGS_ENV, settings_env)) if v is not None}
    try:
        return read_settings(env=env), None
    except ValueError as e:
        return PublicSettings(enabled=True), str(e)


def public_settings() -> PublicSettings:
    """This server's settings, read once (per value of the two environment variables, which tests
    change). A broken settings file gives a public server with the safe defaults, never an open one
    (settings_problem() says why)."""
    return _loaded(os.environ.get(PUBLIC_ENV), os.environ.get(SETTINGS_ENV))[0]


def settings_problem() -> str | None:
    return _loaded(os.environ.get(PUBLIC_ENV), os.environ.get(SETTINGS_ENV))[1]


def model_label(spec: str) -> str:
    """What a visitor sees for an allowed model: a local folder by its name only."""
    path = Path(spec)
    return path.name if spec != "bundled" and (path.is_absolute() or spec.startswith(".")) else spec
