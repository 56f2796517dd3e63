"""A draft model for speculative decoding: a smaller (or quantised) model with the target's tokenizer
proposes k tokens greedily, and the target verifies them in one step (engine/core/speculative.py).

It drafts through an engine of its own with prefix caching on, so each call prefills only what is
new since the last one (the sequence grows by a few tokens a step) and then decodes k tokens. Greedy
drafting puts q one-hot on each drafted token, so the sampled acceptance rule stays exact.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from engine.core.llm_engine import Engine, EngineConfig
from engine.core.speculative import SpeculativeConfig
from engine.errors import LabError
from engine.sampling_params import SamplingParams


class DraftModel:
    def __init__(self, bundle, target_tokenizer):
        if bundle.tokenizer.get_vocab() != target_tokenizer.get_vocab():
            raise LabError(
                f"The draft model {bundle.name} does not share the target model's tokenizer: its ids mean other tokens."
            )
        self.name = bundle.name
        self.max_len = bundle.model.config.max_position
        # The pool holds one max-length sequence; finished blocks keep their prefix hashes for the next draft.
        config = EngineConfig(prefix_caching=True, probe_memory=False, trace=False, kv_cache_bytes=0)
        self.engine = Engine(bundle.model, bundle.tokenizer, config, name=bundle.name)

    def draft(self, tokens: list[int], k: int) -> list[int]:
        k = min(k, self.max_len - len(tokens) - 1)
        if k <= 0:
            return []
        self.engine.add_request(list(tokens), SamplingParams(max_new_tokens=k, ignore_eos=True))
        out: list[int] = []
        for event in self.engine.stream():
            for request in event.finished:
                out = request.output_token_ids
        self.engine.trace.clear()  # nothing of a draft is kept: the engine lives as long as the server
        return out


@dataclass(frozen=True)
class ModelDraft(SpeculativeConfig):
    """A SpeculativeConfig of method "draft_model" whose drafts come from a loaded DraftModel."""

    drafter: DraftModel | None = field(default=None, compare=False, repr=False)

    def draft(self, tokens: list[int], k: int) -> list[int]:
        return self.drafter.draft(tokens, k)


def with_draft_model(spec: SpeculativeConfig, target_tokenizer, load) -> SpeculativeConfig:
    """The config ready to draft: for method "draft_model", its model loaded with `load(spec, weights)`
    (engine.load_model's arguments) and checked against the target's tokenizer; others as they are."""
    if spec.method != "draft_model":
        return spec
    bundle = load(spec.model, spec.quantization or "native")
    return ModelDraft(
        **{f: getattr(spec, f) for f in spec.__dataclass_fields__}, drafter=DraftModel(bundle, target_tokenizer)
    )
