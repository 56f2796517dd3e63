"""One presentation of a timed comparison on every page (ui/paired.py): the ratio, its interval and n,
a verdict word only where the interval allows it, the busy reading beside the number, never "None"."""

from __future__ import annotations

from lab.busy import MachineLoad
from lab.pairing import ratio_interval
from lab.verdicts import FAILS, HOLDS, NOT_SEPARABLE, judged
from ui.paired import band_text, ratio_text, retaken_text, verdict_text

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
    assert band_text(UNCLEAR, "en", "unchanged", "changed", 0.5, 1.5) == "unchanged"
    assert retaken_text(0, "en") == "" and retaken_text(2, "en").startswith("2 rounds measured again")
    assert retaken_text(1, "en").startswith("1 round measured again")


def test_a_claim_judged_on_an_interval():
    reasons = ("why_a", "why_b", "why_c")
    assert judged("C4", CLEAR, "greater", reasons).verdict == HOLDS
    assert judged("C4", CLEAR, "less", reasons).verdict == FAILS
    v = judged("C4", UNCLEAR, "greater", reasons)
    assert v.verdict == NOT_SEPARABLE and v.reason == "why_c" and v.numbers["n"] == 6
