"""Chart titles wrap to fit a phone (Plotly never wraps a title), in English, in Chinese and
in titles that mix the two (a model name, then Chinese: no space to break at for 30 columns)."""

from __future__ import annotations

from ui.theme import _columns, wrap_title


def lines(title: str) -> list[str]:
    return [line.rstrip() for line in wrap_title(title).split("<br>")]


def test_a_short_title_is_left_alone():
    assert wrap_title("TTFT and TPOT per column") == "TTFT and TPOT per column"


def test_english_breaks_at_spaces_into_even_lines():
    title = "Prefill peak above baseline vs prompt length (SmolLM2-135M-Instruct, float32)"
    assert lines(title) == ["Prefill peak above baseline vs prompt", "length (SmolLM2-135M-Instruct, float32)"]
    assert wrap_title(title).replace("<br>", "") == title  # read without the tag: the same words


def test_mixed_chinese_breaks_between_characters_and_fits():
    """The title the phone tour found clipped: the old wrap broke only at spaces."""
    title = "SmolLM2-135M-Instruct（已加载）：单个解码步的 FLOPs（按项拆分）"
    parts = lines(title)
    assert len(parts) == 2 and all(_columns(p) <= 40 for p in parts), parts
    assert wrap_title(title).replace("<br>", "") == title  # no space added between two characters
    assert "SmolLM2-135M-Instruct" in parts[0]  # a word is never cut
    assert parts[1][0] not in "：，。）"  # and no line opens with closing punctuation


def test_a_long_chinese_title_wraps_greedily_within_the_width():
    title = "预测的预填充峰值，" * 6
    parts = lines(title)
    assert len(parts) >= 3 and all(_columns(p) <= 40 for p in parts), parts
    assert "".join(parts) == title and wrap_title(title).replace("<br>", "") == title


def test_chinese_breaks_between_words_when_a_break_there_fits():
    """A tour found "第 0 步（预填 / 充）": the even cut fell inside a word. A cut at punctuation, before a
    bracket, at a space or where Chinese meets Latin is taken first when the lines still fit."""
    title = "第 0 步（预填充）：每个头的注意力形状与 KV 缓存的读写字节数"
    assert lines(title) == ["第 0 步（预填充）：每个头的注意力形状与", "KV 缓存的读写字节数"]  # not "…注 / 意力…"
    assert wrap_title(title).replace("<br>", "") == title
    one_run = "预测的预填充峰值与解码步的瞬时显存占用对比及其随提示长度变化"  # no word boundary to find
    assert all(_columns(p) <= 40 for p in lines(one_run)) and len(lines(one_run)) == 2


def test_the_plotly_toolbar_stays_off_titles_on_a_phone():
    """At 390 px the toolbar stood over the top right of every chart, where a title that fills the
    width runs: the shared stylesheet hides it at phone widths, and every title hangs from the top."""
    import re
    from pathlib import Path

    import plotly.graph_objects as go

    from ui.theme import style

    css = (Path(__file__).resolve().parent.parent / "assets" / "style.css").read_text()
    rule = re.search(r"@media \(max-width: (\d+)px\) \{[^}]*\.modebar-container \{ display: none", css)
    assert rule and int(rule[1]) >= 390
    title = style(go.Figure(), "A title long enough to wrap onto a second line on a phone", "x", "y").layout.title
    assert (title.yref, title.y, title.yanchor) == ("container", 1, "top")
