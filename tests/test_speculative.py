"""Speculative decoding (engine/core/speculative.py): the prompt-lookup drafter, the greedy and the sampled
acceptance rules, and the engine's verify steps, whose greedy output is plain greedy decoding's token
for token with the KV cache rolled back exactly, whatever the drafts."""

from __future__ import annotations

import random
import re
from dataclasses import dataclass

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import Engine, EngineConfig, SamplingParams
from engine.core.speculative import SpeculativeConfig, accept_greedy, accept_sampled, prompt_lookup
from engine.errors import LabError
from engine.layers.kv_cache import KV_DTYPES

PROMPTS = ["The quick brown fox jumps over the lazy dog", "one two three one two three one two", "Hello"]
# The chi-square statistic's 0.1 % critical value for 7 degrees of freedom (8 tokens).
CHI2_7_DF_0_1_PERCENT = 24.32


def test_prompt_lookup_continues_the_latest_match_of_the_longest_suffix():
    assert prompt_lookup([1, 2, 3, 9, 1, 2, 3, 7, 5, 1, 2, 3], 2) == [7, 5]  # the latest "1 2 3" came before 7 5
    assert prompt_lookup([4, 5, 6, 5, 8, 6], 3, ngram_max=2) == [5, 8, 6]  # no "5 6" … "8 6": then "6" alone
    assert prompt_lookup([1, 2, 3, 4], 3) == []  # nothing repeats
    assert prompt_lookup([7, 7], 5) == [7]  # as much as follows
    assert prompt_lookup([1, 2, 1, 2], 4, ngram_min=3) == []


def test_greedy_acceptance_keeps_the_agreeing_prefix_and_one_of_its_own():
    rows = torch.full((4, 10), -1.0)
    for i, best in enumerate([3, 5, 2, 8]):
        rows[i, best] = 1.0
    assert accept_greedy(rows, [3, 5, 2]) == [3, 5, 2, 8]  # all three, then the bonus token
    assert accept_greedy(rows, [3, 4, 2]) == [3, 5]  # the second is corrected, the rest dropped
    assert accept_greedy(rows[:1], []) == [3]


def _first_token_counts(rule, probs: torch.Tensor, draft: int, draws: int, seed: int = 0) -> torch.Tensor:
    gen = torch.Generator().manual_seed(seed)
    counts = torch.zeros(probs.shape[-1])
    for _ in range(draws):
        counts[rule(probs, [draft], gen)[0]] += 1
    return counts


def _chi_square(counts: torch.Tensor, p: torch.Tensor) -> float:
    expected = p * counts.sum()
    return float(((counts - expected) ** 2 / expected).sum())


def test_sampled_acceptance_draws_from_the_target_distribution():
    """The first emitted token of a verify step is distributed as the target's own samples; a rule
    that resamples from p (not from p without the draft) after a rejection fails the same test."""
    p = torch.tensor([0.30, 0.20, 0.15, 0.10, 0.10, 0.07, 0.05, 0.03])
    probs = torch.stack([p, p])  # row 0 judges the draft, row 1 gives the bonus token

    def wrong(probs, draft, gen):
        if float(torch.rand((), generator=gen)) < float(probs[0, draft[0]]):
            return draft
        return [int(torch.multinomial(probs[0], 1, generator=gen))]

    for draft in (0, 5):
        assert _chi_square(_first_token_counts(accept_sampled, probs, draft, 5_000), p) < CHI2_7_DF_0_1_PERCENT
        assert _chi_square(_first_token_counts(wrong, probs, draft, 5_000), p) > CHI2_7_DF_0_1_PERCENT


