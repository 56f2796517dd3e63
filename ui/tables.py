"""Every table a page shows, drawn one way: short column labels, the full text kept as each column's
help, the table as wide as the page, and the first column pinned so a narrow screen scrolls the others
under it.

    show_table(frame, key=keys.SUMMARY, short={t("dg_col_transfer", lang): t("dg_col_transfer_short", lang)})

A frame's column names stay its full texts (what the tests and a download read); what the header shows
is the column config's `label`, at most LABEL_CAP display characters (a CJK character counts two, as
it is drawn two wide). A page gives its short labels at their source, a catalogue message beside the
long one; a label still too long, a model's name or a prompt, is cut at a word with "…" and its full
text is the column's help, so a header never pushes a column off the page and no word is lost.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Mapping
from typing import Any

import pandas as pd
import streamlit as st

LABEL_CAP = 24  # display characters: "ITL P99 (ms)" fits; a header that wraps or pushes its column does not
INDEX = "_index"  # Streamlit's name for a frame's index in a column config
ELLIPSIS = "…"
BUSY_MARK = "⚠"  # how ui/paired.busy_beside begins the machine's load beside a number


def display_width(text: str) -> int:
    """How many character cells `text` takes on screen: a wide (CJK, full-width) character takes two."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def fits(label: str, cap: int = LABEL_CAP) -> bool:
    """Whether a column label is short enough to show whole at the table's column widths."""
    return display_width(label) <= cap


def short_label(text: str, cap: int = LABEL_CAP) -> str:
    """`text` if it fits the cap, else its head cut at the last space (or anywhere, for CJK) before
    the cap, with "…": the fallback for a label no page wrote short, such as a prompt."""
    if fits(text, cap):
        return text
    if BUSY_MARK in text:  # a header carrying the machine's load keeps its mark in sight; the reading is the help
        return short_label(text.split(BUSY_MARK)[0].rstrip(" ·"), cap - 2) + " " + BUSY_MARK
    head, width = "", display_width(ELLIPSIS)
    for ch in text:
        width += display_width(ch)
        if width > cap:
            break
        head += ch
    at_space = head.rfind(" ")
    ends_a_word = text[len(head)] == " "
    if not ends_a_word and at_space >= len(head) // 2:  # cut at a word when one ends in the second half
        head = head[:at_space]
    return head.rstrip(" ,;:([（，") + ELLIPSIS


def _merged(config: Any, name: str, short: Mapping[str, str]) -> dict:
    """A column's config (a column type's dict, or nothing) with its short label and, where the label
    shows less than the full text (the config's own label, else the column's name), that text as help."""
    merged = dict(config) if isinstance(config, Mapping) else {}
    full = merged.get("label") or name
    label = short_label(short.get(name, full))
    if label != full:
        merged["help"] = merged.get("help") or full
    merged["label"] = label
    return merged


def table_config(
    frame: pd.DataFrame,
    short: Mapping[str, str] | None = None,
    column_config: Mapping[str, Any] | None = None,
    hide_index: bool = True,
) -> dict[str, dict]:
    """The column config that shows `frame` by the rule: each column's label short (`short`'s, else its
    name, cut to the cap), its full name as help, and the first shown column (the index when shown)
    pinned."""
    short, given = short or {}, column_config or {}
    config: dict[str, dict] = {}
    columns = [str(c) for c in frame.columns]
    if not hide_index:
        name = str(frame.index.name or "")
        config[INDEX] = _merged(given.get(INDEX), name, short)
    for name in columns:
        config[name] = _merged(given.get(name), name, short)
    first = INDEX if not hide_index else (columns[0] if columns else None)
    if first is not None:
        config[first]["pinned"] = True
    return config


def show_table(
    frame: pd.DataFrame,
    *,
    key: str | None = None,
    short: Mapping[str, str] | None = None,
    column_config: Mapping[str, Any] | None = None,
    hide_index: bool = True,
    height: int | str = "auto",
    where: Any = None,
) -> None:
    """Show `frame` as an interactive table by the rule (see table_config), as wide as the page, in
    `where` (a placeholder or a column; the page by default)."""
    (where or st).dataframe(
        frame,
        width="stretch",
        height=height,
        hide_index=hide_index,
        key=key,
        column_config=table_config(frame, short, column_config, hide_index),
    )


def edit_table(
    frame: pd.DataFrame,
    *,
    key: str,
    short: Mapping[str, str] | None = None,
    column_config: Mapping[str, Any] | None = None,
    **editor: Any,
) -> pd.DataFrame:
    """An editable table by the same rule (st.data_editor's other arguments pass through)."""
    config = table_config(frame, short, column_config, hide_index=True)
    return st.data_editor(frame, width="stretch", hide_index=True, key=key, column_config=config, **editor)


def show_static_table(frame: pd.DataFrame, short: Mapping[str, str] | None = None, where: Any = None) -> None:
    """A static table whose cells wrap (sentences): its headers shortened by the same cap. A static
    table has no column help, so a page gives every long header its short label here."""
    labels = {c: short_label((short or {}).get(str(c), str(c))) for c in frame.columns}
    (where or st).table(frame.rename(columns=labels), hide_index=True)


SHORT_SUFFIX = "_short"  # a column label's short message: its long message's key + this


def short_labels(say: Callable[..., str], lang: str, *keys: str, **values: Any) -> dict[str, str]:
    """{long label: short label} for these catalogue keys, each with a short message beside it
    (key + SHORT_SUFFIX), worded by the page's `say` (its `t`) with the same fields."""
    return {say(k, lang, **values): say(k + SHORT_SUFFIX, lang, **values) for k in keys}
