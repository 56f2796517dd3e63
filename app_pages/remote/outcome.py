"""How a load ended, in sentences with a tone: the finished line (green only when every request
finished), why requests failed (each reason once, with its count), a server that refused vLLM's
extensions (the requests went without them), replies that came back with no tokens, a server that
ignored `ignore_eos`, and synthetic prompts' length as the server counted it. The Load tab, "Beside
our engine" and the HTML report all say it through `outcome_lines`."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import streamlit as st

from app_pages.remote.strings import t
from lab.catalogues import Message, word
from lab.remote_client import STREAM_CUT
from lab.remote_load import LoadRun
from ui.text import md_escape


@dataclass(frozen=True)
class Line:
    tone: str  # "ok", "warn", "error" or "info"
    text: str  # the lab's own words (Markdown)
    items: tuple[str, ...] = ()  # what a server said, plain text: one bullet each
    note: str = ""  # the lab's words after the bullets


def finished_line(run: LoadRun, lang: str) -> Line:
    summary = run.summary()
    text = t(
        "rm_load_done",
        lang,
        finished=summary["finished"],
        requests=summary["requests"],
        secs=run.seconds,
        stopped=t("rm_load_stopped", lang) if run.cut_short else "",
    )
    if not summary["finished"]:
        return Line("error", text)
    return Line("warn" if summary["failed"] or run.cut_short else "ok", text)


def failure_line(run: LoadRun, lang: str) -> Line | None:
    """Every distinct reason a request failed, most common first, and the likely cause of streams
    cut while others ran (a server that interrupts a running request for a new one)."""
    reasons = Counter(r.error for r in run.results if r.error).most_common()
    if not reasons:
        return None
    n = sum(count for _, count in reasons)
    cut = run.plan.mode != "synchronous" and any(STREAM_CUT in msg for msg, _ in reasons)
    return Line(
        "warn",
        t("rm_load_errors", lang, n=n, total=len(run.results)),
        tuple(f"{count} × {msg}" for msg, count in reasons),
        t("rm_cut_hint", lang) if cut else "",
    )


def escaped(message: Message) -> Message:
    """The message with the server's own words (its `reason`, at any depth) escaped for Markdown."""
    values = {
        k: escaped(v) if isinstance(v, Message) else md_escape(str(v)) if k == "reason" else v
        for k, v in message.values.items()
    }
    return Message(message.key, values, message.context)


def dropped_line(run: LoadRun, lang: str) -> Line | None:
    """The server refused vLLM's extensions by name: the requests went without them (its words below)."""
    dropped = run.dropped()
    return None if dropped is None else Line("warn", word(dropped[0], lang), (dropped[1],))


def empty_line(run: LoadRun, lang: str) -> Line | None:
    empty = [r for r in run.finished if r.metrics is None]
    if not empty:
        return None
    reasons = ", ".join(sorted({str(r.finish_reason) for r in empty}))
    return Line("info", t("rm_load_empty", lang, n=len(empty), total=len(run.results), finish=reasons))


def ignored_eos_line(run: LoadRun, lang: str) -> Line | None:
    """The server ended replies at EOS that the requests asked it to run past."""
    early = [r for r in run.results if r.ignored_ignore_eos]
    if not early:
        return None
    tokens = max(r.request.max_tokens for r in early)
    return Line("warn", t("rm_ignored_eos", lang, n=len(early), total=len(run.results), tokens=tokens))


def prompt_length_line(run: LoadRun, lang: str) -> Line | None:
    """Synthetic prompts: their length by the lab's tokenizer, beside the server's own count of them
    (`usage.prompt_tokens`), which differs when the server adds a BOS token or tokenizes otherwise."""
    asked = [r for r in run.results if r.request.prompt_tokens]
    if not asked:
        return None
    length, name = asked[0].request.prompt_tokens, asked[0].request.tokenizer or "?"
    counted = sorted({r.usage_prompt_tokens for r in asked if r.usage_prompt_tokens is not None})
    if not counted:
        return Line("info", t("rm_prompt_len_unreported", lang, n=length, tokenizer=name))
    if counted == [length]:
        return Line("info", t("rm_prompt_len_same", lang, n=length, tokenizer=name))
    return Line("info", t("rm_prompt_len_differs", lang, n=length, tokenizer=name, lo=counted[0], hi=counted[-1]))


def outcome_lines(run: LoadRun, lang: str, with_finished: bool = True) -> list[Line]:
    lines = [finished_line(run, lang)] if with_finished else []
    found = (failure_line, dropped_line, empty_line, ignored_eos_line, prompt_length_line)
    return lines + [line for line in (f(run, lang) for f in found) if line]


BOXES = {
    "ok": (st.success, ":material/check_circle:"),
    "warn": (st.warning, ":material/warning:"),
    "error": (st.error, ":material/error:"),
    "info": (st.info, ":material/info:"),
}


def render_outcome(run: LoadRun, lang: str, with_finished: bool = True) -> None:
    for line in outcome_lines(run, lang, with_finished):
        render_line(line)


def render_line(line: Line) -> None:
    """One line in its tone's box, the server's words as bullets."""
    box, icon = BOXES[line.tone]
    bullets = "".join(f"\n- {md_escape(item)}" for item in line.items)
    box(line.text + "\n" + bullets + (f"\n\n{line.note}" if line.note else ""), icon=icon)