@dataclass(frozen=True)
class Oracle(SpeculativeConfig):
    """Drafts the reference continuation with some tokens changed: any pattern of accepts and rejects."""

    reference: tuple[tuple[int, ...], ...] = ()
    wrong_share: float = 0.3
    seed: int = 0

    def draft(self, tokens: list[int], k: int) -> list[int]:
        rng = random.Random(hash((self.seed, len(tokens))))
        for ref in self.reference:  # the reference whose prompt and outputs so far these tokens are
            if tuple(tokens) == ref[: len(tokens)]:
                follow = list(ref[len(tokens) : len(tokens) + rng.randint(1, k)])
                return [t if rng.random() > self.wrong_share else (t + 1) % 1000 for t in follow]
        return []


def _run(bundle, prompts, spec, steps=16, check_blocks=False, **cfg):
    engine = Engine(bundle.model, bundle.tokenizer, EngineConfig(probe_memory=False, speculative=spec, **cfg))
    seqs = [engine.add_request(p, SamplingParams(max_new_tokens=steps, ignore_eos=True)) for p in prompts]
    pool = engine.kv.pool
    for _ in engine.stream():
        if check_blocks:  # rollback is exact: each sequence holds just the blocks of its accepted KV
            pool.check_invariants()
            for s in engine.scheduler.running:
                assert len(s.block_table) == pool.blocks_for(s.num_cached_tokens), (s.seq_id, s.num_cached_tokens)
    assert pool.num_used == 0  # every block back in the pool
    return [s.output_token_ids for s in seqs], engine.trace


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    seed=st.integers(0, 10_000),
    wrong=st.sampled_from([0.0, 0.3, 1.0]),
    k=st.integers(1, 6),
    kv_dtype=st.sampled_from(KV_DTYPES),
    chunked=st.booleans(),
    batch=st.sampled_from([1, len(PROMPTS)]),
)
def test_any_drafts_leave_greedy_output_and_the_kv_pool_as_plain_decoding(
    tiny, seed, wrong, k, kv_dtype, chunked, batch
):
    ids = [tiny.tokenizer(p).input_ids for p in PROMPTS[:batch]]
    cfg = dict(kv_dtype=kv_dtype, chunked_prefill=chunked, max_num_batched_tokens=8 if chunked else 8192, block_size=4)
    cfg |= dict(kv_cache_bytes=1 << 20)  # a small pool: the invariants are checked over every block each step
    plain, _ = _run(tiny, ids, None, **cfg)
    reference = tuple(tuple(i + o) for i, o in zip(ids, plain))
    spec = Oracle(num_tokens=k, reference=reference, wrong_share=wrong, seed=seed)
    speculative, trace = _run(tiny, ids, spec, check_blocks=True, **cfg)
    assert speculative == plain
    verified = [s for step in trace.steps for s in step.seqs if s.drafted]
    assert verified and all(0 <= s.accepted <= s.drafted <= k for s in verified)
    if wrong == 0.0:  # every draft right: k + 1 tokens a step, fewer steps
        assert all(s.accepted == s.drafted for s in verified) and len(trace.steps) < 16 + batch
    if wrong == 1.0:  # every draft wrong: each step's one token is the model's correction
        assert all(s.accepted == 0 for s in verified)


def test_a_sampled_run_with_drafts_stops_at_its_length_and_is_seeded(tiny):
    ids = tiny.tokenizer(PROMPTS[1]).input_ids
    params = SamplingParams(max_new_tokens=20, temperature=0.8, top_k=50, seed=7, ignore_eos=True)

    def run():
        engine = Engine(tiny.model, tiny.tokenizer, EngineConfig(speculative=SpeculativeConfig(num_tokens=4)))
        seq = engine.add_request(ids, params)
        for _ in engine.stream():
            pass
        return seq.output_token_ids

    first = run()
    assert len(first) == 20 and run() == first


def test_bad_speculative_settings_are_named():
    for bad in (dict(num_tokens=0), dict(num_tokens=33), dict(ngram_min=3, ngram_max=2), dict(method="eagle")):
        with pytest.raises(LabError):
            SpeculativeConfig(**bad)
    with pytest.raises(LabError, match="turn the KV cache on"):
        EngineConfig(kv_cache=False, speculative=SpeculativeConfig())


