"""The HTML report's token replay: the run's chips as data, drawn by a few lines of inline JS.

A slider walks the frames the page's replay has (before the first step, then every step): the
prompt's chips light up together at the prefill step, then one chip per decode step. The JS only
creates elements and sets `textContent`, and the data travels as JSON with `<`, `>` and `&`
escaped, so no model or user text can become markup.
"""

from __future__ import annotations

import json

from app_pages.playground.strings import t
from ui.chips import speculative_marks
from ui.replay import step_caption
from ui.run_state import RunResult
from ui.text import html_text, visible


def _spec(result: RunResult, marks: dict, tok, lang: str) -> dict:
    """A speculative token's chip class ("k") and, after a step's last token, its rejected drafts ("r")."""
    mark = marks.get(tok.index)
    if mark is None:
        return {}
    kind, _ = mark
    out = {"k": "pd-" + kind.replace("_", "-")}
    if kind != "spec_ok":
        out["r"] = [
            {
                "l": visible(p.label),
                "b": p.is_bytes,
                "t": t("chip_spec_rejected_title", lang, id=p.token_id, step=tok.step),
            }
            for p in result.rejected.get(tok.step, [])
        ]
    return out


def replay_data(result: RunResult, lang: str) -> dict:
    frames = [-1] + [s.step for s in result.steps]
    latencies = result.latencies_ms()
    marks = speculative_marks(result)
    return {
        "first": result.steps[0].step if result.steps else 0,
        "frames": frames,
        "frameLabels": [t("replay_frame_before", lang) if f < 0 else str(f) for f in frames],
        "captions": [step_caption(result, f, lang).replace("**", "") for f in frames],
        "prompt": [
            {"l": visible(p.label), "b": p.is_bytes, "t": t("chip_prompt_title", lang, i=i, id=p.token_id)}
            for i, p in enumerate(result.prompt)
        ],
        "out": [
            {
                "l": visible(p.label),
                "b": p.is_bytes,
                "s": tok.step,
                "p": tok.phase,
                "m": t("chip_meta", lang, step=tok.step, ms=ms),
                "t": t("chip_out_title", lang, i=tok.index, id=p.token_id, phase=t(f"phase_{tok.phase}", lang)),
            }
            | _spec(result, marks, tok, lang)
            for tok, p, ms in zip(result.tokens, result.pieces, latencies)
        ],
    }


def script_json(data: dict) -> str:
    """JSON safe inside a <script> element: no '</script>' or '<!--' can close or confuse it."""
    return json.dumps(data, ensure_ascii=False).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


REPLAY_JS = """
(function () {
  const d = JSON.parse(document.getElementById('pd-replay-data').textContent);
  const slider = document.getElementById('pd-replay-slider');
  const box = document.getElementById('pd-replay-chips');
  const caption = document.getElementById('pd-replay-caption');
  const label = document.getElementById('pd-replay-frame');
  const play = document.getElementById('pd-replay-play');
  const PHASE = {prefill: 'pd-prefill', decode: 'pd-decode', mixed: 'pd-mixed'};
  function chip(tok, phase, kind, meta, current) {
    const c = document.createElement('span');
    c.className = ['pd-chip', phase, kind].concat(tok.b ? ['pd-bytes'] : [], current ? ['pd-current'] : []).join(' ');
    c.title = tok.t;
    const text = document.createElement('span');
    text.className = 'pd-tok';
    text.textContent = tok.l;
    c.appendChild(text);
    if (meta) {
      const m = document.createElement('span');
      m.className = 'pd-meta';
      m.textContent = meta;
      c.appendChild(m);
    }
    return c;
  }
  function draw(i) {
    const frame = d.frames[i];
    const promptPhase = frame >= d.first ? 'pd-prefill' : 'pd-pending';
    const chips = d.prompt.map(p => chip(p, promptPhase, 'pd-in', '', false));
    const shown = d.out.filter(o => o.s <= frame);
    if (shown.length) {
      const arrow = document.createElement('span');
      arrow.className = 'pd-arrow';
      arrow.textContent = '\\u2192';
      chips.push(arrow);
    }
    shown.forEach(o => {
      chips.push(chip(o, PHASE[o.p] || 'pd-decode', o.k ? 'pd-out ' + o.k : 'pd-out', o.m, o.s === frame));
      (o.r || []).forEach(r => chips.push(chip(r, 'pd-decode', 'pd-spec-no', '', false)));  // rejected drafts
    });
    box.replaceChildren(...chips);
    box.dataset.frame = String(frame);
    caption.textContent = d.captions[i];
    label.textContent = d.frameLabels[i];
  }
  let timer = null;
  function stop() { if (timer) { clearInterval(timer); timer = null; } }
  slider.addEventListener('input', () => { stop(); draw(Number(slider.value)); });
  play.addEventListener('click', () => {
    stop();
    slider.value = '0';
    draw(0);
    timer = setInterval(() => {
      const next = Number(slider.value) + 1;
      if (next >= d.frames.length) { stop(); return; }
      slider.value = String(next);
      draw(next);
    }, 250);
  });
  draw(d.frames.length - 1);
})();
"""


def replay_html(result: RunResult, lang: str) -> str:
    n = len(result.steps)
    return (
        f'<p class="rp-help">{html_text(t("rp_replay_help", lang))}</p>'
        f'<div class="rp-replay-controls"><button id="pd-replay-play" type="button">'
        f"{html_text(t('rp_play', lang))}</button>"
        f'<label for="pd-replay-slider">{html_text(t("replay_step", lang))}: <b id="pd-replay-frame"></b></label>'
        f'<input id="pd-replay-slider" type="range" min="0" max="{n}" step="1" value="{n}"></div>'
        f'<p id="pd-replay-caption" class="rp-caption"></p>'
        f'<div id="pd-replay-chips" class="pd-chips"></div>'
        f'<script type="application/json" id="pd-replay-data">{script_json(replay_data(result, lang))}</script>'
        f"<script>{REPLAY_JS}</script>"
    )
