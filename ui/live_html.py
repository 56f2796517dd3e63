"""The live view's HTML: a status line, the chips and the KV cache's blocks, in one block so each
engine step costs the browser a single redraw. Only numbers and escaped text go in. Also the line a
finished run's banner says (the playground, its report, each compare column)."""

from __future__ import annotations

from ui.chips import chips_html
from ui.figures_kv import kv_steps
from ui.i18n import t
from ui.prefill_pace import expected_s
from ui.run_state import RunResult
from ui.text import fmt_duration, html_text
from ui.theme import fmt_bytes

MAX_BLOCKS_DRAWN = 256


def status_text(result: RunResult, lang: str) -> str:
    if not result.steps:
        waiting = t("live_waiting", lang, L=result.num_prompt_tokens)
        expected = expected_s(result)
        if expected is None:
            return waiting
        rate, seconds = expected
        left = t("dur_s", lang, n=f"{seconds:.1f}") if seconds < 10 else fmt_duration(seconds, lang)
        return t("live_waiting_pace", lang, what=waiting, rate=rate, left=left)
    s, kv = result.steps[-1], kv_steps(result.steps[-1:], result.block_size)[0]
    return t(
        "live_status",
        lang,
        step=s.step,
        phase=t(f"phase_{s.phase}", lang),
        n=s.num_tokens,  # the plural's count: tokens in
        kv=kv.cached_tokens,
        kv_bytes=fmt_bytes(kv.cached_tokens * result.model.kv_bytes_per_token),
        blocks=kv.blocks,
        ms=s.ms,
        generated=len(result.tokens),
    )


def done_text(result: RunResult, lang: str) -> str:
    """A finished run in one line: tokens generated, steps, prompt length and what stopped it."""
    reason = result.request.finish_reason if result.request else None
    return t(
        "run_done",
        lang,
        n=len(result.tokens),
        reason=t(f"finish_{reason or 'none'}", lang),
        L=result.num_prompt_tokens,
        steps=len(result.steps),
    )


def kv_blocks_html(result: RunResult, lang: str) -> str:
    """One square per KV block, filled to the share of its slots in use (PagedAttention's view)."""
    if not result.steps:
        return ""
    tokens = kv_steps(result.steps[-1:], result.block_size)[0].cached_tokens
    full, rest = divmod(tokens, result.block_size)
    fills = [100] * full + ([round(100 * rest / result.block_size)] if rest else [])
    squares = "".join(
        f'<span class="pd-block"><span style="height:{f}%"></span></span>' for f in fills[:MAX_BLOCKS_DRAWN]
    )
    label = html_text(t("live_kv_blocks", lang, n=len(fills), size=result.block_size))
    return f'<div class="pd-kv"><span>{label}</span>{squares}</div>'


def live_html(result: RunResult, lang: str) -> str:
    status = html_text(status_text(result, lang))
    return (
        f'<div class="pd-live"><div class="pd-live-status">{status}</div>'
        f"{chips_html(result, lang=lang)}{kv_blocks_html(result, lang)}</div>"
    )