def test_prompt_lookup_on_the_real_model_is_greedy_decoding_in_fewer_steps(bundled):
    """The bundled model asked to repeat a text: prompt lookup drafts it, most drafts are accepted,
    and the output is plain greedy's, in a batch with a prompt that gives nothing to look up."""
    text = (
        "Repeat the text exactly.\nText: The river rose slowly through the spring, and the town built its walls "
        "a little higher every year.\nRepeat: The river"
    )
    ids = [bundled.tokenizer(p).input_ids for p in (text, "The capital of France is")]
    for kv_dtype in ("auto", "int8"):
        plain, plain_trace = _run(bundled, ids, None, steps=32, kv_dtype=kv_dtype)
        speculative, trace = _run(bundled, ids, SpeculativeConfig(num_tokens=6), steps=32, kv_dtype=kv_dtype)
        assert speculative == plain and len(trace.steps) < len(plain_trace.steps)
        repeat = min(s.seq_id for step in trace.steps for s in step.seqs)  # the text to repeat came first
        verified = [s for step in trace.steps for s in step.seqs if s.drafted and s.seq_id == repeat]
        assert sum(s.accepted for s in verified) >= 0.5 * sum(s.drafted for s in verified)


def test_vllms_speculative_config_is_read_and_bad_ones_are_named():
    spec = SpeculativeConfig.from_json(
        '{"method": "ngram", "num_speculative_tokens": 5, "prompt_lookup_min": 2, "prompt_lookup_max": 4}'
    )
    assert spec == SpeculativeConfig("prompt_lookup", 5, 4, 2)
    for bad, said in (
        ("{num: 4}", "not JSON"),
        ("[4]", "a JSON object"),
        ('{"num_speculative_tokens": 4, "draft_model": "x"}', "Unknown speculative config keys ['draft_model']"),
        ('{"num_speculative_tokens": "4"}', "whole number"),
        ('{"method": "eagle"}', "Unknown speculative method"),
    ):
        with pytest.raises(LabError, match=re.escape(said)):
            SpeculativeConfig.from_json(bad)


def test_the_server_drafts_and_counts_in_vllms_spec_decode_metrics(servers, tiny_dirs, tiny_server):
    """`serve --speculative-config`: the same greedy text as a server without it, and vLLM's counters."""
    from openai import OpenAI

    from tests.server_support import metric

    prompt, model = PROMPTS[1], tiny_dirs["llama"].name
    config = '{"method": "ngram", "num_speculative_tokens": 4}'

    def complete(url: str) -> str:
        client = OpenAI(base_url=f"{url}/v1", api_key="unused", max_retries=0, timeout=120)
        reply = client.completions.create(
            model=model, prompt=prompt, max_tokens=16, temperature=0, extra_body={"ignore_eos": True}
        )
        return reply.choices[0].text

    with servers.engine(str(tiny_dirs["llama"]), "engine-serve-spec.log", "--speculative-config", config) as url:
        assert complete(url) == complete(tiny_server[0])
        name = "vllm:spec_decode_num_{}"
        drafts = metric(url, name.format("drafts"), name.format("drafts_total"))
        drafted = metric(url, name.format("draft_tokens"), name.format("draft_tokens_total"))
        accepted = metric(url, name.format("accepted_tokens"), name.format("accepted_tokens_total"))
        assert drafts > 0 and drafts <= drafted <= 4 * drafts and 0 <= accepted <= drafted
        if accepted:
            first = "vllm:spec_decode_num_accepted_tokens_per_pos"
            assert metric(url, first, first + "_total") > 0  # position 0 is the first sample listed


def test_a_bad_speculative_config_stops_serve_in_one_line(cli):
    out = cli("serve", "--port", "1", "--speculative-config", '{"num_speculative_tokens": 0}')
    assert out.returncode == 2 and out.stderr.count("\n") == 1 and "must be 1-32" in out.stderr, out.stderr


