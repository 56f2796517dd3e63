"""A small, real, KV-cached LLM inference engine that records everything it does.

The public names load on first use (PEP 562): `python -m engine` runs this file before its own
error handling, and torch takes a second or more to load, so a Ctrl-C then would print a traceback."""

from importlib import import_module

_HOMES = {
    "PRESETS": "engine.config",
    "ModelConfig": "engine.config",
    "Engine": "engine.core.llm_engine",
    "EngineConfig": "engine.core.llm_engine",
    "EngineEvent": "engine.core.llm_engine",
    "ModelBundle": "engine.loader.model_loader",
    "load_model": "engine.loader.model_loader",
    "SamplingParams": "engine.sampling_params",
    "Trace": "engine.observe.trace",
}
__all__ = list(_HOMES)


def __getattr__(name: str):
    if name not in _HOMES:
        raise AttributeError(f"module 'engine' has no attribute {name!r}")
    return getattr(import_module(_HOMES[name]), name)
