"""The worked example (C12) for any model: every tensor shape of the prefill and each decode step as a
table, and the walk-through beside the document's own LLaMA-7B numbers. Arithmetic only
(lab.complexity.shape_table): presets need no weights and nothing is downloaded."""

from __future__ import annotations

import pandas as pd

from app_pages.complexity.strings import t
from engine.config import ModelConfig
from engine.errors import LabError
from lab.complexity import ShapeRow, shape_table

DOC_MODEL = "LLaMA-7B"
DOC_PROMPT = "今天天气"
DOC_TOKENS = 4  # the document counts one token per character
MAX_WORKED_TOKENS = 64


def shape(dims: list[int]) -> str:
    return "[" + ", ".join(str(d) for d in dims) + "]"


def doc_token_count(prompt: str) -> int:
    """The document's way of counting: one token per character (「今天天气」 -> 4)."""
    return len(prompt)


def worked_rows(c: ModelConfig, prompt_len: int, max_new_tokens: int, kv_cache: bool = True) -> list[ShapeRow]:
    """The shape table, with the checks a user can trip over turned into readable ValueErrors."""
    if prompt_len < 1:
        raise LabError("The prompt is empty: type some text (the default is 今天天气).")
    if not 1 <= max_new_tokens <= MAX_WORKED_TOKENS:
        raise LabError(f"max_new_tokens must be between 1 and {MAX_WORKED_TOKENS}.")
    if prompt_len + max_new_tokens > c.max_position:
        raise LabError(
            f"{prompt_len} prompt tokens + max_new_tokens {max_new_tokens} exceed {c.name}'s context "
            f"of {c.max_position} tokens."
        )
    return shape_table(c, prompt_len, max_new_tokens, kv_cache=kv_cache)


ROW_KEYS = [
    "cx_col_t",
    "cx_col_c",
    "cx_col_embedding",
    "cx_col_q",
    "cx_col_kv_layer",
    "cx_col_scores",
    "cx_col_scores_head",
    "cx_col_kv_cache",
    "cx_col_hidden",
    "cx_col_last",
    "cx_col_logits",
]


def _cells(r: ShapeRow) -> list[str]:
    """One step's column, in ROW_KEYS order; K and V share a shape, so they share a row."""
    return [
        str(r.tokens_in),
        str(r.context),
        shape(r.embedding),
        shape(r.q),
        shape(r.k),
        shape(r.scores),
        "×".join(str(d) for d in r.scores_per_head),
        shape(r.kv_cache),
        shape(r.hidden_out),
        shape(r.last_position),
        shape(r.logits),
    ]


def step_label(r: ShapeRow, lang: str = "en") -> str:
    return t("cx_col_step", lang, step=r.step, phase=t(f"phase_{r.phase}", lang))


def shape_frame(rows: list[ShapeRow], lang: str = "en") -> pd.DataFrame:
    """One row per tensor, one column per step: a step's shapes read top to bottom, and the document's
    numbers sit side by side across the prefill and the decode steps."""
    table = {t("cx_col_tensor", lang): [t(k, lang) for k in ROW_KEYS]}
    table.update({step_label(r, lang): _cells(r) for r in rows})
    return pd.DataFrame(table)


def walkthrough_md(c: ModelConfig, rows: list[ShapeRow], kv_cache: bool, lang: str = "en") -> str:
    """The C12 narrative with this model's numbers (model names come from configs: escape upstream)."""
    pre = rows[0]
    L = pre.tokens_in
    parts = [
        t(
            "cx_walk_prefill",
            lang,
            L=L,
            emb=shape(pre.embedding),
            layers=c.num_layers,
            q=shape(pre.q),
            k=shape(pre.k),
            kv=shape(pre.kv_cache),
            hid=shape(pre.hidden_out),
            last=shape(pre.last_position),
            logits=shape(pre.logits),
        )
    ]
    if len(rows) > 1:
        d = rows[1]
        key = "cx_walk_decode" if kv_cache else "cx_walk_decode_nocache"
        parts.append(t(key, lang, emb=shape(d.embedding), L=L, L1=L + 1, kv=shape(d.kv_cache)))
        parts.append(t("cx_walk_more", lang, contexts=", ".join(str(r.context) for r in rows[2:]) or "—"))
    if c.num_kv_heads != c.num_heads:
        parts.append(
            t("cx_walk_gqa", lang, kv_heads=c.num_kv_heads, heads=c.num_heads, ratio=c.num_heads // c.num_kv_heads)
        )
    return "\n\n".join(parts)


def matches_document(c: ModelConfig, rows: list[ShapeRow]) -> bool:
    """Does this table reproduce the document's LLaMA-7B numbers (C12)?"""
    if len(rows) < 2:
        return False
    pre, first = rows[0], rows[1]
    return (
        pre.embedding == [1, 4, 4096]
        and pre.scores_per_head == [4, 4]
        and pre.kv_cache == [32, 2, 4, 32, 128]
        and pre.last_position == [1, 4096]
        and first.scores_per_head == [1, 5]
        and first.context == 5
    )