def test_the_break_even_acceptance_solves_expected_tokens_for_the_cost():
    from lab.speculation import break_even, expected_tokens

    assert expected_tokens(0.0, 4) == 1 and expected_tokens(1.0, 4) == 5 and expected_tokens(0.5, 1) == 1.5
    assert break_even(1.0, 4) == 0.0  # a verify as cheap as a decode step always pays
    assert break_even(5.0, 4) is None  # k + 1 tokens at best: never pays at five steps' cost
    a = break_even(2.0, 4)
    assert 0 < a < 1 and abs(expected_tokens(a, 4) - 2.0) < 1e-6


def test_the_verify_cost_curve_runs_each_k_on_the_engine(tiny):
    from lab.speculation import verify_costs

    costs = verify_costs(tiny.model, tiny.tokenizer, [8], [0, 2, 5], rounds=5)
    assert [(c.context, c.k) for c in costs] == [(8, 0), (8, 2), (8, 5)]
    assert costs[0].ratio == 1.0 and costs[0].interval is None and all(c.ms > 0 for c in costs)
    for c in costs[1:]:  # each k's steps paired with the plain lane's, a step each in turn
        assert c.interval.n == 5 and c.interval.low <= c.ratio <= c.interval.high


def test_the_verify_cost_curve_reports_its_progress_by_rounds(tiny):
    from lab.speculation import verify_costs

    seen, landed = [], []
    costs = verify_costs(
        tiny.model, tiny.tokenizer, [8, 16], [1, 4], rounds=5,
        progress=lambda i, f: seen.append((i, f)), on_round=landed.append,
    )  # fmt: skip
    assert seen == [(i, (2 + done) / 7) for i in (0, 1) for done in range(6)]  # the warm-up, then each round
    assert [len(x) for x in landed] == [3] * 5 + [6] * 5  # each round: the contexts done, then this one's
    assert all(c.interval is None for c in landed[4]) and [(c.context, c.k) for c in landed[-1]] == [
        (c.context, c.k) for c in costs
    ]  # the medians so far; the intervals come with the whole curve


def _cost(context: int, k: int, ratio: float, spread: float = 0.03):
    from lab.pairing import RatioInterval
    from lab.speculation import VerifyCost

    interval = RatioInterval(ratio, ratio - spread, ratio + spread, 12, 0.96) if k else None
    return VerifyCost(context, k, 10.0 * ratio, interval)


@pytest.mark.parametrize(
    "ratios, spread, verdict, flat",
    [
        ({1: 1.05, 2: 1.1, 4: 1.15, 8: 1.6}, 0.03, "holds", "k ≤ 4"),  # flat to 4 at both contexts
        ({1: 1.1, 2: 1.3, 4: 1.15, 8: 2.0}, 0.03, "roughly", "k ≤ 1"),  # the first rise ends it, whatever follows
        ({1: 1.44, 2: 1.8, 4: 1.9}, 0.03, "does not hold", "none"),
        ({1: 1.1, 2: 1.19, 4: 1.3}, 0.05, "not separable here", "k ≤ 1"),  # k = 2's interval straddles 1.2
    ],
)
def test_the_claim_that_decode_leaves_compute_idle_is_judged_on_the_intervals(ratios, spread, verdict, flat):
    from lab.speculation import flat_until, verify_claim
    from lab.verdicts import explain

    costs = [_cost(c, 0, 1.0) for c in (64, 512)] + [
        _cost(c, k, r, spread) for c in (64, 512) for k, r in ratios.items()
    ]
    v = verify_claim(costs)
    assert v.verdict == verdict and f"C = 64: {flat}" in v.numbers["flat"]
    assert flat_until(costs, 64) == (None if flat == "none" else int(flat.split()[-1]))
    text = explain(v, "en")
    if flat == "none":
        assert "1.44× one decode step (1.41–1.47, n = 12" in text
    elif verdict == "not separable here":
        assert "then not separable" in text and "More rounds" in text
    else:
        assert "1.2×" in text


