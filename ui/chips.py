"""Token chips as HTML: the prompt's tokens (grey until the prefill step lights them all at
once), then each generated token with its phase colour, step number and latency.

Every piece of model or user text goes through `html_text`: nothing here can inject markup.
"""

from __future__ import annotations

from engine.observe.trace import SeqStep
from ui.i18n import t
from ui.run_state import RunResult
from ui.text import html_text, visible
from ui.tokens import Piece, byte_groups

MAX_OUTPUT_CHIPS = 1_000  # more chips than this make every frame of a long run slow to draw
PROMPT_ENDS = 64  # a long prompt shows this many chips at each end: decode stays near the top of the page


def _chip(piece: Piece, phase: str, title: str, meta: str = "", current: bool = False, kind: str = "") -> str:
    classes = (
        ["pd-chip", f"pd-{phase}"]
        + ([kind] if kind else [])
        + (["pd-bytes"] if piece.is_bytes else [])
        + (["pd-current"] if current else [])
    )
    meta_html = f'<span class="pd-meta">{html_text(meta)}</span>' if meta else ""
    return (
        f'<span class="{" ".join(classes)}" title="{html_text(title)}">'
        f'<span class="pd-tok">{html_text(visible(piece.label))}</span>{meta_html}</span>'
    )


def chips_html(result: RunResult, upto_step: int | None = None, lang: str = "en") -> str:
    """All chips of a run as it stood after step `upto_step` (None: everything so far; -1: before
    the first step, the prompt tokenised but not yet computed)."""
    prefilled = bool(result.steps) and (upto_step is None or upto_step >= result.steps[0].step)
    prompt_phase = "prefill" if prefilled else "pending"
    prompt = [
        _chip(p, prompt_phase, t("chip_prompt_title", lang, i=i, id=p.token_id), kind="pd-in")
        for i, p in enumerate(result.prompt)
    ]
    parts = _prompt_parts(result.prompt, prompt, lang)
    latencies = result.latencies_ms()
    shown = [
        (tok, piece, ms)
        for tok, piece, ms in zip(result.tokens, result.pieces, latencies)
        if upto_step is None or tok.step <= upto_step
    ]
    if shown:
        parts.append('<span class="pd-arrow">→</span>')
    if len(shown) > MAX_OUTPUT_CHIPS:  # a long run: the newest tokens; the output text above has them all
        parts.append(
            f'<span class="pd-more">{html_text(t("chips_earlier", lang, n=len(shown) - MAX_OUTPUT_CHIPS))}</span>'
        )
        shown = shown[-MAX_OUTPUT_CHIPS:]
    out, marks = [], speculative_marks(result)
    for tok, piece, ms in shown:
        meta = t("chip_meta", lang, step=tok.step, ms=ms)
        current = upto_step is not None and tok.step == upto_step
        mark = marks.get(tok.index)
        if mark is None:
            title = t("chip_out_title", lang, i=tok.index, id=piece.token_id, phase=t(f"phase_{tok.phase}", lang))
            out.append(_chip(piece, tok.phase, title, meta, current=current, kind="pd-out"))
            continue
        kind, s = mark
        title = t(
            "chip_spec_title",
            lang,
            i=tok.index,
            id=piece.token_id,
            kind=t(f"chip_legend_{kind}", lang),
            step=tok.step,
            drafted=s.drafted,
            accepted=s.accepted,
        )
        chip = _chip(piece, tok.phase, title, meta, current=current, kind=f"pd-out pd-{kind.replace('_', '-')}")
        if kind != "spec_ok":  # the step's last token: the drafts it rejected follow it
            chip += "".join(
                _chip(p, "decode", t("chip_spec_rejected_title", lang, id=p.token_id, step=tok.step), kind="pd-spec-no")
                for p in result.rejected.get(tok.step, [])
            )
        out.append(chip)
    parts += grouped([piece for _, piece, _ in shown], out, lang)
    return f'<div class="pd-chips">{"".join(parts)}</div>'


def speculative_marks(result: RunResult) -> dict[int, tuple[str, SeqStep]]:
    """Output token index -> (kind, its step's record) for tokens of speculative verify steps: the
    accepted drafts ("spec_ok"), then the model's own token ("spec_fix" after a rejection,
    "spec_bonus" when every draft was accepted). Plain steps' tokens are not in it."""
    by_step = {s.step: s.seqs[0] for s in result.steps if s.seqs and s.seqs[0].drafted}
    marks, first = {}, {}
    for tok in result.tokens:
        s = by_step.get(tok.step)
        if s is None:
            continue
        j = tok.index - first.setdefault(tok.step, tok.index)
        if j < s.accepted:
            marks[tok.index] = ("spec_ok", s)
        else:
            marks[tok.index] = ("spec_fix" if s.accepted < s.drafted else "spec_bonus", s)
    return marks


def _prompt_parts(pieces: list[Piece], chips: list[str], lang: str) -> list[str]:
    """The prompt's chips, or for a long prompt its first and last PROMPT_ENDS with a count between
    (the whole prompt is in the text box above)."""
    hidden = len(chips) - 2 * PROMPT_ENDS
    if hidden <= PROMPT_ENDS // 2:  # hiding a handful would save no room
        return grouped(pieces, chips, lang)
    more = f'<span class="pd-more">{html_text(t("chips_prompt_hidden", lang, n=hidden))}</span>'
    head, tail = slice(None, PROMPT_ENDS), slice(-PROMPT_ENDS, None)
    return grouped(pieces[head], chips[head], lang) + [more] + grouped(pieces[tail], chips[tail], lang)


def grouped(pieces: list[Piece], chips: list[str], lang: str) -> list[str]:
    """The chips, with each run of byte tokens that spells whole characters boxed under them
    ("3 tokens → 今"), so a byte-level tokenizer's pieces read as the text they make."""
    groups, out, i = byte_groups(pieces), [], 0
    while i < len(chips):
        if i not in groups:
            out.append(chips[i])
            i += 1
            continue
        end, text = groups[i]
        title = html_text(t("chip_group_title", lang, n=end - i, text=text))
        out.append(
            f'<span class="pd-group" title="{title}"><span class="pd-group-text">{html_text(visible(text))}'
            f'</span><span class="pd-group-chips">{"".join(chips[i:end])}</span></span>'
        )
        i = end
    return out


def legend_html(lang: str = "en", speculative: bool = False) -> str:
    demo = Piece(0, "tok")
    items = [("pending", "chip_legend_pending"), ("prefill", "chip_legend_prefill"), ("decode", "chip_legend_decode")]
    spec = [f"spec_{k}" for k in ("ok", "fix", "bonus", "no")] if speculative else []
    return (
        '<div class="pd-legend">'
        + "".join(f"{_chip(demo, phase, '')} {html_text(t(key, lang))}" for phase, key in items)
        + "".join(
            f"{_chip(demo, 'decode', '', kind='pd-' + k.replace('_', '-'))} {html_text(t('chip_legend_' + k, lang))}"
            for k in spec
        )
        + f'<span class="pd-legend-note">{html_text(t("chip_legend_clock", lang))}</span>'
        + "</div>"
    )


def output_html(text: str) -> str:
    return f'<div class="pd-output">{html_text(text)}</div>'
