"""The seed's worked example (C12) with this run's real numbers: a table of steps and a narrative."""

from __future__ import annotations

import pandas as pd

from app_pages.playground.strings import t
from engine.observe.trace import StepRecord
from ui.run_state import RunResult
from ui.text import md_literal, quoted
from ui.theme import fmt_bytes
from ui.tokens import piece_text


def _shape(dims: list[int]) -> str:
    return "[" + ", ".join(str(d) for d in dims) + "]"


def step_table(steps: list[StepRecord], produced: dict[int, str], lang: str = "en") -> pd.DataFrame:
    """One row per step; `produced` maps a step to the labels of the tokens it produced. With speculative
    decoding a column says how many drafted tokens each step verified and how many it accepted."""
    rows, speculative = [], any(s.seqs[0].drafted for s in steps if s.seqs)
    for s in steps:
        q = s.seqs[0]
        kv = _shape(q.shapes.kv_cache) + (f" {t('tbl_recomputed', lang)}" if q.recompute else "")
        rows.append(
            {
                t("tbl_step", lang): s.step,
                t("tbl_phase", lang): t(f"phase_{s.phase}", lang),
                t("tbl_tokens_in", lang): q.num_tokens,
                t("tbl_token", lang): quoted(produced[s.step]) if s.step in produced else "—",
                t("tbl_input", lang): _shape(q.shapes.input),
                t("tbl_q", lang): _shape(q.shapes.q),
                t("tbl_scores", lang): _shape(q.shapes.scores),
                t("tbl_kv", lang): kv,
                t("tbl_ms", lang): round(s.ms, 1),
                t("tbl_peak", lang): fmt_bytes(s.peak_bytes) if s.peak_bytes is not None else "—",
            }
        )
        if speculative:
            rows[-1][t("tbl_drafts", lang)] = f"{q.accepted} / {q.drafted}" if q.drafted else "—"
    return pd.DataFrame(rows)


def produced_labels(result: RunResult) -> dict[int, str]:
    """Step -> the text of its token, or of its tokens one after another (a speculative step emits several)."""
    out: dict[int, str] = {}
    for tok, piece in zip(result.tokens, result.pieces):
        out[tok.step] = out.get(tok.step, "") + piece_text(piece)
    return out


def worked_example_md(result: RunResult, lang: str = "en") -> str:
    """The C12 walk-through filled in with this model and this prompt (all text escaped)."""
    m, L = result.model, result.num_prompt_tokens
    mode = "" if result.settings.kv_cache else "_nocache"  # the words follow the run: no cache, nothing grows
    labels = [md_literal(quoted(piece_text(p))) for p in result.pieces]
    first = labels[0] if labels else "—"
    parts = [
        t(
            "c12_intro",
            lang,
            model=md_literal(m.name),
            layers=m.num_layers,
            hidden=m.hidden_size,
            heads=m.num_heads,
            kv_heads=m.num_kv_heads,
            head_dim=m.head_dim,
            L=L,
        ),
        t(
            f"c12_prefill{mode}",
            lang,
            L=L,
            hidden=m.hidden_size,
            layers=m.num_layers,
            kv_heads=m.num_kv_heads,
            head_dim=m.head_dim,
            tok=first,
        ),
    ]
    if len(labels) > 1:
        parts.append(t(f"c12_decode{mode}", lang, hidden=m.hidden_size, prev=first, L=L, L1=L + 1, tok=labels[1]))
        parts.append(t(f"c12_more{mode}", lang, L2=L + 2, L3=L + 3))
    if m.num_kv_heads != m.num_heads:
        parts.append(t("c12_gqa", lang, kv_heads=m.num_kv_heads, heads=m.num_heads))
    return "\n".join(parts)