def test_the_ridge_is_where_a_verify_steps_intensity_reaches_the_machines(tiny):
    from engine.observe.costmodel import SeqWork, step_cost
    from lab.speculation import ridge_tokens

    c = tiny.model.config
    T = ridge_tokens(c, 64, 4, 4, ridge=3.0)
    assert T is not None and T > 1

    def intensity(n: int) -> float:
        return step_cost(c, [SeqWork(n, 64 + n, n)], 4, weight_dtype_bytes=4).intensity

    assert intensity(T) >= 3.0 > intensity(T - 1)
    assert ridge_tokens(c, 64, 4, 4, ridge=1e9) is None


def test_a_verify_steps_cost_counts_one_lm_head_row_per_token(tiny):
    """k + 1 rows of logits come out of a verify step: the trace's FLOPs count the LM head k + 1 times."""
    engine = Engine(tiny.model, tiny.tokenizer, EngineConfig(speculative=SpeculativeConfig(num_tokens=3)))
    trace = engine.generate(PROMPTS[1], SamplingParams(max_new_tokens=12, ignore_eos=True))
    verify = next(s for s in trace.steps if s.seqs[0].drafted)
    plain_trace = Engine(tiny.model, tiny.tokenizer).generate(PROMPTS[1], SamplingParams(max_new_tokens=3))
    plain = next(s for s in plain_trace.steps if s.phase == "decode")  # linear FLOPs do not depend on the context
    T = verify.seqs[0].num_tokens
    assert T > 1 and verify.flops_linear == pytest.approx(plain.flops_linear * T)


@pytest.fixture(scope="module")
def drafters(tiny_dirs):
    """Draft models for the tiny Llama: its own int8 copy (close: most drafts accepted) and another
    tiny model with the same tokenizer (unrelated weights: few accepted)."""
    from engine.loader.model_loader import load_model

    return {
        "int8 copy": (str(tiny_dirs["llama"]), "int8"),
        "other model": (str(tiny_dirs["llama-4k"]), "native"),
    }, load_model


@pytest.mark.parametrize(
    "which, kv_dtype, chunked",
    [("int8 copy", d, i % 2 == 1) for i, d in enumerate(KV_DTYPES)] + [("other model", "float32", True)],
)
def test_a_draft_model_leaves_greedy_output_and_the_pool_as_plain_decoding(tiny, drafters, which, kv_dtype, chunked):
    from engine.core.draft_model import with_draft_model

    (path, weights), load_model = drafters[0][which], drafters[1]
    spec = SpeculativeConfig(
        method="draft_model", model=path, quantization=None if weights == "native" else weights, num_tokens=4
    )
    ready = with_draft_model(spec, tiny.tokenizer, lambda m, w: load_model(m, weights=w))
    cfg = dict(kv_dtype=kv_dtype, chunked_prefill=chunked, max_num_batched_tokens=16 if chunked else 8192)
    plain, _ = _run(tiny, PROMPTS, None, **cfg)
    drafted, trace = _run(tiny, PROMPTS, ready, check_blocks=True, **cfg)
    assert drafted == plain
    seqs = [q for s in trace.steps for q in s.seqs if q.drafted]
    assert seqs and all(len(q.draft) == q.drafted for q in seqs)  # every decode step drafted k (or what fits)
    accepted = sum(q.accepted for q in seqs) / sum(q.drafted for q in seqs)
    assert accepted > 0.5 if which == "int8 copy" else accepted < 0.5  # int8 agrees with fp32 on most argmaxes


def test_a_draft_model_with_another_tokenizer_is_refused(tiny):
    from engine.core.draft_model import DraftModel

    class OtherTokenizer:
        def get_vocab(self):
            return {"a": 0}

    bundle = type("Bundle", (), {"tokenizer": OtherTokenizer(), "name": "other", "model": tiny.model})()
    with pytest.raises(LabError, match="does not share the target model's tokenizer"):
        DraftModel(bundle, tiny.tokenizer)


