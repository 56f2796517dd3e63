"""The claims page under streamlit.testing's AppTest, on a tiny random model (quick check)."""

from __future__ import annotations

import re

import pytest
from streamlit.testing.v1 import AppTest

from app_pages import page_file
from lab.claims import CLAIM_IDS

PAGE = page_file("claims")


@pytest.fixture(scope="module")
def checked(new_app, tiny_dirs) -> AppTest:
    """The page after one quick check (module-scoped: the check is the slow part)."""
    mp = pytest.MonkeyPatch()
    mp.setenv("PDLAB_MODEL", str(tiny_dirs["llama"]))
    at = new_app(240)
    at.run()
    at.switch_page(PAGE).run()
    assert not at.exception and any("Not checked yet" in i.value for i in at.info)
    assert at.number_input(key="cl_rounds").value == 5  # more rounds for the patient
    assert any(c.value.startswith("At this machine's pace the full check takes about") for c in at.caption) or any(
        i.value.startswith("The full check would take about") for i in at.info
    )
    listed = table(at, "statement")  # every claim is listed before any check, with the page that shows it
    assert list(listed["claim"]) == CLAIM_IDS and listed["shown in depth on"].iloc[2] == "Roofline lab"
    at.toggle(key="cl_quick").set_value(True)
    at = at.button(key="cl_run").click().run()
    yield at
    mp.undo()


def table(at: AppTest, column: str = "verdict"):
    return next(d.value for d in [*at.dataframe, *at.table] if column in d.value.columns)


def test_every_claim_has_a_verdict_numbers_and_a_link(checked):
    at = checked
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert any(re.match(r"Checked 24 claims in \d+\.\d s", s.value) for s in at.success)
    t = table(at)
    assert list(t["claim"]) == CLAIM_IDS
    assert all(re.match(r"[✓≈✗–→≟] ", v) for v in t["verdict"])  # ≟: not separable here
    assert not any("unreliable" in v for v in [*t["verdict"], *t["measured"]])  # the busy reading is context
    verdicts = at.session_state["cl_result"].verdicts
    for claim, shown in zip(t["claim"], t["verdict"]):
        assert shown.endswith(verdicts[claim].verdict)
    measured = dict(zip(t["claim"], t["measured"]))
    assert "One prefill step fed all L = 32 prompt tokens" in measured["C1"]
    assert "its LM head returned 1 row of logits" in measured["C5"]
    assert "this tokenizer makes 9 tokens of 今天天气, not 4" in measured["C12"]
    assert "contradicts its own Σ(L+t)²" in measured["C15"]
    assert any(words in measured["C11"] for words in ("Power and temperature cannot be measured", "Power cannot be"))
    assert "Counted by the engine" in measured["C13"] and "raced step by step" in measured["C13"]
    assert re.search(r"\d+(\.\d+)?× \[[\d.]+–[\d.]+\], n = 5", measured["C4"])  # the paired ratio, its interval, n
    assert re.search(r"naive loop", measured["C16"])  # the tiny model's Hugging Face copy ran the loop
    links = [p for p in at.get("page_link")]
    assert len(links) == 24
    labels = [link.proto.label for link in links]
    assert labels[3] == "Open Sweeps" and labels[2] == "Open Roofline lab" and labels[14] == "Open Complexity lab"
    assert len({link.proto.page_script_hash for link in links}) >= 6  # distinct registered pages
    summary = next(m.value for m in at.markdown if m.value.startswith("On **"))
    counts = [
        int(n)
        for n in re.findall(
            r"(\d+) (?:holds?|do(?:es)? not hold|cannot|is shown|are shown|is not separable|are not separable)", summary
        )
    ]
    assert sum(counts) == 24


def test_the_summary_counts_each_kind_in_good_english():
    """The text "1 cannot be measured here or are shown on their page" merged two kinds, in bad grammar."""
    from app_pages.claims.panels import summary_text
    from lab.verdicts import FAILS, HOLDS, SHOWN, UNMEASURABLE, Verdict

    kinds = [HOLDS] * 2 + [FAILS] + [UNMEASURABLE] + [SHOWN] * 2
    verdicts = {f"C{i}": Verdict(f"C{i}", k, "r") for i, k in enumerate(kinds)}
    assert summary_text("m", verdicts, "en") == (
        "On **m**: 2 hold, 1 does not hold, 1 cannot be measured here, 2 are shown on their pages rather than measured."
    )
    one = summary_text("m", {"C1": Verdict("C1", HOLDS, "r"), "C2": Verdict("C2", SHOWN, "r")}, "en")
    assert one == "On **m**: 1 holds, 1 is shown on its page rather than measured."


def test_chinese(checked):
    at = checked.sidebar.radio(key="lang").set_value("zh").run()
    assert not at.exception and at.title[0].value == "逐条核查原文论断"
    t = table(at, "结论")
    assert t["内容"][0].startswith("整个提示一次前向传播完成")
    assert all(
        v.split(" ", 1)[1] in ("成立", "大致成立", "不成立", "此处无法测量", "见相应页面", "此处无法区分")
        for v in t["结论"]
    )
    at = at.sidebar.radio(key="lang").set_value("en").run()
    assert table(at)["claim"][0] == "C1"


def test_result_survives_a_visit_to_another_page(checked):
    result = checked.session_state["cl_result"]
    checked.switch_page(page_file("sweeps")).run()
    at = checked.switch_page(PAGE).run()
    assert not at.exception and at.session_state["cl_result"] is result
    assert at.toggle(key="cl_quick").value is True
    assert len(table(at)) == 24


def test_a_stopped_check_keeps_the_verdicts_it_judged(new_app, tiny_dirs, monkeypatch):
    """Verdicts land as they are judged: a Stop leaves those already in, the rest marked not checked."""
    from app_pages.claims.run import ClaimsResult
    from lab.claims_measure import ClaimSettings
    from lab.verdicts import HOLDS, Verdict

    monkeypatch.setenv("PDLAB_MODEL", str(tiny_dirs["llama"]))
    at = new_app().run()
    at.switch_page(PAGE).run()
    partial = ClaimsResult("tiny", ClaimSettings.quick())
    partial.verdicts = {c: Verdict(c, HOLDS, "why_c1_holds", dict(L=8, shape="[1, 8, 64]")) for c in ("C1", "C5")}
    at.session_state["cl_result"], at.session_state["cl_running_flag"] = partial, True
    at = at.run()
    assert not at.exception and any(w.value.startswith("Stopped before the checks finished: the 2") for w in at.warning)
    t = table(at)
    assert list(t["verdict"][:2]) == ["✓ holds", "not checked"] and (t["verdict"] == "not checked").sum() == 22


def test_the_live_table_marks_what_is_still_measured():
    from app_pages.claims.panels import live_table
    from lab.busy import MachineLoad
    from lab.sweep_verdicts import c9_verdict

    busy = MachineLoad(other_cores=1.2, cores=2, seconds=5.0)
    v = c9_verdict(64, [0.97, 0.96, 0.98, 0.97, 0.97], 16, busy)
    t = live_table({"C9": v}, "en")
    assert t["verdict"][8] == "✓ holds" and (t["verdict"] == "… measuring").sum() == 23
    assert t["measured"][8].endswith(" · ⚠ 1.2/2 cores busy with other work")  # the busy reading beside, not a switch
