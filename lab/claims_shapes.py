"""Checks of the claims about what prefill and decode feed, compute and keep (C1, C2, C5, C6, C10,
C12, C23), as pure functions of the engine's step records: each can be run on a real trace and on a
hand-made one where the claim fails."""

from __future__ import annotations

from engine.config import ModelConfig
from engine.errors import LabError
from engine.observe.trace import StepRecord
from lab.pairing import RatioInterval
from lab.verdicts import FAILS, HOLDS, ROUGHLY, Verdict, log_slope, named


def _prefill(steps: list[StepRecord]) -> list[StepRecord]:
    return [s for s in steps if s.phase == "prefill"]


def _decode(steps: list[StepRecord]) -> list[StepRecord]:
    return [s for s in steps if s.phase == "decode"]


def c1_check(steps: list[StepRecord], prompt_len: int, hidden: int) -> Verdict:
    """The whole prompt in one forward: one prefill step of L tokens, input [1, L, hidden]."""
    pre = _prefill(steps)
    first = pre[0].seqs[0] if pre else None
    nums = dict(
        L=prompt_len,
        steps=len(pre),
        T=first.num_tokens if first else 0,
        shape=str(first.shapes.input) if first else "—",
    )
    ok = len(pre) == 1 and first.num_tokens == prompt_len and first.shapes.input == [1, prompt_len, hidden]
    return Verdict("C1", HOLDS if ok else FAILS, "why_c1_holds" if ok else "why_c1_fails", nums)


def c2_check(
    steps: list[StepRecord],
    prompt_len: int,
    scores_len: int,
    measured: int,
    formula: int,
    prompt_lens: list[int],
    attention_flops: list[float],
) -> Verdict:
    """Prefill scores are L x L: the recorded shape; the score bytes the eager backend held at a prefill's
    peak (measured by the memory probe, one layer, all heads) against heads x Lq x Lk x bytes; and the
    counted attention FLOPs' exponent over prompt lengths (2 for L(L+1)/2 pairs)."""
    pre = _prefill(steps)
    scores = pre[0].seqs[0].shapes.scores if pre else [0, 0, 0, 0]
    exponent = log_slope(prompt_lens, attention_flops)
    ratio = measured / formula if formula else 0.0
    nums = dict(
        L=prompt_len,
        T=scores[2],
        C=scores[3],
        Ls=scores_len,
        measured=measured,
        formula=formula,
        ratio=ratio,
        exponent=exponent,
    )
    square = scores[2] == scores[3] == prompt_len
    if square and 0.9 <= ratio <= 2.2 and exponent >= 1.8:  # eager may hold the scores and their softmax
        return Verdict("C2", HOLDS, "why_c2_holds", nums)
    if square and exponent >= 1.8:
        return Verdict("C2", ROUGHLY, "why_c2_roughly", nums)
    return Verdict("C2", FAILS, "why_c2_fails", nums)


def c5_check(steps: list[StepRecord], head_rows: list[tuple[int, int]], prompt_len: int) -> Verdict:
    """Prefill keeps the KV of every prompt token and sends only the last position to the LM head.
    head_rows: (tokens fed, logits rows out) per step, recorded around the model's forward."""
    pre = _prefill(steps)
    kv_after = pre[-1].kv_tokens if pre else 0
    fed, rows = head_rows[0] if head_rows else (0, 0)
    nums = dict(L=prompt_len, kv=kv_after, fed=fed, rows=rows)
    ok = kv_after == prompt_len and fed == prompt_len and rows == 1
    return Verdict("C5", HOLDS if ok else FAILS, "why_c5_holds" if ok else "why_c5_fails", nums)


def c6_check(
    steps: list[StepRecord], head_rows: list[tuple[int, int]], hidden: int, heads: int, finish_reason: str | None
) -> Verdict:
    """Every decode step feeds one token [1, 1, hidden], attends 1 x C, adds one token to the KV cache
    and yields one token; the loop stops at EOS or max_new_tokens."""
    dec = _decode(steps)
    one = sum(s.seqs[0].num_tokens == 1 and s.seqs[0].shapes.input == [1, 1, hidden] for s in dec)
    row = sum(s.seqs[0].shapes.scores == [1, heads, 1, s.seqs[0].context_len] for s in dec)
    kv = [s.seqs[0].context_len for s in _prefill(steps)[-1:] + dec]  # KV tokens the sequence holds after it
    grows = sum(b - a == 1 for a, b in zip(kv, kv[1:]))
    heads_ok = sum(r == 1 for _, r in head_rows[len(steps) - len(dec) :])
    stop = finish_reason in ("length", "eos", "stop")
    nums = dict(
        n=len(dec),
        one=one,
        row=row,
        grows=grows,
        head=heads_ok,
        finish=finish_reason or "—",
        first=kv[0] if kv else 0,
        last=kv[-1] if kv else 0,
    )
    ok = dec and one == row == heads_ok == len(dec) and grows == len(kv) - 1 and stop
    return Verdict("C6", HOLDS if ok else FAILS, "why_c6_holds" if ok else "why_c6_fails", nums)