def test_vllms_draft_model_config_is_read_and_checked():
    spec = SpeculativeConfig.from_json('{"method": "draft_model", "model": "bundled", "quantization": "int8"}')
    assert (spec.method, spec.model, spec.quantization, spec.num_tokens) == ("draft_model", "bundled", "int8", 4)
    for bad, message in [
        ('{"method": "draft_model"}', 'named with "model"'),
        ('{"method": "ngram", "model": "bundled"}', 'only with method "draft_model"'),
        ('{"method": "draft_model", "model": "bundled", "quantization": "awq"}', '"int8" or none'),
        ('{"method": "draft_model", "model": 3}', "must be a string"),
    ]:
        with pytest.raises(LabError, match=message):
            SpeculativeConfig.from_json(bad)
    with pytest.raises(LabError, match="not loaded"):
        spec.draft([1, 2, 3], 2)


def test_the_server_drafts_with_a_draft_model(servers, tiny_dirs, tiny_server):
    from openai import OpenAI

    from tests.server_support import metric

    model = tiny_dirs["llama"].name
    config = f'{{"method": "draft_model", "model": "{tiny_dirs["llama"]}", "quantization": "int8", "num_speculative_tokens": 3}}'

    def complete(url: str) -> str:
        client = OpenAI(base_url=f"{url}/v1", api_key="unused", max_retries=0, timeout=120)
        reply = client.completions.create(
            model=model, prompt=PROMPTS[0], max_tokens=12, temperature=0, extra_body={"ignore_eos": True}
        )
        return reply.choices[0].text

    with servers.engine(str(tiny_dirs["llama"]), "engine-serve-draft.log", "--speculative-config", config) as url:
        assert complete(url) == complete(tiny_server[0])
        name = "vllm:spec_decode_num_{}"
        assert metric(url, name.format("accepted_tokens"), name.format("accepted_tokens_total")) > 0


def test_adaptive_k_follows_the_acceptance():
    spec = SpeculativeConfig(num_tokens=4, adaptive=True)
    assert spec.next_k(4, 4, 4) == 6 and spec.next_k(4, 4, 2) == 3 and spec.next_k(1, 1, 0) == 1
    assert spec.next_k(31, 31, 31) == 32 and spec.next_k(5, 0, 0) == 5  # capped; no draft, no change
    assert SpeculativeConfig(num_tokens=4).next_k(4, 4, 0) == 4  # fixed k stays
    assert SpeculativeConfig.from_json('{"num_speculative_tokens": 2, "adaptive": true}').adaptive
    with pytest.raises(LabError, match="adaptive must be true or false"):
        SpeculativeConfig.from_json('{"adaptive": "yes"}')


@dataclass(frozen=True)
class Reference(SpeculativeConfig):
    """Drafts exactly k tokens of the reference continuation, right or (wrong=True) each one off by one."""

    reference: tuple[int, ...] = ()
    wrong: bool = False

    def draft(self, tokens: list[int], k: int) -> list[int]:
        follow = list(self.reference[len(tokens) : len(tokens) + k])
        return [(t + 1) % 1000 for t in follow] if self.wrong else follow


@pytest.mark.parametrize("wrong", [False, True])
def test_an_adaptive_run_grows_k_while_right_and_shrinks_it_while_wrong(tiny, wrong):
    plain, _ = _run(tiny, PROMPTS[:1], None, steps=24)
    ref = tuple(tiny.tokenizer(PROMPTS[0]).input_ids) + tuple(plain[0])
    out, trace = _run(tiny, PROMPTS[:1], Reference(num_tokens=2, adaptive=True, reference=ref, wrong=wrong), steps=24)
    assert out == plain
    ks = [s.seqs[0].drafted for s in trace.steps if s.seqs[0].drafted]
    if wrong:
        assert ks[:3] == [2, 1, 1]  # one fewer after each rejection, never below 1
    else:
        assert ks[:3] == [2, 4, 6]  # two more after each step that accepted every draft
