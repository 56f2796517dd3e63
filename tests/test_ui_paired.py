"""One presentation of a timed comparison on every page (ui/paired.py): the ratio, its interval and n,
a verdict word only where the interval allows it, the busy reading beside the number, never "None"."""

from __future__ import annotations

from lab.busy import MachineLoad
from lab.pairing import ratio_interval
from ui.paired import explain_text, ratio_text, retaken_text, verdict_text

CLEAR = ratio_interval([3.0, 3.1, 2.9, 3.2, 3.0, 2.8], [1.0] * 6)
UNCLEAR = ratio_interval([0.9, 1.1, 0.95, 1.05, 1.2, 0.8], [1.0] * 6)
BUSY = ratio_interval([3.0] * 6, [1.0] * 6, load=MachineLoad(1.2, 2, 3.0))


def test_a_ratio_is_shown_with_its_interval_and_n_in_both_languages():
    assert ratio_text(CLEAR, "en") == "3× [2.8–3.2], n = 6"
    assert ratio_text(CLEAR, "zh") == "3× [2.8–3.2]，n = 6"
    assert ratio_text(ratio_interval([2.0, 3.0], [1.0, 1.0]), "en").endswith("too few pairs to judge (5 needed)")
    assert ratio_text(None, "en") == "not measured" and "None" not in ratio_text(None, "zh")


def test_the_busy_reading_stands_beside_the_number():
    assert ratio_text(BUSY, "en") == "3× [3–3], n = 6 · ⚠ 1.2/2 cores busy with other work"
    assert "busy" not in ratio_text(CLEAR, "en")


def test_a_verdict_word_only_where_the_interval_allows_it():
    assert verdict_text(CLEAR, "en", "slower", "faster") == "slower"
    assert verdict_text(UNCLEAR, "en", "slower", "faster") == "not separable here"
    assert verdict_text(UNCLEAR, "zh", "更慢", "更快") == "此处无法区分"
    assert retaken_text(0, "en") == "" and retaken_text(2, "en").startswith("2 rounds measured again")
    assert retaken_text(1, "en").startswith("1 round measured again")


def test_the_explanation_names_the_margin_a_busy_verdict_must_clear():
    """The rule's number comes from lab/pairing, in both languages; a busy ratio near 1 gets no word."""
    assert "by 30 %" in explain_text("en") and "30%" in explain_text("zh")
    near = ratio_interval([1.2] * 6, [1.0] * 6, load=MachineLoad(1.2, 2, 3.0))
    assert verdict_text(near, "en", "slower", "faster") == "not separable here"
    assert verdict_text(BUSY, "en", "slower", "faster") == "slower"
