"""A small, real, KV-cached LLM inference engine that records everything it does."""
from engine.config import PRESETS, ModelConfig
from engine.llm_engine import Engine, EngineConfig, EngineEvent
from engine.loader import ModelBundle, load_model
from engine.sampler import SamplingParams
from engine.trace import Trace

__all__ = ["PRESETS", "ModelConfig", "Engine", "EngineConfig", "EngineEvent", "ModelBundle", "load_model",
           "SamplingParams", "Trace"]