def c10_check(steps: list[StepRecord], balance: float, timed: RatioInterval, timed_len: int) -> Verdict:
    """The comparison table, row by row on one request, by the engine's count: input L vs 1, scores L x L
    vs 1 x C, bottleneck (intensity against the machine balance), KV written once then +1 per step,
    transient peak (the probe's bytes). Beside it, timed: `timed`, a prefill of `timed_len` tokens over a
    decode step of the same request, as an interval over requests."""
    pre, dec = _prefill(steps), _decode(steps)
    if not pre or not dec:
        raise LabError("C10 needs a prefill step and at least one decode step.")
    p, d = pre[0], dec[len(dec) // 2]
    i_pre, i_dec = p.flops / p.bytes_moved, d.flops / d.bytes_moved
    peak_pre = max(s.peak_bytes or 0 for s in pre)
    peak_dec = sorted(s.peak_bytes or 0 for s in dec)[len(dec) // 2]
    rows = {
        "input": p.seqs[0].num_tokens > 1 and all(s.seqs[0].num_tokens == 1 for s in dec),
        "scores": p.seqs[0].shapes.scores[2] == p.seqs[0].shapes.scores[3] and d.seqs[0].shapes.scores[2] == 1,
        "bottleneck": i_pre > balance > i_dec,
        "kv": all(b.seqs[0].context_len - a.seqs[0].context_len == 1 for a, b in zip([pre[-1]] + dec, dec)),
        "peak": peak_pre > 2 * peak_dec,
    }
    n_ok = sum(rows.values())
    nums = dict(
        ok=n_ok,
        rows=len(rows),
        L=p.seqs[0].num_tokens,
        flops_ratio=p.flops / d.flops,
        i_pre=i_pre,
        i_dec=i_dec,
        balance=balance,
        peak_pre=peak_pre,
        peak_dec=peak_dec,
        failed=", ".join(k for k, v in rows.items() if not v) or "—",
        Lt=timed_len,
    ) | named(timed, "time")
    verdict = HOLDS if n_ok == len(rows) else ROUGHLY if n_ok >= len(rows) // 2 else FAILS
    return Verdict("C10", verdict, f"why_c10_{'holds' if verdict == HOLDS else 'partly'}", nums, timed, timed.load)


def c12_check(worked_steps: list[StepRecord], token_count: int, doc_shapes_match: bool, c: ModelConfig) -> Verdict:
    """The worked example: the document's LLaMA-7B shapes by arithmetic (doc_shapes_match), the same
    pattern on the loaded model's real run (T = n then 1; KV n -> n+1 -> n+2), and the real token
    count of 「今天天气」 against the document's 4."""
    pre, dec = _prefill(worked_steps), _decode(worked_steps)
    pattern = (
        len(pre) == 1
        and pre[0].seqs[0].num_tokens == token_count
        and [s.seqs[0].context_len for s in dec] == [token_count + 1 + i for i in range(len(dec))]
        and all(s.seqs[0].num_tokens == 1 for s in dec)
    )
    kv_shape = pre[0].seqs[0].shapes.kv_cache if pre else []
    nums = dict(
        n=token_count,
        kv=str(kv_shape),
        kv_heads=c.num_kv_heads,
        heads=c.num_heads,
        contexts=" → ".join(str(s.seqs[0].context_len) for s in pre + dec),
    )
    if not (pattern and doc_shapes_match):
        return Verdict("C12", FAILS, "why_c12_fails", nums)
    if token_count == 4:
        return Verdict("C12", HOLDS, "why_c12_holds", nums)
    return Verdict("C12", ROUGHLY, "why_c12_roughly", nums)


def c23_check(steps: list[StepRecord], chunked_steps: list[StepRecord]) -> Verdict:
    """Prefill builds the cache (KV = L after it), decode extends it by one per step, and with chunked
    prefill and continuous batching some steps run prefill chunks and decode tokens together."""
    pre, dec = _prefill(steps), _decode(steps)
    built = bool(pre) and pre[-1].kv_tokens == sum(s.seqs[0].num_tokens for s in pre)
    reused = (
        bool(pre)
        and bool(dec)
        and all(
            s.seqs[0].num_tokens == 1 and b.seqs[0].context_len - a.seqs[0].context_len == 1
            for s, a, b in zip(dec, [pre[-1]] + dec, dec)
        )
    )
    mixed = sum(s.phase == "mixed" for s in chunked_steps)
    nums = dict(kv=pre[-1].kv_tokens if pre else 0, n=len(dec), mixed=mixed, steps=len(chunked_steps))
    if built and reused and mixed:
        return Verdict("C23", HOLDS, "why_c23_holds", nums)
    if built and reused:
        return Verdict("C23", ROUGHLY, "why_c23_roughly", nums)
    return Verdict("C23", FAILS, "why_c23_fails", nums)
